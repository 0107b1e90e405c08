//===- FragmentLayoutTest.cpp - Tests of the fragment layout algebra ------===//

#include "tile/Dialect/Tile/IR/FragmentLayout.h"
#include "tile/Dialect/Tile/IR/Swizzle.h"

#include "TestUtils.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <map>
#include <set>

using namespace mlir;
using namespace mlir::tile;

namespace {

using FragmentLayoutTest = test::KernelTest;

/// Checks that `layout` holds every element exactly once.
static void expectBijection(LayoutAttr layout) {
  std::set<SmallVector<int64_t>> seen;
  for (int64_t t = 0; t < layout.getThreads(); ++t)
    for (int64_t r = 0; r < layout.getRegisters(); ++r) {
      SmallVector<int64_t> c = layout.getCoordinates(t, r);
      for (auto [coordinate, extent] : llvm::zip(c, layout.getShape())) {
        EXPECT_GE(coordinate, 0);
        EXPECT_LT(coordinate, extent);
      }
      EXPECT_TRUE(seen.insert(c).second);
    }
  EXPECT_EQ(int64_t(seen.size()), layout.getNumElements());
}

// The m16n8 accumulator layout is the one of the PTX ISA (mma.m16n8k16,
// fragment C): lane l holds (l/4, 2(l%4)), (l/4, 2(l%4)+1), (l/4+8, 2(l%4)),
// (l/4+8, 2(l%4)+1) of each 16x8 tile, tiles row-major in the warp's
// sub-tile, warps row-major over the grid.
TEST_F(FragmentLayoutTest, MmaAccumulatorLayout) {
  LayoutAttr layout = getMmaAccumulatorLayout(&context, {64, 32}, 2, 2);
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout.getThreads(), 128);
  // A warp holds 32x16: 2x2 tiles of 4 registers.
  EXPECT_EQ(layout.getRegisters(), 16);
  expectBijection(layout);
  using V = SmallVector<int64_t>;
  EXPECT_EQ(layout.getCoordinates(0, 0), (V{0, 0}));
  EXPECT_EQ(layout.getCoordinates(5, 0), (V{1, 2}));
  EXPECT_EQ(layout.getCoordinates(5, 1), (V{1, 3}));
  EXPECT_EQ(layout.getCoordinates(5, 2), (V{9, 2}));
  EXPECT_EQ(layout.getCoordinates(5, 3), (V{9, 3}));
  // Register 4 starts tile (0, 1) of the warp, 8 tile (1, 0).
  EXPECT_EQ(layout.getCoordinates(5, 4), (V{1, 10}));
  EXPECT_EQ(layout.getCoordinates(5, 8), (V{17, 2}));
  // Warp 1 is to the right of warp 0, warp 2 below it.
  EXPECT_EQ(layout.getCoordinates(32, 0), (V{0, 16}));
  EXPECT_EQ(layout.getCoordinates(64, 0), (V{32, 0}));
  // Pairs of registers are contiguous along a row.
  EXPECT_EQ(getContiguousRun(layout, 4), 2);
  // Shapes that are not whole m16n8 tiles per warp have no such layout.
  EXPECT_FALSE(getMmaAccumulatorLayout(&context, {64, 32}, 8, 1));
  EXPECT_FALSE(getMmaAccumulatorLayout(&context, {64, 36}, 2, 2));
}

// The transposed layout holds element (j, i) where the original holds
// (i, j); for a tf32 wgmma's C (the 64 x 32 accumulator of a 32 x 64
// product over one warp group), each thread's register pairs run along M.
/// Applies `exchange` to `layout` (runs of `run`) and checks that every
/// thread then holds runs of `widerRun` consecutive elements, each element
/// once, starting where LaneExchange says.
static void expectExchangeWidens(LayoutAttr layout, const LaneExchange &exchange,
                                 int64_t run, int64_t widerRun) {
  ASSERT_EQ(exchange.lanes * run, widerRun);
  std::set<SmallVector<int64_t>> seen;
  for (int64_t t = 0; t < layout.getThreads(); ++t) {
    int64_t q = (t / exchange.laneStride) % exchange.lanes;
    int64_t base = t - q * exchange.laneStride;
    for (ArrayRef<int64_t> group : exchange.groups) {
      ASSERT_EQ(int64_t(group.size()), exchange.lanes);
      SmallVector<int64_t> start = layout.getCoordinates(t, group.front());
      start.back() += q * (exchange.spacing - run);
      // After the exchange, elements i * run .. i * run + run - 1 of lane
      // q's wider run are lane i's run group[q].
      for (int64_t i = 0; i < exchange.lanes; ++i)
        for (int64_t e = 0; e < run; ++e) {
          SmallVector<int64_t> held = layout.getCoordinates(
              base + i * exchange.laneStride, group[q] + e);
          SmallVector<int64_t> expected = start;
          expected.back() += i * run + e;
          EXPECT_EQ(held, expected);
          EXPECT_TRUE(seen.insert(held).second);
        }
    }
  }
  EXPECT_EQ(int64_t(seen.size()), layout.getNumElements());
}

// The MMA accumulators give each lane of a quad 2 consecutive columns of
// every 8: four lanes exchanging the runs of four 8-column tiles hold 8
// consecutive columns each (a 16-byte f16 store instead of four 4-byte
// ones).
TEST_F(FragmentLayoutTest, LaneExchangeWidensAccumulatorRuns) {
  // The wgmma accumulator of two warp groups (a warp per 16 rows).
  LayoutAttr wgmma = getMmaAccumulatorLayout(&context, {128, 256}, 8, 1);
  ASSERT_TRUE(wgmma);
  std::optional<LaneExchange> exchange = getLaneExchange(wgmma, 2, 8);
  ASSERT_TRUE(exchange);
  EXPECT_EQ(exchange->lanes, 4);
  EXPECT_EQ(exchange->laneStride, 1);
  EXPECT_EQ(exchange->spacing, 8);
  EXPECT_EQ(exchange->groups.size(), 16u);
  expectExchangeWidens(wgmma, *exchange, 2, 8);
  // f32 (16 bytes = 4 elements): pairs of lanes, each pair of runs from
  // tiles 8 columns apart.
  exchange = getLaneExchange(wgmma, 2, 4);
  ASSERT_TRUE(exchange);
  EXPECT_EQ(exchange->lanes, 2);
  EXPECT_EQ(exchange->spacing, 8);
  expectExchangeWidens(wgmma, *exchange, 2, 4);
  // mma.sync with 2 x 2 warps.
  LayoutAttr mma = getMmaAccumulatorLayout(&context, {64, 64}, 2, 2);
  exchange = getLaneExchange(mma, 2, 8);
  ASSERT_TRUE(exchange);
  expectExchangeWidens(mma, *exchange, 2, 8);
  // Eight lanes would need 16 columns from a quad of 4 lanes: none.
  EXPECT_FALSE(getLaneExchange(wgmma, 2, 16));
  // A warp's sub-tile of one 8-column tile has no four runs to a row.
  EXPECT_FALSE(getLaneExchange(
      getMmaAccumulatorLayout(&context, {64, 8}, 4, 1), 2, 8));
  // A blocked layout's runs of a thread are a warp apart: no exchange.
  EXPECT_FALSE(getLaneExchange(
      getBlockedLayout(&context, {16, 64}, 32, 2), 2, 8));
}

// stmatrix blocks (the TMA-store epilogue): the wgmma accumulator of 8
// warps over 128 x 256 holds, in register pair p of warp w, the 8x8 block at
// row 16 w + 8 (p % 2), column 8 (p / 2); a blocked layout holds none.
TEST_F(FragmentLayoutTest, MatrixBlocksOfAccumulators) {
  LayoutAttr wgmma = getMmaAccumulatorLayout(&context, {128, 256}, 8, 1);
  std::optional<MatrixBlocks> blocks = getMatrixBlocks(wgmma);
  ASSERT_TRUE(blocks);
  EXPECT_EQ(blocks->warps, 8);
  EXPECT_EQ(blocks->pairs, 64);
  for (int64_t warp = 0; warp < 8; ++warp)
    for (int64_t pair = 0; pair < 64; ++pair) {
      EXPECT_EQ(blocks->rows[warp * 64 + pair], 16 * warp + 8 * (pair % 2));
      EXPECT_EQ(blocks->columns[pair], 8 * (pair / 2));
    }
  // Warps side by side along columns: a warp's columns differ, which the
  // blocks (one column per pair for every warp) do not allow.
  EXPECT_FALSE(getMatrixBlocks(getMmaAccumulatorLayout(&context, {64, 64}, 2, 2)));
  EXPECT_TRUE(getMatrixBlocks(getMmaAccumulatorLayout(&context, {64, 64}, 4, 1)));
  EXPECT_FALSE(getMatrixBlocks(getBlockedLayout(&context, {16, 64}, 32, 2)));
  // The transposed accumulator (tf32 wgmma) pairs rows, not columns.
  EXPECT_FALSE(getMatrixBlocks(
      getTransposedLayout(getMmaAccumulatorLayout(&context, {64, 32}, 4, 1))));
}

TEST_F(FragmentLayoutTest, TransposedLayout) {
  LayoutAttr layout = getMmaAccumulatorLayout(&context, {64, 32}, 4, 1);
  LayoutAttr transposed = getTransposedLayout(layout);
  ASSERT_TRUE(transposed);
  EXPECT_EQ(transposed.getShape(), ArrayRef<int64_t>({32, 64}));
  EXPECT_EQ(transposed.getThreads(), 128);
  EXPECT_EQ(transposed.getRegisters(), layout.getRegisters());
  expectBijection(transposed);
  for (int64_t t = 0; t < 128; ++t)
    for (int64_t r = 0; r < layout.getRegisters(); ++r) {
      SmallVector<int64_t> c = layout.getCoordinates(t, r);
      EXPECT_EQ(transposed.getCoordinates(t, r),
                (SmallVector<int64_t>{c[1], c[0]}));
    }
  // Lane 5 of warp 1 (thread 37): registers 0 and 1 are M = 2, 3 (2 q, with
  // q = 1) of N row 16 + 1.
  EXPECT_EQ(transposed.getCoordinates(37, 0), (SmallVector<int64_t>{2, 17}));
  EXPECT_EQ(transposed.getCoordinates(37, 1), (SmallVector<int64_t>{3, 17}));
  EXPECT_EQ(getTransposedLayout(transposed), layout);
  LayoutAttr rank1 = getBlockedLayout(&context, {128}, 32, 4);
  ASSERT_TRUE(rank1);
  EXPECT_FALSE(getTransposedLayout(rank1));
}

TEST_F(FragmentLayoutTest, BlockedLayout) {
  LayoutAttr layout = getBlockedLayout(&context, {16, 64}, 64, 4);
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout.getRegisters(), 16);
  expectBijection(layout);
  using V = SmallVector<int64_t>;
  // Runs of 4 dealt to threads in turn: thread 1 starts at column 4, and
  // its second run comes one round (64 threads x 4 elements) later.
  EXPECT_EQ(layout.getCoordinates(1, 0), (V{0, 4}));
  EXPECT_EQ(layout.getCoordinates(1, 3), (V{0, 7}));
  EXPECT_EQ(layout.getCoordinates(1, 4), (V{4, 4}));
  EXPECT_EQ(getContiguousRun(layout, 8), 4);
  EXPECT_EQ(getBlockedRun({16, 64}, 64, Float32Type::get(&context)), 4);
  EXPECT_EQ(getBlockedRun({16, 64}, 64, Float16Type::get(&context)), 8);
  EXPECT_EQ(getBlockedRun({3, 5}, 64, Float32Type::get(&context)),
            std::nullopt);
  EXPECT_FALSE(getBlockedLayout(&context, {3, 5}, 64, 1));
}

TEST_F(FragmentLayoutTest, ChooseMmaWarps) {
  using P = std::optional<std::pair<int64_t, int64_t>>;
  // 128x128 over 8 warps: 64x32 per warp (2x4) is as square as 32x64; the
  // first found wins.
  EXPECT_EQ(chooseMmaWarps(128, 128, 8), (P{{2, 4}}));
  EXPECT_EQ(chooseMmaWarps(128, 256, 8), (P{{2, 4}}));
  EXPECT_EQ(chooseMmaWarps(64, 64, 4), (P{{2, 2}}));
  // 16 rows: all warps along N.
  EXPECT_EQ(chooseMmaWarps(16, 64, 4), (P{{1, 4}}));
  EXPECT_EQ(chooseMmaWarps(16, 8, 4), std::nullopt);
}

TEST_F(FragmentLayoutTest, OwnersAndRendering) {
  LayoutAttr layout = getMmaAccumulatorLayout(&context, {16, 8}, 1, 1);
  SmallVector<ElementOwner> owners = getElementOwners(layout);
  ASSERT_EQ(owners.size(), 128u);
  // Element (9, 3): lane 4 * 1 + 1 = 5, register 3.
  EXPECT_EQ(owners[9 * 8 + 3].thread, 5);
  EXPECT_EQ(owners[9 * 8 + 3].registerIndex, 3);
  std::string text = renderLayoutText(layout);
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "T0:0  T0:1  T1:0  T1:1  T2:0  T2:1  T3:0  T3:1 ");
  std::string svg = renderLayoutSVG(layout, "a <title>");
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("a &lt;title&gt;"), std::string::npos);
  EXPECT_NE(svg.find(">T31:3<"), std::string::npos);
}

TEST_F(FragmentLayoutTest, VerifierRejectsNonBijections) {
  auto parse = [&](StringRef text) { return parseAttribute(text, &context); };
  // Two threads map to the same element.
  EXPECT_FALSE(parse("#tile.layout<shape = [4], threads = 4, registers = 1, "
                     "map = (d0, d1) -> (d0 floordiv 2)>"));
  // Outside the tile.
  EXPECT_FALSE(parse("#tile.layout<shape = [4], threads = 4, registers = 1, "
                     "map = (d0, d1) -> (d0 + 1)>"));
  EXPECT_TRUE(parse("#tile.layout<shape = [4], threads = 2, registers = 2, "
                    "map = (d0, d1) -> (d1 * 2 + d0)>"));
}

// 8 consecutive rows of a swizzled tile, read at one 16-byte chunk (an
// ldmatrix), fall into 8 different bank groups, for rows of 64 bytes (A
// tiles, two rows share a 128-byte line) and of 256 bytes (B tiles).
TEST_F(FragmentLayoutTest, SwizzleSpreadsRowsOverBanks) {
  Type f16 = Float16Type::get(&context);
  for (int64_t columns : {32, 128, 64}) {
    auto type = MemRefType::get({32, columns}, f16);
    EXPECT_FALSE(whyNotSwizzlable(type));
    for (int64_t chunk = 0; chunk < columns / 8; ++chunk) {
      std::set<int64_t> banks;
      for (int64_t row = 0; row < 8; ++row) {
        auto [i, j] = getSwizzledPosition(type, row, chunk * 8);
        EXPECT_EQ(j % 8, 0);
        banks.insert(((i * columns + j) * 2 / 16) % 8);
      }
      EXPECT_EQ(banks.size(), 8u) << columns << " columns, chunk " << chunk;
    }
    // A permutation of the tile.
    std::set<std::pair<int64_t, int64_t>> positions;
    for (int64_t row = 0; row < 32; ++row)
      for (int64_t column = 0; column < columns; ++column)
        positions.insert(getSwizzledPosition(type, row, column));
    EXPECT_EQ(int64_t(positions.size()), 32 * columns);
  }
  // Rows wider than 128 bytes are cut into panels of 64 f16 columns, each
  // stored whole: column 64 of row 0 starts the second panel, after the 32
  // rows of the first (linear element 32 * 64); row 9 of a panel is the
  // second line of an atom, its chunks swapped in pairs.
  auto wide = MemRefType::get({32, 128}, f16);
  EXPECT_EQ(getSwizzledPosition(wide, 0, 64),
            std::make_pair(int64_t(16), int64_t(0)));
  EXPECT_EQ(getSwizzledPosition(wide, 9, 64),
            std::make_pair(int64_t(20), int64_t(72)));
  EXPECT_EQ(getSwizzledLinearOffset(wide, 8, 72), (32 * 64 + 8 * 64 + 8) * 2);
  EXPECT_TRUE(whyNotSwizzlable(MemRefType::get({4, 12}, f16)));
  EXPECT_TRUE(whyNotSwizzlable(MemRefType::get({3, 32}, f16)));
}

// A row shift that getSwizzledRowShift accepts moves every position of the
// tile by the same physical rows, in the same column; the smallest such
// shift is 8 lines: 8 rows of one line, 16 of half a line, 8 panelled
// rows of two panels (24 of three, so that the panelled rows also move by
// whole rows). Shifts that break the pattern are refused.
TEST_F(FragmentLayoutTest, SwizzledRowShiftMovesWholeRows) {
  Type f16 = Float16Type::get(&context);
  Type f32 = Float32Type::get(&context);
  struct Case {
    MemRefType type;
    int64_t period;
  };
  for (Case c : {Case{MemRefType::get({64, 64}, f16), 8},
                 Case{MemRefType::get({64, 32}, f16), 16},
                 Case{MemRefType::get({64, 16}, f16), 32},
                 Case{MemRefType::get({64, 128}, f16), 8},
                 Case{MemRefType::get({64, 64}, f32), 8},
                 Case{MemRefType::get({48, 96}, f32), 24}}) {
    int64_t rows = c.type.getDimSize(0), columns = c.type.getDimSize(1);
    for (int64_t shift = 1; shift < rows; ++shift) {
      std::optional<int64_t> physical = getSwizzledRowShift(c.type, shift);
      EXPECT_EQ(physical.has_value(), shift % c.period == 0)
          << columns << " columns, shift " << shift;
      if (!physical)
        continue;
      for (int64_t row = 0; row + shift < rows; ++row)
        for (int64_t column = 0; column < columns; ++column) {
          auto [i, j] = getSwizzledPosition(c.type, row, column);
          EXPECT_EQ(getSwizzledPosition(c.type, row + shift, column),
                    std::make_pair(i + *physical, j))
              << columns << " columns, (" << row << ", " << column
              << ") shifted by " << shift;
        }
    }
  }
}

// The index arithmetic tile-apply-swizzles writes computes the positions
// getSwizzledPosition defines, for every element of tiles of each case:
// one row per line, rows sharing a line (two and four), rows of two and
// three panels, row counts that are and are not multiples of 8, a leading
// dimension. Built on constants, the ops fold.
TEST_F(FragmentLayoutTest, SwizzledIndicesMatchPositions) {
  Type f16 = Float16Type::get(&context);
  Type f32 = Float32Type::get(&context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  OpBuilder builder = OpBuilder::atBlockBegin(module->getBody());
  Location loc = builder.getUnknownLoc();
  SmallVector<MemRefType> types = {
      MemRefType::get({16, 64}, f16),  MemRefType::get({16, 32}, f16),
      MemRefType::get({8, 16}, f16),   MemRefType::get({16, 16}, f32),
      MemRefType::get({32, 128}, f16), MemRefType::get({16, 64}, f32),
      MemRefType::get({24, 192}, f16), MemRefType::get({8, 192}, f16),
      MemRefType::get({12, 128}, f16), MemRefType::get({2, 16, 64}, f32)};
  for (MemRefType type : types) {
    std::string name;
    llvm::raw_string_ostream(name) << type;
    ASSERT_FALSE(whyNotSwizzlable(type)) << name;
    int64_t rows = type.getShape()[type.getRank() - 2];
    int64_t columns = type.getShape().back();
    for (int64_t row = 0; row < rows; ++row) {
      for (int64_t column = 0; column < columns; ++column) {
        SmallVector<Value> indices;
        for (int64_t i = 0; i + 2 < type.getRank(); ++i)
          indices.push_back(arith::ConstantIndexOp::create(builder, loc, 1));
        indices.push_back(arith::ConstantIndexOp::create(builder, loc, row));
        indices.push_back(
            arith::ConstantIndexOp::create(builder, loc, column));
        SmallVector<Value> physical =
            buildSwizzledIndices(builder, loc, type, indices);
        ASSERT_EQ(physical.size(), indices.size());
        std::optional<int64_t> i = getConstantIntValue(physical.end()[-2]);
        std::optional<int64_t> j = getConstantIntValue(physical.back());
        ASSERT_TRUE(i && j) << name << " (" << row << ", " << column << ")";
        EXPECT_EQ(std::make_pair(*i, *j),
                  getSwizzledPosition(type, row, column))
            << name << " (" << row << ", " << column << ")";
        if (type.getRank() > 2) {
          EXPECT_EQ(physical.front(), indices.front());
        }
      }
    }
    module->getBody()->clear();
    builder.setInsertionPointToStart(module->getBody());
  }
}

} // namespace

namespace {

// Reducing the m16n8 accumulator of one warp along its columns: each lane
// keeps its rows (l/4 and l/4+8) in the same registers, so registers 0,1
// and 2,3 of a lane hold one element each (2 slots), and the 4 lanes of a
// quad (thread bits 0 and 1) hold the same elements.
TEST_F(FragmentLayoutTest, ReducedMmaAccumulatorRows) {
  LayoutAttr layout = getMmaAccumulatorLayout(&context, {16, 8}, 1, 1);
  ASSERT_TRUE(layout);
  LayoutAttr rows = getReducedLayout(layout, 1);
  ASSERT_TRUE(rows);
  EXPECT_EQ(rows.getShape(), ArrayRef<int64_t>({16}));
  EXPECT_EQ(rows.getThreads(), 32);
  EXPECT_EQ(rows.getRegisters(), 4);
  for (int64_t lane = 0; lane < 32; ++lane)
    for (int64_t reg = 0; reg < 4; ++reg)
      EXPECT_EQ(rows.getCoordinates(lane, reg),
                SmallVector<int64_t>({lane / 4 + 8 * (reg / 2)}));
  RegisterSlots slots = getRegisterSlots(rows);
  EXPECT_EQ(slots.slotOf, SmallVector<int64_t>({0, 0, 1, 1}));
  EXPECT_EQ(slots.representative, SmallVector<int64_t>({0, 2}));
  EXPECT_EQ(getReplicatedThreadBits(rows), std::optional<int64_t>(0b11));
  // The first holder of each row: lane 4r of the quad.
  SmallVector<ElementOwner> owners = getElementOwners(rows);
  EXPECT_EQ(owners[3].thread, 12);
  EXPECT_EQ(owners[11].thread, 12);
  EXPECT_EQ(owners[11].registerIndex, 2);
}

// Along rows instead: a lane's columns 2(l%4) and 2(l%4)+1 in registers
// 0,2 and 1,3; the 8 lanes with one l%4 share them (thread bits 2-4). With
// two warps along M, the warps hold the same columns too (bit 5).
TEST_F(FragmentLayoutTest, ReducedMmaAccumulatorColumns) {
  LayoutAttr layout = getMmaAccumulatorLayout(&context, {32, 8}, 2, 1);
  LayoutAttr cols = getReducedLayout(layout, 0);
  ASSERT_TRUE(cols);
  RegisterSlots slots = getRegisterSlots(cols);
  EXPECT_EQ(slots.slotOf, SmallVector<int64_t>({0, 1, 0, 1}));
  EXPECT_EQ(getReplicatedThreadBits(cols), std::optional<int64_t>(0b111100));
}

// A layout whose registers each hold a different element reduces to one
// that holds each once per thread: no shared slots, every thread a copy.
TEST_F(FragmentLayoutTest, ReducedBlockedLayout) {
  LayoutAttr layout = getBlockedLayout(&context, {4, 64}, 64, 4);
  ASSERT_TRUE(layout);
  LayoutAttr rows = getReducedLayout(layout, 1);
  // Runs of 4 along a row: registers 0..3 hold one row, in every thread.
  RegisterSlots slots = getRegisterSlots(rows);
  EXPECT_EQ(slots.size(), 1);
  // 256 elements over 64 threads x 4: a row is 16 threads' runs.
  EXPECT_EQ(getReplicatedThreadBits(rows), std::optional<int64_t>(0b1111));
  // Not replicated at all: no copies to combine, every register its slot.
  EXPECT_EQ(getReplicatedThreadBits(layout), std::optional<int64_t>(0));
  EXPECT_EQ(getRegisterSlots(layout).size(), 4);
}

// A rank-1 layout reduces to one element held by every register.
TEST_F(FragmentLayoutTest, ReducedToOneElement) {
  LayoutAttr layout = getBlockedLayout(&context, {128}, 32, 4);
  LayoutAttr one = getReducedLayout(layout, 0);
  EXPECT_EQ(one.getShape(), ArrayRef<int64_t>({1}));
  EXPECT_EQ(getRegisterSlots(one).size(), 1);
  EXPECT_EQ(getReplicatedThreadBits(one), std::optional<int64_t>(31));
}

// Rows reduced from accumulators of 16 and 32 columns (one warp): 8 and 16
// registers, the same two rows per lane. mapRegisters pairs each register
// with one holding the same row in every lane, both ways; rows reduced
// from a 32-row accumulator over two warps are another distribution.
TEST_F(FragmentLayoutTest, MapRegistersAcrossWidths) {
  LayoutAttr narrow =
      getReducedLayout(getMmaAccumulatorLayout(&context, {16, 16}, 1, 1), 1);
  LayoutAttr wide =
      getReducedLayout(getMmaAccumulatorLayout(&context, {16, 32}, 1, 1), 1);
  ASSERT_TRUE(narrow && wide);
  EXPECT_NE(narrow, wide);
  std::optional<SmallVector<int64_t>> wideToNarrow = mapRegisters(wide, narrow);
  ASSERT_TRUE(wideToNarrow);
  // c0 c1 of each m16n8 tile hold the upper row (narrow register 0), c2 c3
  // the lower one (narrow register 2).
  EXPECT_EQ(*wideToNarrow, SmallVector<int64_t>({0, 0, 2, 2, 0, 0, 2, 2, 0, 0,
                                                 2, 2, 0, 0, 2, 2}));
  EXPECT_TRUE(isSameDistribution(narrow, wide));
  EXPECT_TRUE(isSameDistribution(wide, narrow));
  // Within one layout, a register maps to the first holding its row.
  std::optional<SmallVector<int64_t>> self = mapRegisters(narrow, narrow);
  ASSERT_TRUE(self);
  EXPECT_EQ((*self)[3], 2);
  // Two warps over 32 rows: other shape, no mapping.
  LayoutAttr tall =
      getReducedLayout(getMmaAccumulatorLayout(&context, {32, 16}, 2, 1), 1);
  EXPECT_FALSE(mapRegisters(tall, narrow));
  // Warps split along N: each lane holds the same rows but in threads 32-63
  // too; against one warp the thread counts differ.
  LayoutAttr split =
      getReducedLayout(getMmaAccumulatorLayout(&context, {16, 32}, 1, 2), 1);
  EXPECT_FALSE(isSameDistribution(split, narrow));
}

// The tf32 operand loads of mma.sync (GemmMmaSync.cpp) read, per slot, the
// elements (row g, K k(q)) of A and (K k(q), column g) of B for the 32
// lanes (g = l / 4, q = l % 4). In 128-byte-swizzled f32 tiles, with the K
// order of getTF32KOrder every such load touches 32 different banks (one
// shared-memory wavefront), for A and B stored either way; in natural
// order B's rows q and q ^ 1 share banks.
static int64_t worstWavefronts(MemRefType type, bool kAlongRows,
                               ArrayRef<int64_t> kOfSlot) {
  int64_t rows = type.getShape()[0], columns = type.getShape()[1];
  int64_t worst = 0;
  int64_t kExtent = kAlongRows ? rows : columns;
  int64_t otherExtent = kAlongRows ? columns : rows;
  for (int64_t k0 = 0; k0 < kExtent; k0 += 8)
    for (int64_t base = 0; base < otherExtent; base += 8)
      for (int64_t half = 0; half < 2; ++half) {
        std::map<int64_t, std::set<int64_t>> words; // bank -> words
        for (int64_t lane = 0; lane < 32; ++lane) {
          int64_t k = k0 + kOfSlot[4 * half + lane % 4];
          int64_t other = base + lane / 4;
          auto [i, j] = kAlongRows ? getSwizzledPosition(type, k, other)
                                   : getSwizzledPosition(type, other, k);
          int64_t word = i * columns + j;
          words[word % 32].insert(word);
        }
        for (auto &[bank, inBank] : words)
          worst = std::max(worst, int64_t(inBank.size()));
      }
  return worst;
}

TEST_F(FragmentLayoutTest, TF32KOrderAvoidsBankConflicts) {
  SmallVector<int64_t> order, natural;
  for (int64_t slot = 0; slot < 8; ++slot) {
    order.push_back(getTF32KOrder(slot));
    natural.push_back(slot);
  }
  EXPECT_EQ(order, (SmallVector<int64_t>{0, 3, 5, 6, 1, 2, 4, 7}));
  EXPECT_EQ(std::set<int64_t>(order.begin(), order.end()).size(), 8u);
  Type f32 = Float32Type::get(&context);
  // A row-major (M x K) and transposed (K x M); B row-major (K x N) and
  // transposed (N x K): rows of 128 bytes and of 256 bytes (two panels).
  for (auto [shape, kAlongRows] :
       {std::make_pair(SmallVector<int64_t>{64, 32}, false),
        std::make_pair(SmallVector<int64_t>{32, 64}, true),
        std::make_pair(SmallVector<int64_t>{32, 32}, true),
        std::make_pair(SmallVector<int64_t>{64, 64}, false),
        std::make_pair(SmallVector<int64_t>{16, 64}, true)}) {
    auto type = MemRefType::get(shape, f32);
    ASSERT_FALSE(whyNotSwizzlable(type));
    EXPECT_EQ(worstWavefronts(type, kAlongRows, order), 1)
        << shape[0] << "x" << shape[1] << (kAlongRows ? " K rows" : "");
  }
  EXPECT_EQ(worstWavefronts(MemRefType::get({32, 64}, f32),
                            /*kAlongRows=*/true, natural),
            2);
}

} // namespace

namespace {
// The queries that enumerate a layout evaluate its map for all (thread,
// register) at once (floor division and modulo by powers of two as shifts
// and masks) and memoize the result per context. On a map whose
// subexpressions go negative and divide by powers of two and by other
// numbers, the owners they find must be those of the per-element evaluator
// (LayoutAttr::getCoordinates), asked twice (the second time from the memo).
TEST_F(FragmentLayoutTest, WholeTableEvaluationMatchesPerElement) {
  // 8 threads x 6 registers over 6 x 8, written with negative
  // intermediates: (t - 8) floordiv 2 + 4 is t floordiv 2, (r - 6) mod 3 is
  // r mod 3, (r + 1) ceildiv 3 - 1 is r floordiv 3.
  auto layout = dyn_cast_or_null<LayoutAttr>(parseAttribute(
      "#tile.layout<shape = [6, 8], threads = 8, registers = 6, map = "
      "(t, r) -> (((r + 1) ceildiv 3 - 1) * 3 + (r - 6) mod 3,"
      " ((t - 8) floordiv 2 + 4) * 2 + (t - 8) mod 2)>",
      &context));
  ASSERT_TRUE(layout);
  for (int round = 0; round < 2; ++round) {
    SmallVector<ElementOwner> owners = getElementOwners(layout);
    ASSERT_EQ(owners.size(), 48u);
    for (int64_t t = 0; t < 8; ++t)
      for (int64_t r = 0; r < 6; ++r) {
        SmallVector<int64_t> c = layout.getCoordinates(t, r);
        const ElementOwner &owner = owners[c[0] * 8 + c[1]];
        EXPECT_EQ(owner.thread, t);
        EXPECT_EQ(owner.registerIndex, r);
      }
    EXPECT_TRUE(isSameDistribution(layout, layout));
  }
  expectBijection(layout);
}

// A register's coordinate map is the layout's with the register fixed, a
// function of the thread alone, and the memo gives the same (uniqued) map
// each time it is asked.
TEST_F(FragmentLayoutTest, RegisterCoordinateMaps) {
  LayoutAttr layout = getMmaAccumulatorLayout(&context, {64, 32}, 2, 2);
  ASSERT_TRUE(layout);
  for (int64_t reg : {0, 3, 5, 15})
    for (unsigned dim = 0; dim < 2; ++dim) {
      AffineMap map = getRegisterCoordinateMap(layout, reg, dim);
      ASSERT_EQ(map.getNumDims(), 1u);
      EXPECT_EQ(map, getRegisterCoordinateMap(layout, reg, dim));
      for (int64_t thread : {0, 5, 31, 32, 64, 127}) {
        SmallVector<int64_t> at = map.compose(ArrayRef<int64_t>{thread});
        EXPECT_EQ(at.front(), layout.getCoordinates(thread, reg)[dim]);
      }
    }
}
} // namespace
