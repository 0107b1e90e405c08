//===- LoopUtils.cpp - Loop helpers of the tile transforms ----------------===//

#include "tile/Dialect/Tile/Transforms/LoopUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

LogicalResult tile::unrollFully(scf::ForOp loop) {
  std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!lower || !upper || !step || *step <= 0 || loop.getNumResults() != 0)
    return failure();
  OpBuilder builder(loop);
  Block *body = loop.getBody();
  for (int64_t iv = *lower; iv < *upper; iv += *step) {
    IRMapping mapping;
    mapping.map(loop.getInductionVar(),
                arith::ConstantIndexOp::create(builder, loop.getLoc(), iv)
                    .getResult());
    for (Operation &op : body->without_terminator())
      builder.clone(op, mapping);
  }
  loop.erase();
  return success();
}

Value tile::buildTripCount(OpBuilder &builder, Location loc, Value lower,
                           Value upper, Value step) {
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  Value positive = arith::CmpIOp::create(builder, loc,
                                         arith::CmpIPredicate::sgt, step, zero);
  Value divisor = arith::SelectOp::create(builder, loc, positive, step, one);
  Value count = arith::MaxSIOp::create(
      builder, loc,
      arith::CeilDivSIOp::create(
          builder, loc, arith::SubIOp::create(builder, loc, upper, lower),
          divisor),
      zero);
  return arith::SelectOp::create(builder, loc, positive, count, zero);
}
