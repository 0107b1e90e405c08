//===- LoopUtils.cpp - Loop helpers of the tile transforms ----------------===//

#include "tile/Dialect/Tile/Transforms/LoopUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "tile/Dialect/Tile/IR/Limits.h"
#include "tile/Dialect/Tile/IR/TileOps.h"

using namespace mlir;

LogicalResult tile::checkUnrolledSize(Operation *loop, int64_t copies,
                                      Block &body) {
  // Each copy also gets a constant for the induction variable.
  int64_t bodyOps = 1;
  for (Operation &op : body.without_terminator())
    op.walk([&](Operation *) { ++bodyOps; });
  if (copies <= 0 || bodyOps <= kMaxUnrolledOps / copies)
    return success();
  return loop->emitError("unrolling ")
         << copies << " copies of a body of " << bodyOps
         << " operations would create more than the " << kMaxUnrolledOps
         << " operations allowed for one unrolled loop (docs/TileDialect.md, "
            "\"Limits\"); use a serial loop or a smaller body";
}

LogicalResult tile::unrollFully(scf::ForOp loop) {
  std::optional<int64_t> trips = getConstantTripCount(
      loop.getLowerBound(), loop.getUpperBound(), loop.getStep());
  if (!trips)
    return loop.emitError("cannot be unrolled: it needs constant bounds and "
                          "a positive step");
  if (failed(checkUnrolledSize(loop, *trips, *loop.getBody())))
    return failure();
  int64_t lower = *getConstantIntValue(loop.getLowerBound());
  int64_t step = *getConstantIntValue(loop.getStep());
  OpBuilder builder(loop);
  Block *body = loop.getBody();
  // The values carried into the next copy of the body.
  SmallVector<Value> carried(loop.getInitArgs());
  for (int64_t i = 0; i < *trips; ++i) {
    int64_t iv = lower + i * step;
    IRMapping mapping;
    mapping.map(loop.getInductionVar(),
                arith::ConstantIndexOp::create(builder, loop.getLoc(), iv)
                    .getResult());
    mapping.map(loop.getRegionIterArgs(), carried);
    for (Operation &op : body->without_terminator())
      builder.clone(op, mapping);
    for (auto [value, yielded] : llvm::zip(carried, loop.getYieldedValues()))
      value = mapping.lookupOrDefault(yielded);
  }
  loop.replaceAllUsesWith(carried);
  loop.erase();
  return success();
}

Value tile::buildTripCount(OpBuilder &builder, Location loc, Value lower,
                           Value upper, Value step) {
  // Step 1 and upper >= lower provably: the plain difference, which later
  // analyses (tile-peel-guarded-gemms) can relate to the bounds.
  std::optional<int64_t> constantStep = getConstantIntValue(step);
  if (constantStep && *constantStep == 1 &&
      ValueBoundsConstraintSet::compare(
          ValueBoundsConstraintSet::Variable(upper),
          ValueBoundsConstraintSet::GE,
          ValueBoundsConstraintSet::Variable(lower)))
    return arith::SubIOp::create(builder, loc, upper, lower);
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
