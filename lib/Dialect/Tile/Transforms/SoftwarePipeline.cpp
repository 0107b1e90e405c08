//===- SoftwarePipeline.cpp - Multi-stage tile.pipelined loops ------------===//
//
// Turns a `tile.pipelined` loop of `S` stages into the classic multi-stage
// cp.async pipeline. The copies of the body from global into shared buffers
// allocated outside the loop (the "pipelined copies") run `S - 1` iterations
// ahead of the rest of the body (the "consumer"), each shared buffer gets
// one copy per stage, and the copies become asynchronous (`tile.async`, made
// cp.async by tile-vectorize):
//
//   prologue:  for s < S - 1: if (s < N) copies(s) into stage s; commit
//   loop over groups of S iterations g, unrolled, iteration it = g + j:
//     if (it < N):                          (j > 0 only)
//       cp.async.wait_group S - 2           iteration it's copies are done
//       barrier                             ... for all threads; and stage
//                                           (it - 1) % S is no longer read
//       if (it + S - 1 < N) copies(it + S - 1) into stage (j + S - 1) % S
//       commit
//       consumer(it) reading stage j
//   cp.async.wait_group 0
//
// Unrolling by S makes every stage a buffer of its own with a constant
// choice in each copy of the body, so barrier insertion, which runs next,
// sees that the copies in flight and the consumer touch different buffers,
// and adds nothing to the one barrier per iteration emitted here. Async
// writes are seen by barrier insertion at their issue; the wait and the
// barrier above are what makes them complete and visible, by construction.
//
// A `rolled` loop keeps one copy of the body: each pipelined buffer becomes
// one shared allocation of S stages (each rounded up to 128 bytes), and
// every use of the buffer a `memref.view` of the stage at byte shift
// `((it + c) mod S) * stageBytes`:
//
//   prologue:  for s < S - 1: if (s < N) copies(s) into stage s; commit
//   loop over iterations it:
//     cp.async.wait_group S - 2; barrier
//     if (it + S - 1 < N) copies(it + S - 1) into stage (it + S - 1) mod S
//     commit
//     consumer(it) reading stage it mod S
//   cp.async.wait_group 0
//
// A wgmma `tile.gemm` of a rolled body (S >= 3) whose accumulator nothing
// else in the loop touches is left in flight into the next iteration
// (marked `tile.wgmma_in_flight`: wgmma.wait_group 1, then 0 after the
// loop), so the tensor cores work through the next iteration's wait,
// barrier and copy issue. Its stage is then read until the end of the next
// iteration: the copies run S - 2 iterations ahead instead of S - 1, and
// stage (it + S - 2) mod S, refilled at iteration it, was last read by
// iteration it - 2, whose MMAs every warp group waited for before the
// barrier.
//
// Barrier insertion recognizes these shifts (SharedMemoryAccess.cpp) and
// sees that stages `it mod S` and `(it + S - 1) mod S` differ. The view of
// a swizzled buffer's stage is marked `tile.swizzle` (IR/Swizzle.h) and
// swizzled from the stage's start; stages start as aligned as the buffer
// (at least 128 bytes), so every stage meets the banks the same way and a
// wgmma operand's stages start on a 1024-byte swizzle atom.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "tile/Dialect/Tile/IR/Swizzle.h"
#include "tile/Dialect/Tile/Transforms/LoopUtils.h"
#include "llvm/ADT/SetVector.h"

#define DEBUG_TYPE "tile-software-pipeline"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESOFTWAREPIPELINE
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

/// Marks a tile.copy whose writes may complete asynchronously.
static constexpr llvm::StringLiteral kAsyncAttr = "tile.async";

namespace {

/// What runs ahead and what it fills.
struct PipelinePlan {
  /// The pipelined copies, in body order.
  SmallVector<CopyOp> copies;
  /// Their target buffers (tile.alloc_shared results), in the same order.
  SmallVector<Value> buffers;
  /// The copies and the body ops they depend on, in body order.
  SmallVector<Operation *> producer;
};

} // namespace

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
               << filler.getLoc()
               << " is used outside the pipelined loop (by '"
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

/// Finds the pipelined copies of `loop` and what they depend on. Returns
/// nullopt when there is nothing to pipeline (with a remark).
static FailureOr<std::optional<PipelinePlan>> analyze(PipelinedOp loop) {
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
    Operation *def = worklist.pop_back_val().getDefiningOp();
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

/// Returns the induction value of `loop` at iteration `iteration`:
/// `lb + iteration * step`.
static Value buildInductionValue(OpBuilder &builder, Location loc,
                                 PipelinedOp loop, Value iteration) {
  return arith::AddIOp::create(
      builder, loc, loop.getLowerBound(),
      arith::MulIOp::create(builder, loc, iteration, loop.getStep()));
}

/// Emits the copies of `iteration` (and the ops they need), asynchronous,
/// with the buffers mapped by `mapBuffers`, under `if (iteration < count)`;
/// then commits the cp.async group (empty when the guard fails).
static void emitCopies(OpBuilder &builder, Location loc, PipelinedOp loop,
                       const PipelinePlan &plan, Value iteration, Value count,
                       llvm::function_ref<void(IRMapping &)> mapBuffers) {
  Value inside = arith::CmpIOp::create(
      builder, loc, arith::CmpIPredicate::slt, iteration, count);
  auto branch = scf::IfOp::create(builder, loc, inside,
                                  /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(branch.thenBlock()->getTerminator());
    IRMapping mapping;
    mapping.map(loop.getInductionVar(),
                buildInductionValue(builder, loc, loop, iteration));
    mapBuffers(mapping);
    for (Operation *op : plan.producer) {
      Operation *clone = builder.clone(*op, mapping);
      if (isa<CopyOp>(clone))
        clone->setAttr(kAsyncAttr, builder.getUnitAttr());
    }
  }
  NVVM::CpAsyncCommitGroupOp::create(builder, loc);
}

/// Rewrites `loop` as described at the top of the file.
static void pipeline(PipelinedOp loop, const PipelinePlan &plan) {
  int64_t stages = loop.getStages();
  Location loc = loop.getLoc();
  OpBuilder builder(loop);
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, value);
  };
  Value count = buildTripCount(builder, loc, loop.getLowerBound(),
                               loop.getUpperBound(), loop.getStep());

  // One buffer per stage; stage 0 is the original.
  SmallVector<SmallVector<Value>> stageBuffers;
  for (Value buffer : plan.buffers) {
    SmallVector<Value> &perStage = stageBuffers.emplace_back();
    perStage.push_back(buffer);
    Operation *alloc = buffer.getDefiningOp();
    OpBuilder allocBuilder(alloc->getContext());
    allocBuilder.setInsertionPointAfter(alloc);
    for (int64_t stage = 1; stage < stages; ++stage)
      perStage.push_back(allocBuilder.clone(*alloc)->getResult(0));
  }

  auto mapStage = [&](IRMapping &mapping, int64_t stage) {
    for (auto [buffer, perStage] : llvm::zip(plan.buffers, stageBuffers))
      mapping.map(buffer, perStage[stage]);
  };
  // Runs `build` under `if (iteration < N)`.
  auto guarded = [&](Value iteration, llvm::function_ref<void()> build) {
    Value inside = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::slt, iteration, count);
    auto branch = scf::IfOp::create(builder, loc, inside,
                                    /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(branch.thenBlock()->getTerminator());
    build();
  };
  auto issueCopies = [&](Value iteration, int64_t stage) {
    emitCopies(builder, loc, loop, plan, iteration, count,
               [&](IRMapping &mapping) { mapStage(mapping, stage); });
  };

  // Prologue: the first S - 1 iterations' copies.
  for (int64_t stage = 0; stage + 1 < stages; ++stage)
    issueCopies(constant(stage), stage);

  // The loop over groups of S iterations.
  auto groups = SerialOp::create(builder, loc, constant(0), count,
                                 constant(stages));
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(groups.getBody().front().getTerminator());
    Value first = groups.getInductionVar();
    DenseSet<Operation *> copies;
    for (CopyOp copy : plan.copies)
      copies.insert(copy);
    for (int64_t j = 0; j < stages; ++j) {
      Value iteration =
          j == 0 ? first
                 : arith::AddIOp::create(builder, loc, first, constant(j))
                       .getResult();
      auto buildIteration = [&] {
        NVVM::CpAsyncWaitGroupOp::create(builder, loc, stages - 2);
        createCompilerBarrier(builder, loc, "tile-software-pipeline");
        issueCopies(arith::AddIOp::create(builder, loc, iteration,
                                          constant(stages - 1)),
                    (j + stages - 1) % stages);
        IRMapping mapping;
        mapping.map(loop.getInductionVar(),
                    buildInductionValue(builder, loc, loop, iteration));
        mapStage(mapping, j);
        for (Operation &op : loop.getBody().front().without_terminator())
          if (!copies.contains(&op))
            builder.clone(op, mapping);
      };
      if (j == 0)
        buildIteration();
      else
        guarded(iteration, buildIteration);
    }
  }
  // Only empty groups can be left; drain them all the same.
  NVVM::CpAsyncWaitGroupOp::create(builder, loc, 0);
  loop.erase();
}

/// The bytes of one stage of `alloc`: its size rounded up to its alignment
/// (at least 128 bytes), so that every stage starts as aligned as the
/// allocation.
static int64_t getStageBytes(AllocSharedOp alloc) {
  MemRefType type = alloc.getType();
  int64_t bytes = type.getNumElements() *
                  llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  return llvm::alignTo(bytes,
                       std::max<int64_t>(alloc.getEffectiveAlignment(), 128));
}

/// The wgmma gemms of `loop`'s body that can stay in flight into the next
/// iteration: at its top level, with an accumulator the rest of the body
/// does not touch (the next iteration's MMAs, issued behind them, are its
/// only readers).
static SmallVector<GemmOp> getOverlappableGemms(PipelinedOp loop) {
  SmallVector<GemmOp> gemms;
  for (auto gemm : loop.getBody().front().getOps<GemmOp>()) {
    if (gemm.getLowering() != GemmLowering::wgmma)
      continue;
    bool alone = llvm::all_of(gemm.getC().getUsers(), [&](Operation *user) {
      return user == gemm.getOperation() || !loop->isAncestor(user);
    });
    if (alone)
      gemms.push_back(gemm);
  }
  return gemms;
}

/// Rewrites a `rolled` loop as described at the top of the file.
static void pipelineRolled(PipelinedOp loop, const PipelinePlan &plan) {
  int64_t stages = loop.getStages();
  // With wgmma gemms left in flight, a stage is read until the end of the
  // next iteration: the copies run one iteration less ahead.
  SmallVector<GemmOp> inFlight;
  if (stages >= 3)
    inFlight = getOverlappableGemms(loop);
  int64_t ahead = inFlight.empty() ? stages - 1 : stages - 2;
  Location loc = loop.getLoc();
  OpBuilder builder(loop);
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, value);
  };
  Value count = buildTripCount(builder, loc, loop.getLowerBound(),
                               loop.getUpperBound(), loop.getStep());

  // One allocation of all stages per buffer, where the buffer was.
  SmallVector<Value> staged;
  SmallVector<bool> swizzled;
  SmallVector<int64_t> stageBytes;
  for (Value buffer : plan.buffers) {
    auto alloc = buffer.getDefiningOp<AllocSharedOp>();
    OpBuilder allocBuilder(alloc);
    stageBytes.push_back(getStageBytes(alloc));
    auto rawType =
        MemRefType::get({stages * stageBytes.back()}, allocBuilder.getI8Type(),
                        AffineMap(), alloc.getType().getMemorySpace());
    int64_t alignment = std::max<int64_t>(alloc.getEffectiveAlignment(),
                                          16);
    swizzled.push_back(alloc.isSwizzled());
    staged.push_back(AllocSharedOp::create(
        allocBuilder, alloc.getLoc(), rawType,
        allocBuilder.getI64IntegerAttr(alignment), IntegerAttr()));
  }
  // Maps every buffer to its stage `stage` (an index in [0, S)).
  auto mapStage = [&](IRMapping &mapping, Value stage) {
    for (auto [buffer, raw, swizzle, bytes] :
         llvm::zip(plan.buffers, staged, swizzled, stageBytes)) {
      auto type = cast<MemRefType>(buffer.getType());
      Value shift = arith::MulIOp::create(builder, loc, stage, constant(bytes));
      auto view =
          memref::ViewOp::create(builder, loc, type, raw, shift, ValueRange());
      if (swizzle)
        view->setAttr(kSwizzledViewAttr, builder.getUnitAttr());
      mapping.map(buffer, view.getResult());
    }
  };
  // Copies of `iteration` into stage `stage`.
  auto issueCopies = [&](Value iteration, Value stage) {
    emitCopies(builder, loc, loop, plan, iteration, count,
               [&](IRMapping &mapping) { mapStage(mapping, stage); });
  };

  // Prologue: the first `ahead` iterations' copies, into their stages.
  for (int64_t stage = 0; stage < ahead; ++stage)
    issueCopies(constant(stage), constant(stage));

  auto iterations = SerialOp::create(builder, loc, constant(0), count,
                                     constant(1));
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(iterations.getBody().front().getTerminator());
    Value iteration = iterations.getInductionVar();
    NVVM::CpAsyncWaitGroupOp::create(builder, loc, ahead - 1);
    createCompilerBarrier(builder, loc, "tile-software-pipeline");
    Value next =
        arith::AddIOp::create(builder, loc, iteration, constant(ahead));
    issueCopies(next,
                arith::RemUIOp::create(builder, loc, next, constant(stages)));
    IRMapping mapping;
    mapping.map(loop.getInductionVar(),
                buildInductionValue(builder, loc, loop, iteration));
    mapStage(mapping, arith::RemUIOp::create(builder, loc, iteration,
                                             constant(stages)));
    DenseSet<Operation *> copies;
    for (CopyOp copy : plan.copies)
      copies.insert(copy);
    for (Operation &op : loop.getBody().front().without_terminator()) {
      if (copies.contains(&op))
        continue;
      Operation *clone = builder.clone(op, mapping);
      if (llvm::is_contained(inFlight, dyn_cast<GemmOp>(&op)))
        clone->setAttr(kWgmmaInFlightAttr, builder.getUnitAttr());
    }
  }
  NVVM::CpAsyncWaitGroupOp::create(builder, loc, 0);
  loop.erase();
  for (Value buffer : plan.buffers)
    if (buffer.use_empty())
      buffer.getDefiningOp()->erase();
}

namespace {

struct TileSoftwarePipeline
    : tile::impl::TileSoftwarePipelineBase<TileSoftwarePipeline> {
  void runOnOperation() override {
    SmallVector<PipelinedOp> loops;
    getOperation().walk([&](PipelinedOp loop) {
      if (loop.getStages() > 1)
        loops.push_back(loop);
    });
    for (PipelinedOp loop : loops) {
      if (loop->getParentOfType<WarpSpecializeOp>()) {
        loop.emitError("a multi-stage pipelined loop inside a "
                       "'tile.warp_specialize' role: its barriers would "
                       "wait for the whole block; the role's pipeline is "
                       "the warp_specialize itself");
        return signalPassFailure();
      }
      for (Operation *parent = loop->getParentOp(); parent;
           parent = parent->getParentOp()) {
        auto outer = dyn_cast<PipelinedOp>(parent);
        if (outer && outer.getStages() > 1) {
          loop.emitError("a multi-stage pipelined loop inside another: "
                         "its cp.async waits would also wait for the outer "
                         "loop's copies, and the outer pipeline would not "
                         "overlap anything")
                  .attachNote(outer.getLoc())
              << "the outer pipelined loop";
          return signalPassFailure();
        }
      }
    }
    for (PipelinedOp loop : loops) {
      FailureOr<std::optional<PipelinePlan>> plan = analyze(loop);
      if (failed(plan))
        return signalPassFailure();
      if (!*plan) {
        // Nothing to run ahead: an ordinary serial loop.
        loop.setStages(1);
        continue;
      }
      if (loop.getRolled())
        pipelineRolled(loop, **plan);
      else
        pipeline(loop, **plan);
    }
  }
};

} // namespace
