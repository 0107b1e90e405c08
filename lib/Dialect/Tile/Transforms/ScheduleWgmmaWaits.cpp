//===- ScheduleWgmmaWaits.cpp - wgmma waits where results are needed ----===//
//
// A wgmma gemm issues its MMAs asynchronously; tile-lower-fragments waits
// for them right after issuing them unless the gemm is marked
// `tile.wgmma_deferred`. This pass marks the gemms whose wait can come
// later and places that wait, a `tile.wgmma_wait N`, before the first op of
// the block that needs it:
//
//   in each block, in order, with `pending` the deferred gemms not yet
//   waited for (oldest first):
//     an op that touches what pending gemm g uses (g's C fragment, or its
//       fragment A; any shared-memory write or synchronization for a gemm
//       reading shared memory): wait until g and every older gemm retired,
//       wait_group (number of pending gemms newer than g), tying the C
//       fragments of the retired ones;
//     a wgmma gemm that can be deferred: pending += it (after the above,
//       as a gemm also touches what it reads);
//   before the block's terminator: wait_group 0 for all.
//
// wgmma groups retire in order, so waiting for g retires the older ones
// too. A gemm cannot be deferred when it is tf32 (it rounds its operands
// in place between barriers) or left in flight across iterations by a
// pipeline (`tile.wgmma_in_flight`, which waits its own way).
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

#define DEBUG_TYPE "tile-schedule-wgmma-waits"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESCHEDULEWGMMAWAITS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// A deferred gemm and what its MMAs use until they retire.
struct PendingGemm {
  GemmOp gemm;
  /// Its fragments: C, and A when A is a fragment.
  SmallVector<Value, 2> fragments;
  /// It reads A or B from shared memory.
  bool readsShared = false;
};

/// Whether `op` (with its nested ops) may write shared memory or
/// synchronize with other threads: what a gemm reading shared memory must
/// retire before (a later write could change its operands, a release let
/// another thread change them).
static bool mayWriteSharedOrSync(Operation *op) {
  WalkResult walk = op->walk([](Operation *nested) {
    if (isa<GemmOp, WgmmaWaitOp>(nested))
      return WalkResult::advance();
    // A pingpong consumer's turns order only the issue of gemms.
    if (nested->hasAttr(kPingpongTurnAttr))
      return WalkResult::advance();
    if (isPure(nested) || nested->hasTrait<OpTrait::IsTerminator>())
      return WalkResult::advance();
    auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
    if (!effects) {
      // Ops with regions (scf.if, tile loops) are judged by their nested
      // ops; others of unknown effect may do anything.
      return nested->getNumRegions() > 0 ? WalkResult::advance()
                                         : WalkResult::interrupt();
    }
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &instance : instances) {
      if (!isa<MemoryEffects::Write>(instance.getEffect()))
        continue;
      Value value = instance.getValue();
      if (!value || isSharedMemory(value))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return walk.wasInterrupted();
}

/// Whether `op` or one of its nested ops uses one of `values`.
static bool usesAny(Operation *op, ArrayRef<Value> values) {
  WalkResult walk = op->walk([&](Operation *nested) {
    for (Value operand : nested->getOperands())
      if (llvm::is_contained(values, operand))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return walk.wasInterrupted();
}

struct TileScheduleWgmmaWaits
    : tile::impl::TileScheduleWgmmaWaitsBase<TileScheduleWgmmaWaits> {
  using Base::Base;

  void runOnOperation() override {
    if (chip != "sm_90a")
      return markAllAnalysesPreserved();
    std::optional<GemmLowering> lowering = symbolizeGemmLowering(gemmLowering);
    defaultWgmma = lowering && *lowering == GemmLowering::wgmma;
    SmallVector<Block *> blocks;
    getOperation().walk([&](Block *block) {
      if (llvm::any_of(block->getOps<GemmOp>(),
                       [&](GemmOp gemm) { return canDefer(gemm); }))
        blocks.push_back(block);
    });
    for (Block *block : blocks)
      schedule(*block);
  }

private:
  bool canDefer(GemmOp gemm) {
    GemmLowering lowering = gemm.getLowering().value_or(GemmLowering::automatic);
    bool wgmma = lowering == GemmLowering::wgmma ||
                 (lowering == GemmLowering::automatic && defaultWgmma);
    return wgmma && !gemm.isTF32() && !gemm->hasAttr(kWgmmaInFlightAttr);
  }

  /// Waits before `op` for `pending[0..last]`, leaving the newer ones in
  /// flight, and drops them from `pending`.
  void waitBefore(Operation *op, SmallVectorImpl<PendingGemm> &pending,
                  size_t last) {
    OpBuilder builder(op);
    SmallVector<Value> accumulators;
    for (size_t i = 0; i <= last; ++i)
      if (!llvm::is_contained(accumulators, pending[i].gemm.getC()))
        accumulators.push_back(pending[i].gemm.getC());
    WgmmaWaitOp::create(builder, op->getLoc(),
                        builder.getI64IntegerAttr(pending.size() - 1 - last),
                        accumulators);
    pending.erase(pending.begin(), pending.begin() + last + 1);
  }

  void schedule(Block &block) {
    SmallVector<PendingGemm> pending;
    for (Operation &opRef : llvm::make_early_inc_range(block)) {
      Operation *op = &opRef;
      if (op->hasTrait<OpTrait::IsTerminator>())
        break;
      // The newest pending gemm this op needs retired.
      std::optional<size_t> needed;
      bool writesShared = mayWriteSharedOrSync(op);
      for (auto [index, entry] : llvm::enumerate(pending))
        if (usesAny(op, entry.fragments) ||
            (entry.readsShared && writesShared))
          needed = index;
      if (needed)
        waitBefore(op, pending, *needed);
      auto gemm = dyn_cast<GemmOp>(op);
      if (!gemm || !canDefer(gemm))
        continue;
      PendingGemm entry{gemm, {gemm.getC()}, false};
      for (Value operand : {gemm.getA(), gemm.getB()}) {
        if (isSharedMemory(operand))
          entry.readsShared = true;
        else if (operand != gemm.getC())
          entry.fragments.push_back(operand);
      }
      gemm->setAttr(kWgmmaDeferredAttr, UnitAttr::get(&getContext()));
      pending.push_back(entry);
    }
    if (!pending.empty())
      waitBefore(block.getTerminator(), pending, pending.size() - 1);
  }

  bool defaultWgmma = false;
};

} // namespace
