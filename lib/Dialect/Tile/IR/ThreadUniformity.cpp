//===- ThreadUniformity.cpp - Which values differ between threads ---------===//
//
// Seeds are the thread indices (`tile.thread_id`, `gpu.thread_id`,
// `gpu.lane_id`, NVVM special registers), the induction variables of
// `tile.parallel` (its iterations are spread over threads), loads from
// thread-private buffers, atomics' old values and shuffles. Dependence then
// flows from operands to results, from control conditions and yielded values
// to the results and block arguments of region ops, to a fixpoint.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/ThreadUniformity.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "tile/Dialect/Tile/IR/TileOps.h"

using namespace mlir;
using namespace mlir::tile;

/// Returns true for ops whose results differ between threads whatever their
/// operands are.
static bool isThreadDependentSource(Operation *op) {
  if (isa<ThreadIdOp, gpu::ThreadIdOp, gpu::LaneIdOp, gpu::GlobalIdOp,
          gpu::SubgroupIdOp, gpu::ShuffleOp, memref::AtomicRMWOp,
          memref::GenericAtomicRMWOp, AtomicAddOp>(op))
    return true;
  // NVVM special registers: thread and lane indices, clocks.
  StringRef name = op->getName().getStringRef();
  if (name.starts_with("nvvm.read.ptx.sreg.") &&
      !name.starts_with("nvvm.read.ptx.sreg.ctaid") &&
      !name.starts_with("nvvm.read.ptx.sreg.nctaid") &&
      !name.starts_with("nvvm.read.ptx.sreg.ntid") &&
      !name.starts_with("nvvm.read.ptx.sreg.nclusterid"))
    return true;
  if (name.starts_with("nvvm.shfl") || name.starts_with("nvvm.vote"))
    return true;
  // Any read of a buffer private to each thread: its contents are per
  // thread.
  if (auto effects = dyn_cast<MemoryEffectOpInterface>(op)) {
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &effect : instances)
      if (isa<MemoryEffects::Read>(effect.getEffect()) && effect.getValue() &&
          isa<MemRefType>(effect.getValue().getType()) &&
          isThreadPrivateBuffer(effect.getValue()))
        return true;
  }
  return false;
}

/// `op` as a one-dimensional loop whose first three operands are its lower
/// bound, upper bound and step, and whose other operands are the initial
/// values of its iteration arguments: scf.for and the tile range loops.
static LoopLikeOpInterface getRangeLoop(Operation *op) {
  if (!isa<scf::ForOp, SerialOp, UnrollOp, VectorizedOp, PipelinedOp>(op))
    return {};
  return cast<LoopLikeOpInterface>(op);
}

/// A reduction is uniform across the block only when it covers every thread
/// block dimension of extent above one.
static bool isPartialReduction(ThreadAllReduceOp reduce) {
  auto kernel = reduce->getParentOfType<KernelOp>();
  if (!kernel)
    return true;
  for (Dim dim : {Dim::x, Dim::y, Dim::z}) {
    if (kernel.getThreadExtent(dim) == 1)
      continue;
    bool covered = llvm::any_of(reduce.getDims(), [&](Attribute attr) {
      return cast<DimAttr>(attr).getValue() == dim;
    });
    if (!covered)
      return true;
  }
  return false;
}

ThreadUniformity::ThreadUniformity(Operation *root) {
  bool changed = true;
  while (changed) {
    changed = false;
    root->walk([&](Operation *op) { changed |= visit(op); });
  }
}

bool ThreadUniformity::anyDependent(ValueRange values) const {
  return llvm::any_of(values, [&](Value v) { return isThreadDependent(v); });
}

bool ThreadUniformity::visit(Operation *op) {
  bool changed = false;
  auto markAll = [&](ValueRange values) {
    for (Value v : values)
      changed |= mark(v);
  };

  if (auto parallel = dyn_cast<ParallelOp>(op))
    markAll(parallel.getBody().getArguments());

  bool resultsDependent = isThreadDependentSource(op) ||
                          anyDependent(op->getOperands());
  // A reduction over the whole block gives every thread the same value,
  // whatever it reduces.
  if (auto reduce = dyn_cast<ThreadAllReduceOp>(op))
    resultsDependent = isPartialReduction(reduce);

  // Range loops (scf.for and the tile loops): the induction variable
  // follows the bounds, each iteration argument its init and yielded value.
  if (auto loop = getRangeLoop(op)) {
    bool boundsDependent = isDivergentRegionHolder(op);
    if (boundsDependent)
      markAll(loop.getLoopRegions().front()->getArguments());
    ValueRange yielded = loop.getYieldedValues();
    for (auto [idx, result] : llvm::enumerate(*loop.getLoopResults()))
      if (boundsDependent || isThreadDependent(loop.getInits()[idx]) ||
          isThreadDependent(yielded[idx])) {
        changed |= mark(result);
        changed |= mark(loop.getRegionIterArgs()[idx]);
      }
    return changed;
  }

  // Region ops: a value yielded in some thread and not in another, or a
  // region entered by some threads only, makes results and block arguments
  // (iteration arguments, induction variables) thread-dependent.
  if (op->getNumRegions() != 0 && !isThreadGroupScope(op)) {
    bool regionDependent = isDivergentRegionHolder(op);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        if (Operation *terminator = block.getTerminator();
            terminator && terminator->hasTrait<OpTrait::ReturnLike>() &&
            anyDependent(terminator->getOperands()))
          regionDependent = true;
    if (regionDependent) {
      resultsDependent = true;
      for (Region &region : op->getRegions())
        for (Block &block : region)
          markAll(block.getArguments());
    }
  }
  if (resultsDependent)
    markAll(op->getResults());
  return changed;
}

bool ThreadUniformity::isDivergentRegionHolder(Operation *holder) const {
  // A pipeline whose bounds depend on the thread would have its roles run
  // different numbers of iterations: the mbarrier counts would never be
  // reached.
  if (auto pipeline = dyn_cast<WarpSpecializeOp>(holder))
    return anyDependent({pipeline.getLowerBound(), pipeline.getUpperBound(),
                         pipeline.getStep()});
  if (isThreadGroupScope(holder))
    return false;
  if (isa<ParallelOp>(holder))
    return true;
  if (auto ifOp = dyn_cast<scf::IfOp>(holder))
    return isThreadDependent(ifOp.getCondition());
  if (auto whileOp = dyn_cast<scf::WhileOp>(holder))
    return anyDependent(whileOp.getInits()) ||
           isThreadDependent(whileOp.getConditionOp().getCondition());
  // Only the bounds of a range loop steer it; its carried values do not.
  if (auto loop = getRangeLoop(holder))
    return anyDependent(holder->getOperands().take_front(3));
  // Loops and other region ops: divergent when any operand (bounds, switch
  // value, ...) is. This is conservative for ops whose operands do not steer
  // control flow.
  return anyDependent(holder->getOperands());
}

Operation *ThreadUniformity::getDivergentAncestor(Operation *op,
                                                  Operation *scope) const {
  for (Operation *holder = op->getParentOp(); holder && holder != scope;
       holder = holder->getParentOp()) {
    if (isDivergentRegionHolder(holder))
      return holder;
    if (isThreadGroupScope(holder))
      return nullptr;
  }
  return nullptr;
}
