//===- PipelinePlan.cpp - What a pipelined loop runs ahead ----------------===//

#include "tile/Dialect/Tile/Analysis/PipelinePlan.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "tile/Dialect/Tile/IR/MemorySpaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::tile;

/// Checks that `buffer` is used only inside `loop`, and there only read
/// (through views too), apart from the copy that fills it.
static LogicalResult checkBufferUses(PipelinedOp loop, Value buffer,
                                     CopyOp filler) {
  SmallVector<Value> worklist = {buffer};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (user == filler.getOperation())
        continue;
      if (!loop->isProperAncestor(user))
        return loop.emitError("the shared buffer filled by the copy at ")
               << filler.getLoc() << " is used outside the pipelined loop (by '"
               << user->getName()
               << "'): the pipeline gives it one buffer per stage, so its "
                  "contents after the loop are not defined";
      if (auto view = dyn_cast<ViewLikeOpInterface>(user)) {
        for (Value result : user->getResults())
          worklist.push_back(result);
        continue;
      }
      auto effects = dyn_cast<MemoryEffectOpInterface>(user);
      bool writes = !effects;
      if (effects) {
        SmallVector<MemoryEffects::EffectInstance> instances;
        effects.getEffectsOnValue(value, instances);
        writes = llvm::any_of(instances, [](auto &instance) {
          return isa<MemoryEffects::Write>(instance.getEffect());
        });
      }
      if (writes)
        return user->emitError("'")
               << user->getName()
               << "' may write a shared buffer that the pipelined loop "
                  "fills asynchronously (the copy at "
               << filler.getLoc()
               << "): only that copy may write it in the loop";
    }
  }
  return success();
}

/// Looks through views to the memref they come from.
static Value getRootMemRef(Value memref) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
    memref = view.getViewSource();
  return memref;
}

/// The copies read global memory S - 1 iterations early, so nothing in the
/// loop may write the memory they read. Distinct kernel arguments do not
/// alias (docs/KernelABI.md), so a write to another argument is fine; a
/// write to a copy's source, or to global memory not traced to an argument,
/// is rejected.
static LogicalResult checkNoGlobalWrites(PipelinedOp loop,
                                         ArrayRef<CopyOp> copies) {
  llvm::SmallPtrSet<void *, 4> sources;
  for (CopyOp copy : copies)
    sources.insert(getRootMemRef(copy.getSource()).getAsOpaquePointer());
  auto mayBeSource = [&](Value written) {
    Value root = getRootMemRef(written);
    return sources.contains(root.getAsOpaquePointer()) ||
           !isa<BlockArgument>(root) ||
           !isa<KernelOp>(cast<BlockArgument>(root).getOwner()->getParentOp());
  };
  WalkResult walk = loop.getBody().walk([&](Operation *op) {
    if (isa<PrintOp>(op))
      return WalkResult::advance();
    bool writes = false;
    if (auto effects = dyn_cast<MemoryEffectOpInterface>(op)) {
      SmallVector<MemoryEffects::EffectInstance> instances;
      effects.getEffects(instances);
      writes = llvm::any_of(instances, [&](auto &instance) {
        if (!isa<MemoryEffects::Write>(instance.getEffect()))
          return false;
        Value value = instance.getValue();
        return !value || (isGlobalBuffer(value) && mayBeSource(value));
      });
    } else if (!op->hasTrait<OpTrait::HasRecursiveMemoryEffects>()) {
      writes = llvm::any_of(op->getOperands(), [&](Value operand) {
        return isGlobalBuffer(operand) && mayBeSource(operand);
      });
    }
    if (!writes)
      return WalkResult::advance();
    op->emitError("'")
        << op->getName()
        << "' may write global memory that the pipelined loop's copies read "
           "stages ahead: they could miss the write";
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

FailureOr<std::optional<PipelinePlan>> tile::analyzePipeline(PipelinedOp loop) {
  PipelinePlan plan;
  Block &body = loop.getBody().front();
  for (Operation &op : body.without_terminator()) {
    auto copy = dyn_cast<CopyOp>(op);
    if (!copy || !isGlobalBuffer(copy.getSource()))
      continue;
    Value target = copy.getTarget();
    auto alloc = target.getDefiningOp<AllocSharedOp>();
    if (!alloc || loop->isAncestor(alloc))
      continue;
    // Each stage holds one iteration's copy: a copy into part of the buffer
    // would leave the rest of the stage from another iteration.
    if (copy.getTileShape() !=
            llvm::to_vector(copy.getTarget().getType().getShape()) ||
        llvm::any_of(copy.getTargetIndices(), [](Value index) {
          return getConstantIntValue(index) != 0;
        }))
      return copy.emitError("a copy in a pipelined loop must fill its whole "
                            "shared buffer: each stage holds one "
                            "iteration's copy"),
             failure();
    if (llvm::is_contained(plan.buffers, target))
      return copy.emitError("a second copy into the same shared buffer in "
                            "a pipelined loop: only one copy may fill each "
                            "buffer"),
             failure();
    plan.copies.push_back(copy);
    plan.buffers.push_back(target);
  }
  if (plan.copies.empty()) {
    loop.emitRemark("nothing to pipeline: no copy from global into a "
                    "shared buffer allocated outside the loop; the loop "
                    "runs as a serial loop");
    return std::optional<PipelinePlan>();
  }

  // The body ops the copies need run ahead with them: they must be pure.
  llvm::SetVector<Operation *> needed;
  SmallVector<Value> worklist;
  for (CopyOp copy : plan.copies) {
    needed.insert(copy);
    llvm::append_range(worklist, copy->getOperands());
  }
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(value);
        arg && arg.getOwner() == &body && arg.getArgNumber() != 0)
      return loop.emitError("a copy of the pipelined loop depends on its "
                            "loop-carried value #")
                 << arg.getArgNumber() - 1
                 << ": the copies run stages ahead of the iteration that "
                    "computes it",
             failure();
    Operation *def = value.getDefiningOp();
    if (!def || def->getBlock() != &body || needed.contains(def))
      continue;
    if (!isMemoryEffectFree(def) || def->getNumRegions() != 0)
      return def->emitError("a copy of the pipelined loop depends on this '")
                 << def->getName()
                 << "', which has memory effects or regions: it cannot run "
                    "stages ahead of the rest of the body",
             failure();
    needed.insert(def);
    llvm::append_range(worklist, def->getOperands());
  }
  for (Operation &op : body.without_terminator())
    if (needed.contains(&op))
      plan.producer.push_back(&op);

  for (auto [copy, buffer] : llvm::zip(plan.copies, plan.buffers))
    if (failed(checkBufferUses(loop, buffer, copy)))
      return failure();
  if (failed(checkNoGlobalWrites(loop, plan.copies)))
    return failure();
  return std::optional<PipelinePlan>(std::move(plan));
}
