//===- IndexAnalysisTest.cpp - Tests of index ranges and divisors ---------===//

#include "tile/Dialect/Tile/Analysis/IndexAnalysis.h"

#include "TestUtils.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

using IndexAnalysisTest = test::KernelTest;

TEST_F(IndexAnalysisTest, RangesFromGridBlockAndLoops) {
  KernelOp kernel = parseKernel(R"mlir(
    tile.kernel @k(%n: index) grid [16, 4] threads [128] {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c64 = arith.constant 64 : index
      %bx = tile.block_id x
      %tx = tile.thread_id x
      %row = arith.muli %bx, %c64 {tag = "row"} : index
      %lin = affine.apply affine_map<(b, t) -> (b * 128 + t)>(%bx, %tx) {tag = "lin"}
      %q = arith.divui %tx, %c8 {tag = "q"} : index
      %r = arith.remui %tx, %c8 {tag = "r"} : index
      %d = arith.addi %n, %c1 {tag = "dynamic"} : index
      scf.for %k = %c0 to %c8 step %c1 {
        %s = arith.addi %row, %k {tag = "in_loop"} : index
      }
    }
  )mlir");
  ASSERT_TRUE(kernel);
  auto range = [&](StringRef tag) {
    return getIndexRange(tagged(kernel, tag)->getResult(0));
  };
  ASSERT_TRUE(range("row"));
  EXPECT_EQ(range("row")->lower, 0);
  EXPECT_EQ(range("row")->upper, 15 * 64);
  ASSERT_TRUE(range("lin"));
  EXPECT_EQ(range("lin")->upper, 15 * 128 + 127);
  EXPECT_EQ(range("q")->upper, 15);
  EXPECT_EQ(range("r")->upper, 7);
  EXPECT_FALSE(range("dynamic"));
  ASSERT_TRUE(range("in_loop"));
  EXPECT_EQ(range("in_loop")->upper, 15 * 64 + 7);
}

TEST_F(IndexAnalysisTest, Divisors) {
  KernelOp kernel = parseKernel(R"mlir(
    tile.kernel @k(%n: index) grid [16] threads [128] {
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c24 = arith.constant 24 : index
      %bx = tile.block_id x
      %a = arith.muli %bx, %c24 {tag = "times24"} : index
      %b = arith.addi %a, %c8 {tag = "plus8"} : index
      %c = arith.addi %a, %c1 {tag = "plus1"} : index
      %d = affine.apply affine_map<(x) -> (x * 16 + 32)>(%bx) {tag = "affine"}
    }
  )mlir");
  ASSERT_TRUE(kernel);
  auto divisor = [&](StringRef tag) {
    return getKnownDivisor(tagged(kernel, tag)->getResult(0));
  };
  EXPECT_EQ(divisor("times24"), 8);
  EXPECT_EQ(divisor("plus8"), 8);
  EXPECT_EQ(divisor("plus1"), 1);
  EXPECT_EQ(divisor("affine"), 16);
}

TEST_F(IndexAnalysisTest, NoRangeWhereValuesMayWrap) {
  KernelOp kernel = parseKernel(R"mlir(
    tile.kernel @k() grid [2] threads [32] {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %big = arith.constant 4611686018427387904 : index
      %bx = tile.block_id x
      %m = arith.subi %bx, %c1 {tag = "may_be_negative"} : index
      %o = arith.maxui %m, %c0 {tag = "maxui_of_negative"} : index
      %w = arith.index_cast %big {tag = "narrowing"} : index to i32
      %p = arith.muli %big, %big {tag = "overflow"} : index
      %u = arith.maxui %bx, %c1 {tag = "maxui_non_negative"} : index
    }
  )mlir");
  ASSERT_TRUE(kernel);
  auto range = [&](StringRef tag) {
    return getIndexRange(tagged(kernel, tag)->getResult(0));
  };
  ASSERT_TRUE(range("may_be_negative"));
  EXPECT_EQ(range("may_be_negative")->lower, -1);
  // -1 is the largest unsigned value: maxui of it is not in [0, 0].
  EXPECT_FALSE(range("maxui_of_negative"));
  EXPECT_FALSE(range("narrowing"));
  EXPECT_FALSE(range("overflow"));
  ASSERT_TRUE(range("maxui_non_negative"));
  EXPECT_EQ(range("maxui_non_negative")->upper, 1);
}

/// The range of `expr` over d0 in [0, threads), by evaluating it at each.
static IndexRange enumerateRange(AffineExpr expr, int64_t threads) {
  IndexRange range{INT64_MAX, INT64_MIN};
  for (int64_t t = 0; t < threads; ++t) {
    AffineExpr value =
        expr.replaceDims({getAffineConstantExpr(t, expr.getContext())});
    int64_t v = cast<AffineConstantExpr>(value).getValue();
    range.lower = std::min(range.lower, v);
    range.upper = std::max(range.upper, v);
  }
  return range;
}

// Thread coordinates of fragment layouts, as simplification spells them
// (`d mod k` as `d - (d floordiv k) * k`): exact over [0, 2^n), and a
// superset of the values elsewhere.
TEST_F(IndexAnalysisTest, ThreadCoordinatesOfPowerOfTwoLayouts) {
  struct Case {
    const char *map;
    bool exact; // over [0, 2^n)
  };
  const Case cases[] = {
      // The m16n8 accumulator's column of register 28 (mma_sync.mlir's
      // epilogue): 2 (t mod 4) + 64 ((t floordiv 32) mod 2) + 56.
      {"affine_map<(d0) -> (d0 * 2 + (d0 floordiv 32) * 64 - ((d0 floordiv "
       "32) floordiv 2) * 128 - (d0 floordiv 4) * 8 + 56)>",
       true},
      {"affine_map<(d0) -> ((d0 floordiv 64) * 64 + (d0 mod 32) floordiv 4 "
       "+ 8)>",
       true},
      {"affine_map<(d0) -> (d0 - (d0 floordiv 8) * 8 - 3)>", true},
      {"affine_map<(d0) -> ((d0 mod 16) floordiv 4 * 3 - d0 mod 4)>", true},
      // Not bit fields (a divisor of 3, a ceildiv): intervals alone.
      {"affine_map<(d0) -> (d0 - (d0 floordiv 3) * 3)>", false},
      {"affine_map<(d0) -> (d0 ceildiv 8)>", false},
  };
  for (auto [text, exactOverPowersOfTwo] : cases) {
    auto map = cast<AffineMapAttr>(parseAttribute(text, &context)).getValue();
    AffineExpr expr = map.getResult(0);
    for (int64_t threads : {128, 96, 1024}) {
      SCOPED_TRACE(std::string(text) + " over " + std::to_string(threads));
      std::optional<IndexRange> range =
          getAffineExprRange(expr, {IndexRange{0, threads - 1}}, {});
      ASSERT_TRUE(range);
      IndexRange exact = enumerateRange(expr, threads);
      EXPECT_LE(range->lower, exact.lower);
      EXPECT_GE(range->upper, exact.upper);
      if (exactOverPowersOfTwo && llvm::isPowerOf2_64(threads)) {
        EXPECT_EQ(range->lower, exact.lower);
        EXPECT_EQ(range->upper, exact.upper);
      }
    }
  }
  // The epilogue's column and a two-element run after it fit 128 columns.
  auto column = cast<AffineMapAttr>(parseAttribute(cases[0].map, &context));
  std::optional<IndexRange> range = getAffineExprRange(
      column.getValue().getResult(0), {IndexRange{0, 127}}, {});
  ASSERT_TRUE(range);
  EXPECT_EQ(range->lower, 56);
  EXPECT_EQ(range->upper, 126);
  // An operand not starting at zero: intervals alone, still sound.
  range = getAffineExprRange(column.getValue().getResult(0),
                             {IndexRange{32, 63}}, {});
  ASSERT_TRUE(range);
  EXPECT_LE(range->lower, 56 + 64);
  EXPECT_GE(range->upper, 62 + 64);
}

} // namespace
