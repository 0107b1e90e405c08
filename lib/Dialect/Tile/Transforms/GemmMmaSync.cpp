//===- GemmMmaSync.cpp - tile.gemm on mma.sync tensor cores ---------------===//
//
// Each warp computes its `M/Wm x N/Wn` sub-tile of C in m16n8 tiles. Per
// K step (16 for f16/bf16, 8 for tf32) it loads its A tiles (16xK-step) and
// B tiles (K-step x 8) into registers and issues one mma.sync per C tile:
//
//   f16/bf16: A by `ldmatrix.x4` (`.trans` when A is stored KxM), B by
//   `ldmatrix.x4.trans` for two n8 tiles at once when B is stored KxN (no
//   `.trans` when it is stored NxK), then `mma.sync.m16n8k16`.
//   tf32: ldmatrix moves 16-bit elements, so A and B are read with
//   ordinary shared loads in the m16n8k8 operand layouts, the K of a step
//   in the order of getTF32KOrder (no bank conflicts in swizzled tiles).
//
// A fragment A (attention's P) is already in registers: the accumulator
// layout of an M x K product holds the m16n8k16 A operand registers as
// they are (readARegisters), so it needs no load at all.
//
// An f16 accumulator (f16 inputs) uses the f16 form of m16n8k16: the same
// element layout, c0 c1 and c2 c3 packed in two f16x2 registers.
//
// The MMA is `nvvm.mma.sync` (nvgpu.mma.sync has no bf16). The
// accumulators stay SSA values across the K steps; they are read from and
// written back to C's registers once per tile.gemm. C's registers 4t..4t+3
// are tile t's c0..c3 (getMmaAccumulatorLayout).
//
// Fragment layouts of one lane l (g = l / 4, q = l % 4), PTX ISA 9.7.13:
//   m16n8k16 A: a0 a1 (g, 2q..), a2 a3 (g+8, 2q..), a4 a5 (g, 2q+8..),
//               a6 a7 (g+8, 2q+8..);  B: b0 b1 (k 2q.., n g), b2 b3 (k 2q+8..)
//   m16n8k8 tf32 A: a0 (g, q), a1 (g+8, q), a2 (g, q+4), a3 (g+8, q+4);
//               B: b0 (k q, n g), b1 (k q+4, n g)
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/FragmentLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Emits the per-warp operand loads and MMAs of one tile.gemm.
class MmaSyncEmitter {
public:
  MmaSyncEmitter(OpBuilder &builder, GemmOp gemm,
                 const FragmentRegisters *aRegisters, Value thread,
                 bool nativeNearestEven)
      : b(builder), loc(gemm.getLoc()), gemm(gemm), aRegisters(aRegisters),
        nativeNearestEven(nativeNearestEven) {
    ArrayRef<int64_t> warps = *gemm.getWarps();
    warpsN = warps[1];
    warpRows = gemm.getM() / warps[0];
    warpCols = gemm.getN() / warps[1];
    tilesM = warpRows / kMmaTileRows;
    tilesN = warpCols / kMmaTileCols;
    elementType = cast<MemRefType>(gemm.getA().getType()).getElementType();
    accType = gemm.getC().getType().getElementType();
    tf32 = gemm.isTF32();
    kStep = tf32 ? 8 : 16;
    lane = arith::RemUIOp::create(b, loc, thread, constant(tile::kWarpSize));
    Value warp =
        arith::DivUIOp::create(b, loc, thread, constant(tile::kWarpSize));
    rowBase = arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, warp, constant(warpsN)),
        constant(warpRows));
    colBase = arith::MulIOp::create(
        b, loc, arith::RemUIOp::create(b, loc, warp, constant(warpsN)),
        constant(warpCols));
  }

  LogicalResult emit(const FragmentRegisters &c) {
    if (gemm.getK() % kStep != 0)
      return gemm.emitOpError("mma_sync lowering needs K to be a multiple "
                              "of ")
             << kStep << ", got " << gemm.getK();
    // Accumulators in: c0..c3 of each m16n8 tile (f16: c0 c1 and c2 c3
    // packed in a vector<2xf16> each, as the instruction takes them).
    SmallVector<SmallVector<Value, 4>> acc;
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(accType));
    for (int64_t t = 0; t < tilesM * tilesN; ++t) {
      SmallVector<Value, 4> elements;
      for (int64_t e = 0; e < 4; ++e)
        elements.push_back(gemm.getClear()
                               ? zero
                               : memref::LoadOp::create(
                                     b, loc, c.buffer,
                                     c.indices(b, loc, 4 * t + e))
                                     .getResult());
      acc.push_back(packAccumulators(elements));
    }
    for (int64_t k0 = 0; k0 < gemm.getK(); k0 += kStep) {
      SmallVector<SmallVector<Value, 4>> aTiles, bTiles;
      for (int64_t tm = 0; tm < tilesM; ++tm)
        aTiles.push_back(aRegisters ? readARegisters(tm, k0)
                         : tf32     ? loadATF32(tm, k0)
                                    : loadA(tm, k0));
      if (tf32) {
        for (int64_t tn = 0; tn < tilesN; ++tn)
          bTiles.push_back(loadBTF32(tn, k0));
      } else {
        for (int64_t tn = 0; tn < tilesN; tn += 2)
          loadBPair(tn, k0, /*pair=*/tn + 1 < tilesN, bTiles);
      }
      for (int64_t tm = 0; tm < tilesM; ++tm)
        for (int64_t tn = 0; tn < tilesN; ++tn)
          acc[tm * tilesN + tn] =
              mma(aTiles[tm], bTiles[tn], acc[tm * tilesN + tn]);
    }
    // Accumulators out.
    for (int64_t t = 0; t < tilesM * tilesN; ++t) {
      SmallVector<Value, 4> elements = unpackAccumulators(acc[t]);
      for (int64_t e = 0; e < 4; ++e)
        memref::StoreOp::create(b, loc, elements[e], c.buffer,
                                c.indices(b, loc, 4 * t + e));
    }
    return success();
  }

private:
  Value constant(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }
  Value add(Value a, int64_t value) {
    return value == 0 ? a : arith::AddIOp::create(b, loc, a, constant(value));
  }
  Value add(Value a, Value c) { return arith::AddIOp::create(b, loc, a, c); }
  /// lane / d, lane % d, (lane / d) % m, ... as index values.
  Value laneDiv(int64_t d) {
    return arith::DivUIOp::create(b, loc, lane, constant(d));
  }
  Value laneRem(int64_t d) {
    return arith::RemUIOp::create(b, loc, lane, constant(d));
  }
  Value rem(Value v, int64_t d) {
    return arith::RemUIOp::create(b, loc, v, constant(d));
  }
  Value div(Value v, int64_t d) {
    return arith::DivUIOp::create(b, loc, v, constant(d));
  }
  Value mul(Value v, int64_t d) {
    return arith::MulIOp::create(b, loc, v, constant(d));
  }

  /// c0..c3 of a tile as the instruction's C registers: four f32, or two
  /// vector<2xf16> (c0 c1, c2 c3) for an f16 accumulator.
  SmallVector<Value, 4> packAccumulators(ArrayRef<Value> elements) {
    if (!accType.isF16())
      return SmallVector<Value, 4>(elements);
    auto pairType = VectorType::get({2}, accType);
    return {vector::FromElementsOp::create(b, loc, pairType,
                                           elements.take_front(2)),
            vector::FromElementsOp::create(b, loc, pairType,
                                           elements.drop_front(2))};
  }
  /// The inverse: c0..c3.
  SmallVector<Value, 4> unpackAccumulators(ArrayRef<Value> regs) {
    if (!accType.isF16())
      return SmallVector<Value, 4>(regs);
    SmallVector<Value, 4> elements;
    for (Value pair : regs)
      for (int64_t e = 0; e < 2; ++e)
        elements.push_back(
            vector::ExtractOp::create(b, loc, pair, ArrayRef<int64_t>{e}));
    return elements;
  }

  /// One `mma.sync` m16n8k{16,8}: A and B as their 32-bit registers, C as
  /// packAccumulators gives them; returns D the same way.
  SmallVector<Value, 4> mma(ArrayRef<Value> aRegs, ArrayRef<Value> bRegs,
                            ArrayRef<Value> c) {
    auto resultType = LLVM::LLVMStructType::getLiteral(
        b.getContext(), llvm::to_vector(ValueRange(c).getTypes()));
    NVVM::MMATypes type = tf32                   ? NVVM::MMATypes::tf32
                          : elementType.isBF16() ? NVVM::MMATypes::bf16
                                                 : NVVM::MMATypes::f16;
    Value result = NVVM::MmaOp::create(
        b, loc, resultType, aRegs, bRegs, c,
        ArrayRef<int64_t>{kMmaTileRows, kMmaTileCols, kStep},
        /*b1Op=*/std::nullopt, /*intOverflow=*/std::nullopt,
        std::array<NVVM::MMATypes, 2>{type, type},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    SmallVector<Value, 4> d;
    for (int64_t e = 0, count = c.size(); e < count; ++e)
      d.push_back(LLVM::ExtractValueOp::create(b, loc, result, e));
    return d;
  }

  /// A pair of 16-bit elements (`vector<2xT>`) as the 32-bit register
  /// nvvm.mma.sync takes: f16 pairs as they are, the others as i32.
  Value toMmaRegister(Value pair) {
    if (elementType.isF16())
      return pair;
    Value word = vector::BitCastOp::create(
        b, loc, VectorType::get({1}, b.getI32Type()), pair);
    return vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0});
  }

  /// The 32-bit registers of an ldmatrix result (`vector<Nx2xT>`), by
  /// toMmaRegister.
  SmallVector<Value, 4> splitRegisters(Value loaded, int64_t first,
                                       int64_t count) {
    SmallVector<Value, 4> regs;
    for (int64_t r = first; r < first + count; ++r) {
      regs.push_back(toMmaRegister(
          vector::ExtractOp::create(b, loc, loaded, ArrayRef<int64_t>{r})));
    }
    return regs;
  }

  /// The A tile (16 x 16) of tile row `tm` at K offset `k0`, ldmatrix.x4.
  /// Lane l addresses row l % 8 of matrix l / 8; matrices 0..3 are (rows
  /// 0-7, k 0-7), (rows 8-15, k 0-7), (rows 0-7, k 8-15), (rows 8-15, k 8-15).
  /// Stored KxM, a lane addresses a stored row (a k) and .trans delivers
  /// the same sub-blocks.
  SmallVector<Value, 4> loadA(int64_t tm, int64_t k0) {
    Value matrix = laneDiv(8);
    Value row = laneRem(8);
    Value mHalf = mul(rem(matrix, 2), 8);
    Value kHalf = mul(div(matrix, 2), 8);
    Value m0 = add(rowBase, tm * kMmaTileRows);
    // The constant offset (the tile row's, or k0) comes last: the loads of
    // every tile row and K step share one swizzle computation
    // (tile-apply-swizzles).
    SmallVector<Value> indices =
        gemm.getTransposeA()
            ? SmallVector<Value>{add(add(row, kHalf), k0), add(m0, mHalf)}
            : SmallVector<Value>{
                  add(add(add(rowBase, row), mHalf), tm * kMmaTileRows),
                  add(kHalf, k0)};
    auto type = VectorType::get({4, 2}, elementType);
    Value loaded = nvgpu::LdMatrixOp::create(b, loc, type, gemm.getA(), indices,
                                             /*transpose=*/gemm.getTransposeA(),
                                             /*numTiles=*/4);
    loaded.getDefiningOp()->setAttr(kShareSwizzleRowsAttr, b.getUnitAttr());
    return splitRegisters(loaded, 0, 4);
  }

  /// The A tile (16 x 16) of tile row `tm` at K offset `k0` from a fragment
  /// A in the accumulator layout of an M x K product (warps [W, 1]): its
  /// m16n8 tiles (tm, k0 / 8) and (tm, k0 / 8 + 1) hold, in c0 c1 / c2 c3,
  /// exactly a0 a1 / a2 a3 and a4 a5 / a6 a7 (the registers 4 t + e of tile
  /// t = tm * (K / 8) + tk, getMmaAccumulatorLayout).
  SmallVector<Value, 4> readARegisters(int64_t tm, int64_t k0) {
    int64_t tilesK = gemm.getK() / kMmaTileCols;
    SmallVector<Value, 4> regs;
    for (int64_t tk = k0 / kMmaTileCols; tk < k0 / kMmaTileCols + 2; ++tk) {
      for (int64_t pair = 0; pair < 2; ++pair) {
        int64_t first = 4 * (tm * tilesK + tk) + 2 * pair;
        SmallVector<Value, 2> halves;
        for (int64_t reg = first; reg < first + 2; ++reg)
          halves.push_back(memref::LoadOp::create(
              b, loc, aRegisters->buffer, aRegisters->indices(b, loc, reg)));
        regs.push_back(toMmaRegister(vector::FromElementsOp::create(
            b, loc, VectorType::get({2}, elementType), halves)));
      }
    }
    return regs;
  }

  /// The B tiles (16 x 8) of tile columns `tn` and `tn + 1` at K offset
  /// `k0`: ldmatrix.x4 holds (k 0-7, n 0-7), (k 8-15, n 0-7), (k 0-7,
  /// n 8-15), (k 8-15, n 8-15); .x2 the first two when `pair` is false.
  void loadBPair(int64_t tn, int64_t k0, bool pair,
                 SmallVectorImpl<SmallVector<Value, 4>> &tiles) {
    Value matrix = pair ? laneDiv(8) : rem(laneDiv(8), 2);
    Value row = laneRem(8);
    Value kHalf = mul(rem(matrix, 2), 8);
    Value nHalf = mul(div(matrix, 2), 8);
    Value n0 = add(colBase, tn * kMmaTileCols);
    SmallVector<Value> indices;
    bool transpose;
    if (gemm.getTransposeB()) {
      // Stored NxK: rows are n, ldmatrix without .trans.
      indices = {add(add(add(colBase, row), nHalf), tn * kMmaTileCols),
                 add(kHalf, k0)};
      transpose = false;
    } else {
      // Stored KxN: rows are k, .trans.
      indices = {add(add(row, kHalf), k0), add(n0, nHalf)};
      transpose = true;
    }
    int64_t count = pair ? 4 : 2;
    auto type = VectorType::get({count, 2}, elementType);
    Value loaded = nvgpu::LdMatrixOp::create(b, loc, type, gemm.getB(), indices,
                                             transpose, count);
    loaded.getDefiningOp()->setAttr(kShareSwizzleRowsAttr, b.getUnitAttr());
    for (int64_t t = 0; t < count / 2; ++t)
      tiles.push_back(splitRegisters(loaded, 2 * t, 2));
  }

  /// Element (i, k) of A (stored transposed or not), as a tf32 register.
  Value loadAElement(Value i, Value k) {
    SmallVector<Value> indices = gemm.getTransposeA()
                                     ? SmallVector<Value>{k, i}
                                     : SmallVector<Value>{i, k};
    return toTF32(memref::LoadOp::create(b, loc, gemm.getA(), indices));
  }
  /// Element (k, j) of B, as a tf32 register.
  Value loadBElement(Value k, Value j) {
    SmallVector<Value> indices = gemm.getTransposeB()
                                     ? SmallVector<Value>{j, k}
                                     : SmallVector<Value>{k, j};
    return toTF32(memref::LoadOp::create(b, loc, gemm.getB(), indices));
  }
  /// The tf32 register of an f32, rounded to nearest with ties to even as
  /// the scalar lowering does (the tensor cores would otherwise truncate):
  /// cvt.rn.tf32.f32 from sm_90 on, integer operations before.
  Value toTF32(Value value) {
    return convertToTF32Bits(b, loc, value, nativeNearestEven);
  }

  /// The tf32 A tile (16 x 8): a0 (g, k_q), a1 (g+8, k_q), a2 (g, k_{q+4}),
  /// a3 (g+8, k_{q+4}), in the K order of tf32KOrder.
  SmallVector<Value, 4> loadATF32(int64_t tm, int64_t k0) {
    Value g = add(add(rowBase, tm * kMmaTileRows), laneDiv(4));
    auto [k, kHigh] = tf32KOrder(k0);
    return {loadAElement(g, k), loadAElement(add(g, 8), k),
            loadAElement(g, kHigh), loadAElement(add(g, 8), kHigh)};
  }

  /// The tf32 B tile (8 x 8): b0 (k_q, n g), b1 (k_{q+4}, n g).
  SmallVector<Value, 4> loadBTF32(int64_t tn, int64_t k0) {
    Value n = add(add(colBase, tn * kMmaTileCols), laneDiv(4));
    auto [k, kHigh] = tf32KOrder(k0);
    return {loadBElement(k, n), loadBElement(kHigh, n)};
  }

  /// The K indices that slots q and q + 4 of the m16n8k8 step at `k0`
  /// read (getTF32KOrder: conflict-free loads from swizzled tiles).
  std::pair<Value, Value> tf32KOrder(int64_t k0) {
    // Slot q: 2q + p, slot q + 4: (2q + p) xor 1, p = (q xor q / 2) & 1.
    Value q = laneRem(4);
    Value parity = arith::AndIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, q, div(q, 2)), constant(1));
    Value low = add(mul(q, 2), parity);
    Value high = arith::XOrIOp::create(b, loc, low, constant(1));
    return {add(low, k0), add(high, k0)};
  }

  OpBuilder &b;
  Location loc;
  GemmOp gemm;
  /// A's registers when A is a fragment, else null.
  const FragmentRegisters *aRegisters;
  bool nativeNearestEven;
  int64_t warpsN, warpRows, warpCols, tilesM, tilesN, kStep;
  Type elementType, accType;
  bool tf32;
  Value lane, rowBase, colBase;
};

} // namespace

/// ldmatrix reads 16-byte rows: each row of the tile must start 16-byte
/// aligned (the buffer is, so its offset and row stride must be).
static LogicalResult checkLdMatrixRows(GemmOp gemm, Value tile,
                                       StringRef name) {
  auto type = cast<MemRefType>(tile.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  int64_t bytes = llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic) || strides.back() != 1 ||
      (strides.front() * bytes) % 16 != 0 || (offset * bytes) % 16 != 0)
    return gemm.emitOpError("mma_sync lowering reads operand ")
           << name << " with ldmatrix, whose rows must start 16-byte aligned: "
           << "give it unit column stride and a static row stride and offset "
              "that are multiples of 16 bytes (got "
           << type << "), or use lowering = #tile.gemm_lowering<scalar>";
  return success();
}

LogicalResult tile::lowerGemmToMmaSync(OpBuilder &builder, GemmOp gemm,
                                       const FragmentRegisters &c,
                                       const FragmentRegisters *a, Value thread,
                                       StringRef chip) {
  if (!gemm.getWarps())
    return gemm.emitOpError("has no warp grid: run tile-infer-layouts first");
  ArrayRef<int64_t> warps = *gemm.getWarps();
  if (a) {
    LayoutAttr expected = getMmaAccumulatorLayout(
        gemm.getContext(), {gemm.getM(), gemm.getK()}, warps[0], 1);
    if (warps[1] != 1 || a->layout != expected)
      return gemm.emitOpError("mma_sync lowering reads a fragment A "
                              "operand in the accumulator layout of an M x "
                              "K product with warps [W, 1]; got warps [")
             << warps[0] << ", " << warps[1] << "] and layout " << a->layout;
  }
  bool tf32 = gemm.isTF32();
  if (!tf32 && ((!a && failed(checkLdMatrixRows(gemm, gemm.getA(), "A"))) ||
                failed(checkLdMatrixRows(gemm, gemm.getB(), "B"))))
    return failure();
  return MmaSyncEmitter(builder, gemm, a, thread,
                        hasNearestEvenTF32Conversion(chip))
      .emit(c);
}
