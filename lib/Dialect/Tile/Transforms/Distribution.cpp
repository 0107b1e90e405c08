//===- Distribution.cpp - Spread work over a block's threads --------------===//

#include "tile/Dialect/Tile/Transforms/Distribution.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;

Value tile::buildLinearThreadId(OpBuilder &builder, Location loc,
                                KernelOp kernel) {
  ArrayRef<int64_t> threads = kernel.getThreads();
  Value linear;
  for (int index = static_cast<int>(threads.size()) - 1; index >= 0; --index) {
    Value id = ThreadIdOp::create(builder, loc, static_cast<Dim>(index));
    if (!linear) {
      linear = id;
      continue;
    }
    Value extent = arith::ConstantIndexOp::create(builder, loc, threads[index]);
    linear = arith::AddIOp::create(
        builder, loc, id, arith::MulIOp::create(builder, loc, linear, extent));
  }
  return linear;
}

SmallVector<Value> tile::buildDelinearize(OpBuilder &builder, Location loc,
                                          Value linear,
                                          ArrayRef<int64_t> extents) {
  SmallVector<Value> indices(extents.size());
  int64_t stride = 1;
  for (int d = static_cast<int>(extents.size()) - 1; d >= 0; --d) {
    Value index = linear;
    if (stride != 1)
      index = arith::DivUIOp::create(
          builder, loc, index,
          arith::ConstantIndexOp::create(builder, loc, stride));
    if (d != 0)
      index = arith::RemUIOp::create(
          builder, loc, index,
          arith::ConstantIndexOp::create(builder, loc, extents[d]));
    indices[d] = index;
    stride *= extents[d];
  }
  return indices;
}

/// Opens `scf.if (index < count)` and moves `builder` into it.
static void guardIndex(OpBuilder &builder, Location loc, Value index,
                       int64_t count) {
  Value inRange = arith::CmpIOp::create(
      builder, loc, arith::CmpIPredicate::ult, index,
      arith::ConstantIndexOp::create(builder, loc, count));
  auto guard = scf::IfOp::create(builder, loc, inRange, /*withElse=*/false);
  builder.setInsertionPoint(guard.thenBlock()->getTerminator());
}

Value tile::buildSerialLoop(OpBuilder &builder, Location loc, int64_t count) {
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  Value upper = arith::ConstantIndexOp::create(builder, loc, count);
  auto loop = scf::ForOp::create(builder, loc, zero, upper, one);
  builder.setInsertionPoint(loop.getBody()->getTerminator());
  return loop.getInductionVar();
}

ThreadGroup tile::getThreadGroup(Operation *op) {
  auto [first, count] = getRoleThreads(op);
  return {first, count};
}

Value tile::buildDistributedLoop(OpBuilder &builder, Location loc,
                                 Operation *op, int64_t count) {
  ThreadGroup group = getThreadGroup(op);
  int64_t numThreads = group.count;
  Value thread =
      buildLinearThreadId(builder, loc, op->getParentOfType<KernelOp>());
  if (group.first != 0)
    thread = arith::SubIOp::create(
        builder, loc, thread,
        arith::ConstantIndexOp::create(builder, loc, group.first));
  if (count <= numThreads) {
    if (count < numThreads)
      guardIndex(builder, loc, thread, count);
    return thread;
  }
  Value trip = buildSerialLoop(builder, loc, llvm::divideCeil(count, numThreads));
  Value index = arith::AddIOp::create(
      builder, loc,
      arith::MulIOp::create(
          builder, loc, trip,
          arith::ConstantIndexOp::create(builder, loc, numThreads)),
      thread);
  if (count % numThreads != 0)
    guardIndex(builder, loc, index, count);
  return index;
}
