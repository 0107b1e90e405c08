//===- GemmScalar.cpp - tile.gemm as per-thread FMAs ----------------------===//
//
// The lowering every target can run: each thread, for each register of C
// it holds, accumulates the dot product of the element's row of A and
// column of B, read from shared memory. It uses C's real layout, so on the
// CPU target it checks the layout machinery (inference, copies, parallel
// loops over fragments), not only the arithmetic. f32 inputs are rounded to
// tf32 (10 mantissa bits), as the tensor cores do.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/FragmentLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;

Value tile::roundToTF32(OpBuilder &builder, Location loc, Value value) {
  Type i32 = builder.getI32Type();
  Value bits = arith::BitcastOp::create(builder, loc, i32, value);
  Value half = arith::ConstantIntOp::create(builder, loc, i32, 0x1000);
  Value mask = arith::ConstantIntOp::create(builder, loc, i32,
                                            static_cast<int32_t>(0xffffe000));
  Value rounded = arith::AndIOp::create(
      builder, loc, arith::AddIOp::create(builder, loc, bits, half), mask);
  // A NaN stays a NaN (the carry could make it an infinity or a zero).
  Value isNaN = arith::CmpFOp::create(builder, loc, arith::CmpFPredicate::UNO,
                                      value, value);
  return arith::SelectOp::create(
      builder, loc, isNaN, value,
      arith::BitcastOp::create(builder, loc, value.getType(), rounded));
}

LogicalResult tile::lowerGemmToScalar(OpBuilder &builder, GemmOp gemm,
                                      const FragmentRegisters &c,
                                      Value thread) {
  Location loc = gemm.getLoc();
  Type accumulator = gemm.getC().getType().getElementType();
  bool tf32 = cast<MemRefType>(gemm.getA().getType()).getElementType().isF32();
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  Value k = arith::ConstantIndexOp::create(builder, loc, gemm.getK());
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
      Value a = operand(gemm.getA(), ij[0], gemm.getTransposeA());
      // B is KxN: element (k, j); transposed it is NxK: (j, k).
      Value b = operand(gemm.getB(), ij[1], !gemm.getTransposeB());
      Value sum =
          math::FmaOp::create(builder, loc, a, b, loop.getRegionIterArg(0));
      scf::YieldOp::create(builder, loc, sum);
    }
    memref::StoreOp::create(builder, loc, loop.getResult(0), c.buffer,
                            cIndices);
  }
  return success();
}
