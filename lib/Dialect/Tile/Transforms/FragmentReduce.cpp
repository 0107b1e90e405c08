//===- FragmentReduce.cpp - tile.reduce of a fragment ---------------------===//
//
// The target of a reduction has the source's layout without the reduced
// coordinate: register r of a thread holds the result of the row its
// source register r is in (or, for a target whose layout came from a source
// of another width, the register mapRegisters finds for it: the same rows
// in the same threads). So each thread first combines, per target slot,
// the source registers of that row (in register order); then the threads
// holding parts of one row, which differ exactly in the layout's
// replicated thread-index bits, combine their partials: lane bits by an
// xor butterfly of shuffles, warp bits through shared memory (each thread
// stores its partials, and after a barrier every thread combines those of
// its row's warps in a fixed order, so that all hold the same bits).
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "tile/Dialect/Tile/Transforms/FragmentLowering.h"
#include "tile/Dialect/Tile/Transforms/ReductionBuilders.h"

using namespace mlir;
using namespace mlir::tile;

static Value constantIndex(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// Combines each thread's partials with those of the threads that differ
/// in the `warpBits` of the thread index, through a shared buffer of one
/// slot per (partial, thread).
static void combineAcrossWarps(OpBuilder &b, Location loc, ReduceOp reduce,
                               MutableArrayRef<Value> partials,
                               int64_t warpBits, int64_t threads,
                               Value thread) {
  auto kernel = reduce->getParentOfType<KernelOp>();
  Type element = partials.front().getType();
  Value scratch;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&kernel.getBody().front());
    scratch = AllocSharedOp::create(
        b, loc,
        MemRefType::get({static_cast<int64_t>(partials.size()) * threads},
                        element, MemRefLayoutAttrInterface(),
                        gpu::AddressSpaceAttr::get(
                            b.getContext(), gpu::AddressSpace::Workgroup)),
        IntegerAttr(), IntegerAttr());
  }
  // Slot of partial g of thread t: g * threads + t (a warp's stores are
  // consecutive words).
  for (auto [g, partial] : llvm::enumerate(partials)) {
    Value slot = arith::AddIOp::create(
        b, loc, constantIndex(b, loc, g * threads), thread);
    memref::StoreOp::create(b, loc, partial, scratch, slot);
  }
  createCompilerBarrier(b, loc, "tile-lower-fragments");
  for (auto [g, partial] : llvm::enumerate(partials))
    partial = buildCombineWarpPartials(b, loc, reduce.getKind(), scratch,
                                       g * threads, thread, warpBits);
  // In a loop the scratch is written again by the next iteration: every
  // thread must have read it first.
  if (reduce->getParentOfType<LoopLikeOpInterface>())
    createCompilerBarrier(b, loc, "tile-lower-fragments");
}

LogicalResult tile::lowerFragmentReduce(OpBuilder &b, ReduceOp reduce,
                                        const FragmentRegisters &source,
                                        const FragmentRegisters &target,
                                        Value thread) {
  Location loc = reduce.getLoc();
  int64_t dim = reduce.getDim();
  LayoutAttr reduced = getReducedLayout(source.layout, dim);
  std::optional<SmallVector<int64_t>> targetRegisterOf =
      mapRegisters(reduced, target.layout);
  if (!targetRegisterOf || !mapRegisters(target.layout, reduced))
    return reduce.emitOpError("the target's layout is not the source's "
                              "without dimension ")
           << dim << " (tile-infer-layouts gives it that): " << target.layout
           << " for a source of " << source.layout;
  std::optional<int64_t> replicas = getReplicatedThreadBits(target.layout);
  if (!replicas)
    return reduce.emitOpError("the threads that share a row of the source's "
                              "layout are not whole bits of the thread "
                              "index, which the shuffle and shared-memory "
                              "steps combine: ")
           << source.layout;
  int64_t threads = source.layout.getThreads();
  int64_t laneBits = *replicas & (kWarpSize - 1);
  int64_t warpBits = *replicas & ~(kWarpSize - 1);
  int64_t width = std::min(kWarpSize, threads);
  if (laneBits && ((threads % kWarpSize != 0 && threads > kWarpSize) ||
                   !llvm::isPowerOf2_64(width)))
    return reduce.emitOpError("combines lanes with warp shuffles, which need "
                              "whole warps (or a power-of-two block below "
                              "32 threads), but the block has ")
           << threads << " threads";

  // 1. Each thread's own registers, per target slot, in register order.
  const RegisterSlots &slots = target.slots;
  int64_t numSlots =
      slots.slotOf.empty() ? target.layout.getRegisters() : slots.size();
  SmallVector<Value> partials(numSlots);
  for (int64_t reg = 0; reg < source.layout.getRegisters(); ++reg) {
    int64_t targetReg = (*targetRegisterOf)[reg];
    int64_t slot = slots.slotOf.empty() ? targetReg : slots.slotOf[targetReg];
    Value value = memref::LoadOp::create(b, loc, source.buffer,
                                         source.indices(b, loc, reg));
    partials[slot] = partials[slot]
                         ? buildReduceCombine(b, loc, reduce.getKind(),
                                              partials[slot], value)
                         : value;
  }
  // 2. Lanes that share a row: an xor butterfly.
  for (int64_t offset = width / 2; offset >= 1; offset /= 2)
    if (laneBits & offset)
      for (Value &partial : partials)
        partial =
            buildReduceCombine(b, loc, reduce.getKind(), partial,
                               buildShuffleXor(b, loc, partial, offset, width));
  // 3. Warps that share a row: through shared memory.
  if (warpBits)
    combineAcrossWarps(b, loc, reduce, partials, warpBits, threads, thread);
  // 4. Into the target, replacing or combining with what it holds.
  for (auto [slot, partial] : llvm::enumerate(partials)) {
    int64_t reg = slots.slotOf.empty() ? slot : slots.representative[slot];
    SmallVector<Value> indices = target.indices(b, loc, reg);
    Value result = partial;
    if (!reduce.getClear())
      result = buildReduceCombine(
          b, loc, reduce.getKind(),
          memref::LoadOp::create(b, loc, target.buffer, indices), partial);
    memref::StoreOp::create(b, loc, result, target.buffer, indices);
  }
  return success();
}
