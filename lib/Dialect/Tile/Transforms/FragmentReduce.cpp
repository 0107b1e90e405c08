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
// Consecutive reductions (layer norm's sum and sum of squares) share that
// trip: their partials go through one buffer behind one barrier, and their
// shuffles interleave.
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
/// slot per (partial, thread): one barrier for all of them. `kinds[g]`
/// combines partial g; `at` is the op whose kernel holds the buffer and
/// whose loops decide whether a second barrier protects it.
static void combineAcrossWarps(OpBuilder &b, Location loc, Operation *at,
                               ArrayRef<ReduceKind> kinds,
                               MutableArrayRef<Value> partials,
                               int64_t warpBits, int64_t threads,
                               Value thread) {
  auto kernel = at->getParentOfType<KernelOp>();
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
    partial = buildCombineWarpPartials(b, loc, kinds[g], scratch, g * threads,
                                       thread, warpBits);
  // In a loop the scratch is written again by the next iteration: every
  // thread must have read it first.
  if (at->getParentOfType<LoopLikeOpInterface>())
    createCompilerBarrier(b, loc, "tile-lower-fragments");
}

namespace {
/// One reduction on its way: its partials (one per target slot) and how
/// its threads meet.
struct PendingReduction {
  FragmentReduction reduction;
  SmallVector<int64_t> targetRegisterOf;
  SmallVector<Value> partials;
  int64_t warpBits = 0;
  int64_t threads = 0;
};
} // namespace

/// Checks `reduction` and computes each thread's partials, combined across
/// the lanes that share a row (steps 1 and 2).
static FailureOr<PendingReduction>
reduceWithinWarps(OpBuilder &b, const FragmentReduction &reduction) {
  ReduceOp reduce = reduction.op;
  const FragmentRegisters &source = *reduction.source;
  const FragmentRegisters &target = *reduction.target;
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
  // Threads that hold the same elements of the source (a replicated
  // source: a row vector every thread holds) hold the same partials, which
  // must be combined once, not once per copy: only the bits along which
  // the threads of a row hold different elements are combined.
  std::optional<int64_t> copies = getReplicatedThreadBits(source.layout);
  if (!copies)
    return reduce.emitOpError("the source's layout holds elements in several "
                              "threads that are not whole bits of the thread "
                              "index, so its copies cannot be told apart: ")
           << source.layout;
  *replicas &= ~*copies;
  int64_t threads = source.layout.getThreads();
  int64_t laneBits = *replicas & (kWarpSize - 1);
  int64_t width = std::min(kWarpSize, threads);
  if (laneBits && ((threads % kWarpSize != 0 && threads > kWarpSize) ||
                   !llvm::isPowerOf2_64(width)))
    return reduce.emitOpError("combines lanes with warp shuffles, which need "
                              "whole warps (or a power-of-two block below "
                              "32 threads), but the block has ")
           << threads << " threads";

  PendingReduction pending;
  pending.reduction = reduction;
  pending.targetRegisterOf = std::move(*targetRegisterOf);
  pending.warpBits = *replicas & ~(kWarpSize - 1);
  pending.threads = threads;
  // 1. Each thread's own registers, per target slot, in register order
  // (each element once: registers that share a slot hold the same one).
  const RegisterSlots &slots = target.slots;
  int64_t numSlots =
      slots.slotOf.empty() ? target.layout.getRegisters() : slots.size();
  SmallVector<Value> &partials = pending.partials;
  partials.resize(numSlots);
  for (int64_t reg : source.storedRegisters()) {
    int64_t targetReg = pending.targetRegisterOf[reg];
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
  return pending;
}

/// Step 4: the partials into the target, replacing or combining with what
/// it holds.
static void storeIntoTarget(OpBuilder &b, const PendingReduction &pending) {
  ReduceOp reduce = pending.reduction.op;
  const FragmentRegisters &target = *pending.reduction.target;
  Location loc = reduce.getLoc();
  const RegisterSlots &slots = target.slots;
  for (auto [slot, partial] : llvm::enumerate(pending.partials)) {
    int64_t reg = slots.slotOf.empty() ? slot : slots.representative[slot];
    SmallVector<Value> indices = target.indices(b, loc, reg);
    Value result = partial;
    if (!reduce.getClear())
      result = buildReduceCombine(
          b, loc, reduce.getKind(),
          memref::LoadOp::create(b, loc, target.buffer, indices), partial);
    memref::StoreOp::create(b, loc, result, target.buffer, indices);
  }
}

LogicalResult tile::lowerFragmentReduces(OpBuilder &b,
                                         ArrayRef<FragmentReduction> reductions,
                                         Value thread) {
  assert(!reductions.empty() && "nothing to reduce");
  SmallVector<PendingReduction> pending;
  for (const FragmentReduction &reduction : reductions) {
    FailureOr<PendingReduction> next = reduceWithinWarps(b, reduction);
    if (failed(next))
      return failure();
    pending.push_back(std::move(*next));
  }
  // 3. Warps that share a row: through shared memory, every reduction
  // whose threads meet alike (the same warp bits of the same block, and
  // partials of one type) in one buffer, behind one barrier.
  SmallVector<bool> done(pending.size(), false);
  for (size_t first = 0; first < pending.size(); ++first) {
    if (done[first] || !pending[first].warpBits)
      continue;
    SmallVector<ReduceKind> kinds;
    SmallVector<Value> partials;
    SmallVector<size_t> members;
    Type element = pending[first].partials.front().getType();
    for (size_t i = first; i < pending.size(); ++i) {
      if (done[i] || pending[i].warpBits != pending[first].warpBits ||
          pending[i].threads != pending[first].threads ||
          pending[i].partials.front().getType() != element)
        continue;
      done[i] = true;
      members.push_back(i);
      for (Value partial : pending[i].partials) {
        kinds.push_back(pending[i].reduction.op.getKind());
        partials.push_back(partial);
      }
    }
    combineAcrossWarps(b, pending[first].reduction.op.getLoc(),
                       pending[first].reduction.op, kinds, partials,
                       pending[first].warpBits, pending[first].threads, thread);
    size_t next = 0;
    for (size_t i : members)
      for (Value &partial : pending[i].partials)
        partial = partials[next++];
  }
  // 4. Into the targets, in the ops' order.
  for (const PendingReduction &reduction : pending)
    storeIntoTarget(b, reduction);
  return success();
}
