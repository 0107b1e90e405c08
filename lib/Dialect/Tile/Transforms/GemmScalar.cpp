//===- GemmScalar.cpp - tile.gemm as per-thread FMAs ----------------------===//
//
// The lowering every target can run: each thread, for each register of C
// it holds, accumulates the dot product of the element's row of A and
// column of B, read from shared memory. It uses C's real layout, so on the
// CPU target it checks the layout machinery (inference, copies, parallel
// loops over fragments), not only the arithmetic. f32 inputs are rounded to
// tf32 (10 mantissa bits), as the tensor cores do. A fragment A operand is
// read across the lanes of a quad with shuffles (readAElement), each row
// the thread needs once per gemm. On the CPU target, a gemm a pipeline
// leaves in flight keeps wgmma's fence / commit / wait structure, which the
// CPU runtime's race check models.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/FragmentLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;

Value tile::roundToTF32(OpBuilder &builder, Location loc, Value value) {
  // Element-wise on a vector of f32 as on one f32.
  Type i32 = builder.getI32Type();
  Type bitsType = i32;
  if (auto vector = dyn_cast<VectorType>(value.getType()))
    bitsType = vector.clone(i32);
  auto splat = [&](int32_t bits) -> Value {
    TypedAttr attribute = builder.getIntegerAttr(i32, bits);
    if (auto vector = dyn_cast<VectorType>(bitsType))
      attribute = SplatElementsAttr::get(vector, attribute);
    return arith::ConstantOp::create(builder, loc, bitsType, attribute);
  };
  Value bits = arith::BitcastOp::create(builder, loc, bitsType, value);
  // bits + 0xfff + (bit 13 of bits): a dropped part above half carries
  // into the kept part, exactly half only when the kept part is odd.
  Value lowestKept = arith::AndIOp::create(
      builder, loc, arith::ShRUIOp::create(builder, loc, bits, splat(13)),
      splat(1));
  Value rounded = arith::AndIOp::create(
      builder, loc,
      arith::AddIOp::create(
          builder, loc, arith::AddIOp::create(builder, loc, bits, splat(0xfff)),
          lowestKept),
      splat(static_cast<int32_t>(0xffffe000)));
  // A NaN stays a NaN (the carry could make it an infinity or a zero).
  Value isNaN = arith::CmpFOp::create(builder, loc, arith::CmpFPredicate::UNO,
                                      value, value);
  return arith::SelectOp::create(
      builder, loc, isNaN, value,
      arith::BitcastOp::create(builder, loc, value.getType(), rounded));
}

Value tile::convertToTF32Bits(OpBuilder &builder, Location loc, Value value,
                              bool nativeNearestEven) {
  if (nativeNearestEven)
    return NVVM::ConvertFloatToTF32Op::create(
        builder, loc, builder.getI32Type(), value, NVVM::FPRoundingMode::RN,
        NVVM::SaturationMode::NONE, /*relu=*/false);
  return arith::BitcastOp::create(builder, loc, builder.getI32Type(),
                                  roundToTF32(builder, loc, value));
}

bool tile::hasNearestEvenTF32Conversion(StringRef chip) {
  unsigned version = 0;
  return chip.consume_front("sm_") &&
         !chip.take_while(llvm::isDigit).getAsInteger(10, version) &&
         version >= 90;
}

/// Element (row, k) of a fragment A operand, read by the thread holding C's
/// element in `row`: A is in the accumulator layout of an M x K product
/// with warps [W, 1] (getMmaAccumulatorLayout), whose row r is held by the
/// 4 lanes 4 (r mod 8) + q of its warp, element k by q = (k mod 8) / 2 in
/// register 4 (tm * K/8 + k/8) + 2 ((r mod 16) / 8) + k mod 2. The reading
/// thread holds the same row, so it asks that register of lane 4 (lane / 4)
/// + q: every lane of the quad reads the same register, and a shuffle
/// fetches it (an f32 on the way: 16-bit values do not shuffle).
static Value readAElement(OpBuilder &builder, Location loc, GemmOp gemm,
                          const FragmentRegisters &a, Value thread, Value row,
                          Value k) {
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, value);
  };
  auto div = [&](Value v, int64_t d) -> Value {
    return arith::DivUIOp::create(builder, loc, v, constant(d));
  };
  auto rem = [&](Value v, int64_t d) -> Value {
    return arith::RemUIOp::create(builder, loc, v, constant(d));
  };
  auto mul = [&](Value v, int64_t d) -> Value {
    return arith::MulIOp::create(builder, loc, v, constant(d));
  };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(builder, loc, x, y);
  };
  int64_t warpRows = gemm.getM() / (*gemm.getWarps())[0];
  int64_t tilesK = gemm.getK() / kMmaTileCols;
  Value tm = div(rem(row, warpRows), kMmaTileRows);
  Value reg = add(add(mul(add(mul(tm, tilesK), div(k, kMmaTileCols)), 4),
                      mul(div(rem(row, kMmaTileRows), 8), 2)),
                  rem(k, 2));
  // The buffer is [registers / run, run].
  Value value = memref::LoadOp::create(builder, loc, a.buffer,
                                       ValueRange{div(reg, a.run),
                                                  rem(reg, a.run)});
  Value wide = arith::ExtFOp::create(builder, loc, builder.getF32Type(), value);
  Value lane = rem(thread, kWarpSize);
  Value source = add(mul(div(lane, 4), 4), div(rem(k, 8), 2));
  Type i32 = builder.getI32Type();
  Value sourceLane = arith::IndexCastOp::create(builder, loc, i32, source);
  Value width = arith::ConstantIntOp::create(builder, loc, i32, kWarpSize);
  return gpu::ShuffleOp::create(builder, loc, wide, sourceLane, width,
                                gpu::ShuffleMode::IDX)
      .getShuffleResult();
}

LogicalResult tile::lowerGemmToScalar(OpBuilder &builder, GemmOp gemm,
                                      const FragmentRegisters &c,
                                      const FragmentRegisters *a,
                                      Value thread, bool modelInFlight) {
  Location loc = gemm.getLoc();
  if (a) {
    ArrayRef<int64_t> warps = *gemm.getWarps();
    if (warps[1] != 1 ||
        a->layout != getMmaAccumulatorLayout(gemm.getContext(),
                                             {gemm.getM(), gemm.getK()},
                                             warps[0], 1))
      return gemm.emitOpError("reads a fragment A operand in the "
                              "accumulator layout of an M x K product with "
                              "warps [W, 1] only; got layout ")
             << a->layout;
  }
  Type accumulator = gemm.getC().getType().getElementType();
  bool tf32 = gemm.isTF32();
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  Value k = arith::ConstantIndexOp::create(builder, loc, gemm.getK());
  // A fragment A operand: the rows of A this thread needs are the rows of C
  // it holds, two per m16 tile of its warp (registers c0 c1 the upper, c2
  // c3 the lower). Each row is fetched once, with K shuffles, into a local
  // buffer that every register of C in that row reads, rather than once per
  // register of C.
  Value aRows;
  int64_t tilesN = gemm.getN() / kMmaTileCols;
  if (a) {
    ArrayRef<int64_t> warps = *gemm.getWarps();
    if (c.layout != getMmaAccumulatorLayout(gemm.getContext(),
                                            {gemm.getM(), gemm.getN()},
                                            warps[0], 1))
      return gemm.emitOpError("reads a fragment A operand into an "
                              "accumulator whose layout is not the mma "
                              "layout with warps [W, 1]: ")
             << c.layout;
    int64_t rowSlots = 2 * (gemm.getM() / warps[0] / kMmaTileRows);
    {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(
          &gemm->getParentOfType<KernelOp>().getBody().front());
      aRows = AllocLocalOp::create(
          builder, loc, MemRefType::get({rowSlots, gemm.getK()}, accumulator));
    }
    for (int64_t slot = 0; slot < rowSlots; ++slot) {
      // The first register of C in the slot's row: tile slot / 2 of the
      // warp's first column, c0 or c2.
      int64_t reg = 4 * (slot / 2) * tilesN + 2 * (slot % 2);
      Value row = c.coordinates(builder, loc, thread, reg)[0];
      auto loop = scf::ForOp::create(builder, loc, zero, k, one);
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(loop.getBody());
      Value kk = loop.getInductionVar();
      Value value = readAElement(builder, loc, gemm, *a, thread, row, kk);
      if (value.getType() != accumulator)
        value = arith::TruncFOp::create(builder, loc, accumulator, value);
      memref::StoreOp::create(
          builder, loc, value, aRows,
          ValueRange{arith::ConstantIndexOp::create(builder, loc, slot), kk});
    }
  }
  if (modelInFlight)
    NVVM::WgmmaFenceAlignedOp::create(builder, loc);
  for (int64_t reg = 0; reg < c.layout.getRegisters(); ++reg) {
    SmallVector<Value> ij = c.coordinates(builder, loc, thread, reg);
    SmallVector<Value> cIndices = c.indices(builder, loc, reg);
    Value initial =
        gemm.getClear()
            ? arith::ConstantOp::create(builder, loc,
                                        builder.getZeroAttr(accumulator))
                  .getResult()
            : memref::LoadOp::create(builder, loc, c.buffer, cIndices)
                  .getResult();
    auto loop = scf::ForOp::create(builder, loc, zero, k, one, {initial});
    {
      OpBuilder::InsertionGuard bodyGuard(builder);
      builder.setInsertionPointToStart(loop.getBody());
      Value kk = loop.getInductionVar();
      auto operand = [&](Value tile, Value outer, bool transposed) -> Value {
        SmallVector<Value> indices = transposed ? SmallVector<Value>{kk, outer}
                                                : SmallVector<Value>{outer, kk};
        Value value = memref::LoadOp::create(builder, loc, tile, indices);
        if (tf32)
          value = roundToTF32(builder, loc, value);
        if (value.getType() != accumulator)
          value = arith::ExtFOp::create(builder, loc, accumulator, value);
        return value;
      };
      Value aValue;
      if (a) {
        int64_t slot = 2 * ((reg / 4) / tilesN) + (reg % 4) / 2;
        aValue = memref::LoadOp::create(
            builder, loc, aRows,
            ValueRange{arith::ConstantIndexOp::create(builder, loc, slot), kk});
      } else {
        aValue = operand(gemm.getA(), ij[0], gemm.getTransposeA());
      }
      // B is KxN: element (k, j); transposed it is NxK: (j, k).
      Value b = operand(gemm.getB(), ij[1], !gemm.getTransposeB());
      Value sum = math::FmaOp::create(builder, loc, aValue, b,
                                      loop.getRegionIterArg(0));
      scf::YieldOp::create(builder, loc, sum);
    }
    memref::StoreOp::create(builder, loc, loop.getResult(0), c.buffer,
                            cIndices);
  }
  if (modelInFlight) {
    NVVM::WgmmaGroupSyncAlignedOp::create(builder, loc);
    NVVM::WgmmaWaitGroupSyncOp::create(builder, loc, 1);
    if (Operation *loop = claimWaitAfterLoop(gemm)) {
      OpBuilder after(loop);
      after.setInsertionPointAfter(loop);
      NVVM::WgmmaWaitGroupSyncOp::create(after, loc, 0);
    }
  }
  return success();
}
