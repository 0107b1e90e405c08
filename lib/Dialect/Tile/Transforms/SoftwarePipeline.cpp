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
// With `tma`, the copies of a rolled loop are TMA's (`tile.tma_load`), and
// each stage completes on an mbarrier of its own instead of a cp.async
// group:
//
//   thread 0: init full[s] (count 1) for s < S
//   prologue:  thread 0, for s < D: if (s < N)
//                arrive.expect_tx full[s], bytes; tma_loads(s) into stage s
//   loop over iterations it:
//     barrier                                stage (it + D) mod S is free
//     thread 0: if (it + D < N) arrive.expect_tx full[(it + D) mod S], bytes;
//                               tma_loads(it + D) into that stage
//     wait full[it mod S] with parity (it / S) mod 2
//     consumer(it)
//
// where D is S - 1, or S - 2 with gemms in flight. Every fill of a stage is
// waited for by the iteration that reads it, so nothing is left in flight
// after the loop.
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
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/IRMapping.h"
#include "tile/Dialect/Tile/Analysis/PipelinePlan.h"
#include "tile/Dialect/Tile/IR/MemorySpaces.h"
#include "tile/Dialect/Tile/IR/Swizzle.h"
#include "tile/Dialect/Tile/Transforms/Distribution.h"
#include "tile/Dialect/Tile/Transforms/LoopUtils.h"
#include "tile/Dialect/Tile/Transforms/StagedBuffers.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FormatVariadic.h"

#define DEBUG_TYPE "tile-software-pipeline"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESOFTWAREPIPELINE
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

/// Returns the induction value of `loop` at iteration `iteration`:
/// `lb + iteration * step`.
static Value buildInductionValue(OpBuilder &builder, Location loc,
                                 PipelinedOp loop, Value iteration) {
  return arith::AddIOp::create(
      builder, loc, loop.getLowerBound(),
      arith::MulIOp::create(builder, loc, iteration, loop.getStep()));
}

/// Creates `tile.serial lower to upper step step` carrying `loop`'s
/// iteration arguments, with `builder` at the end of its body (before the
/// empty yield when nothing is carried; the caller yields the carried
/// values otherwise).
static SerialOp createCarryingLoop(OpBuilder &builder, Location loc,
                                   PipelinedOp loop, Value lower, Value upper,
                                   Value step) {
  auto serial =
      SerialOp::create(builder, loc, lower, upper, step, loop.getInitArgs());
  Block &body = serial.getBody().front();
  if (!body.empty())
    builder.setInsertionPoint(body.getTerminator());
  else
    builder.setInsertionPointToEnd(&body);
  return serial;
}

/// Clones the body of `loop` (but `skip`) with `mapping`, its iteration
/// arguments mapped to `carried`; returns the values it yields.
static SmallVector<Value>
cloneIteration(OpBuilder &builder, PipelinedOp loop, IRMapping &mapping,
               ValueRange carried, const DenseSet<Operation *> &skip,
               function_ref<void(Operation &, Operation *)> onClone = {}) {
  mapping.map(loop.getRegionIterArgs(), carried);
  Block &body = loop.getBody().front();
  for (Operation &op : body.without_terminator()) {
    if (skip.contains(&op))
      continue;
    Operation *clone = builder.clone(op, mapping);
    if (onClone)
      onClone(op, clone);
  }
  SmallVector<Value> yielded;
  for (Value value : body.getTerminator()->getOperands())
    yielded.push_back(mapping.lookupOrDefault(value));
  return yielded;
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
  // Runs `build` under `if (iteration < N)`; the values carried past it
  // are those `build` returns, or `carried` when the guard fails.
  auto guarded = [&](Value iteration, ValueRange carried,
                     llvm::function_ref<SmallVector<Value>()> build)
      -> SmallVector<Value> {
    Value inside = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::slt, iteration, count);
    auto branch = scf::IfOp::create(builder, loc, carried.getTypes(), inside,
                                    /*withElseRegion=*/!carried.empty());
    OpBuilder::InsertionGuard guard(builder);
    if (carried.empty()) {
      builder.setInsertionPoint(branch.thenBlock()->getTerminator());
      build();
      return {};
    }
    builder.setInsertionPointToEnd(branch.thenBlock());
    scf::YieldOp::create(builder, loc, build());
    builder.setInsertionPointToEnd(branch.elseBlock());
    scf::YieldOp::create(builder, loc, carried);
    return SmallVector<Value>(branch.getResults());
  };
  auto issueCopies = [&](Value iteration, int64_t stage) {
    emitCopies(builder, loc, loop, plan, iteration, count,
               [&](IRMapping &mapping) { mapStage(mapping, stage); });
  };

  // Prologue: the first S - 1 iterations' copies.
  for (int64_t stage = 0; stage + 1 < stages; ++stage)
    issueCopies(constant(stage), stage);

  // The loop over groups of S iterations.
  SerialOp groups;
  {
    OpBuilder::InsertionGuard guard(builder);
    groups = createCarryingLoop(builder, loc, loop, constant(0), count,
                                constant(stages));
    Value first = groups.getInductionVar();
    SmallVector<Value> carried(groups.getRegionIterArgs());
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
        return cloneIteration(builder, loop, mapping, carried, copies);
      };
      carried = j == 0 ? buildIteration()
                       : guarded(iteration, carried, buildIteration);
    }
    if (!carried.empty())
      YieldOp::create(builder, loc, carried);
  }
  // Only empty groups can be left; drain them all the same.
  NVVM::CpAsyncWaitGroupOp::create(builder, loc, 0);
  loop.replaceAllUsesWith(groups.getResults());
  loop.erase();
}

/// Whether the copies of the rolled `loop` can all be TMA's; remarks on the
/// first that cannot.
static bool canUseTma(PipelinedOp loop, const PipelinePlan &plan) {
  int64_t bytes = 0;
  for (auto [copy, buffer] : llvm::zip(plan.copies, plan.buffers)) {
    auto alloc = buffer.getDefiningOp<AllocSharedOp>();
    if (std::optional<std::string> why = whyNotTma(CopyOp(copy).getSource(), alloc)) {
      CopyOp(copy).emitRemark("copied with cp.async, not TMA: ") << *why;
      return false;
    }
    bytes += alloc.getType().getNumElements() *
             getBufferElementBytes(alloc.getType().getElementType());
  }
  if (bytes >= (int64_t(1) << 20)) {
    loop.emitRemark("copied with cp.async, not TMA: the tiles of one stage "
                    "have ")
        << bytes << " bytes; an mbarrier counts fewer than 2^20 per phase";
    return false;
  }
  return true;
}

/// Rewrites a `rolled` loop as described at the top of the file, with TMA
/// copies when `tma`.
static void pipelineRolled(PipelinedOp loop, const PipelinePlan &plan,
                           bool tma) {
  int64_t stages = loop.getStages();
  // With wgmma gemms left in flight, a stage is read until the end of the
  // next iteration: the copies run one iteration less ahead.
  SmallVector<GemmOp> inFlight;
  if (stages >= 3)
    inFlight = getOverlappableGemms(loop.getBody());
  int64_t ahead = inFlight.empty() ? stages - 1 : stages - 2;
  Location loc = loop.getLoc();
  OpBuilder builder(loop);
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, value);
  };
  Value count = buildTripCount(builder, loc, loop.getLowerBound(),
                               loop.getUpperBound(), loop.getStep());

  // One allocation of all stages per buffer, where the buffer was.
  SmallVector<StagedBuffer> staged;
  int64_t transactionBytes = 0;
  for (Value buffer : plan.buffers) {
    staged.push_back(createStagedBuffer(
        buffer.getDefiningOp<AllocSharedOp>(), stages, tma));
    transactionBytes += staged.back().tileBytes;
  }
  // Maps every buffer to its stage `stage` (an index in [0, S)).
  auto mapStage = [&](IRMapping &mapping, Value stage) {
    for (auto [buffer, buffered] : llvm::zip(plan.buffers, staged))
      mapping.map(buffer, buffered.buildStageView(builder, loc, stage));
  };
  // With TMA: one mbarrier per stage, armed by thread 0 with the bytes of
  // the stage's tiles; thread 0 issues the copies.
  Value barriers, isFirstThread;
  if (tma) {
    MLIRContext *context = loop.getContext();
    barriers = nvgpu::MBarrierCreateOp::create(
        builder, loc,
        nvgpu::MBarrierGroupType::get(
            context,
            gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup),
            stages));
    isFirstThread = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::eq,
        buildLinearThreadId(builder, loc, loop->getParentOfType<KernelOp>()),
        constant(0));
    auto init = scf::IfOp::create(builder, loc, isFirstThread,
                                  /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(init.thenBlock()->getTerminator());
    for (int64_t stage = 0; stage < stages; ++stage)
      nvgpu::MBarrierInitOp::create(builder, loc, barriers, constant(1),
                                    constant(stage), /*predicate=*/Value());
    NVVM::FenceMbarrierInitOp::create(builder, loc);
  }
  // With TMA, a wgmma gemm whose shared operands are all copied here reads
  // only what TMA wrote (the async proxy's writes, made visible by the
  // stage's mbarrier), so no fence.proxy.async precedes it
  // (tile.tma_operands); a tf32 one has its tiles rounded by the copies
  // (TFLOAT32 tensor maps) and rounds nothing in place (tile.tf32_rounded).
  DenseSet<Operation *> roundingCopies;
  if (tma)
    loop.getBody().walk([&](GemmOp gemm) {
      if (gemm.getLowering() != GemmLowering::wgmma)
        return;
      SmallVector<CopyOp, 2> operandCopies;
      for (Value operand : {gemm.getA(), gemm.getB()}) {
        if (!isSharedMemory(operand))
          continue;
        auto copy = llvm::find_if(plan.copies, [&](CopyOp copy) {
          return copy.getTarget() == operand;
        });
        if (copy == plan.copies.end())
          return;
        operandCopies.push_back(*copy);
      }
      gemm->setAttr(kTmaOperandsAttr, UnitAttr::get(gemm.getContext()));
      if (!gemm.isTF32())
        return;
      for (CopyOp copy : operandCopies)
        roundingCopies.insert(copy);
      gemm->setAttr(kTF32RoundedAttr, UnitAttr::get(gemm.getContext()));
    });
  // TMA copies of `iteration` into stage `stage`, by thread 0.
  auto issueTmaCopies = [&](Value iteration, Value stage) {
    Value inside = arith::AndIOp::create(
        builder, loc,
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt,
                              iteration, count),
        isFirstThread);
    auto branch = scf::IfOp::create(builder, loc, inside,
                                    /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(branch.thenBlock()->getTerminator());
    nvgpu::MBarrierArriveExpectTxOp::create(builder, loc, barriers,
                                            constant(transactionBytes), stage,
                                            /*predicate=*/Value());
    IRMapping mapping;
    mapping.map(loop.getInductionVar(),
                buildInductionValue(builder, loc, loop, iteration));
    mapStage(mapping, stage);
    for (Operation *op : plan.producer) {
      auto copy = dyn_cast<CopyOp>(op);
      if (!copy) {
        builder.clone(*op, mapping);
        continue;
      }
      int64_t index = llvm::find(plan.copies, copy) - plan.copies.begin();
      TmaLoadOp load = buildTmaLoad(builder, copy, mapping, barriers, stage,
                                    staged[index].tmaSwizzle);
      if (roundingCopies.contains(copy))
        load.setRoundTf32(true);
    }
  };
  // Copies of `iteration` into stage `stage`.
  auto issueCopies = [&](Value iteration, Value stage) {
    if (tma)
      return issueTmaCopies(iteration, stage);
    emitCopies(builder, loc, loop, plan, iteration, count,
               [&](IRMapping &mapping) { mapStage(mapping, stage); });
  };

  // Prologue: the first `ahead` iterations' copies, into their stages.
  for (int64_t stage = 0; stage < ahead; ++stage)
    issueCopies(constant(stage), constant(stage));

  // One iteration: its wait, barrier and copy issue, then the body.
  DenseSet<Operation *> copies;
  for (CopyOp copy : plan.copies)
    copies.insert(copy);
  auto buildIteration = [&](Value iteration,
                            ValueRange carried) -> SmallVector<Value> {
    if (!tma)
      NVVM::CpAsyncWaitGroupOp::create(builder, loc, ahead - 1);
    createCompilerBarrier(builder, loc, "tile-software-pipeline");
    Value next =
        arith::AddIOp::create(builder, loc, iteration, constant(ahead));
    issueCopies(next,
                arith::RemUIOp::create(builder, loc, next, constant(stages)));
    Value stage =
        arith::RemUIOp::create(builder, loc, iteration, constant(stages));
    if (tma) {
      // The stage's k-th fill completes phase k of its mbarrier.
      Value round =
          arith::DivUIOp::create(builder, loc, iteration, constant(stages));
      Value parity = arith::TruncIOp::create(
          builder, loc, builder.getI1Type(),
          arith::IndexCastUIOp::create(builder, loc, builder.getI64Type(),
                                       round));
      nvgpu::MBarrierTryWaitParityOp::create(builder, loc, barriers, parity,
                                             constant(10000000), stage);
    }
    IRMapping mapping;
    mapping.map(loop.getInductionVar(),
                buildInductionValue(builder, loc, loop, iteration));
    mapStage(mapping, stage);
    return cloneIteration(
        builder, loop, mapping, carried, copies,
        [&](Operation &op, Operation *clone) {
          if (llvm::is_contained(inFlight, dyn_cast<GemmOp>(&op)))
            clone->setAttr(kWgmmaInFlightAttr, builder.getUnitAttr());
        });
  };
  // A transposed tf32 gemm in flight reads registers that the next
  // iteration's copy of its body would load again: two copies of the body
  // per loop iteration give each its own (the second under `it + 1 < N`).
  bool unrollTwice = llvm::any_of(
      inFlight, [](GemmOp gemm) { return gemm.isTransposedWgmma(); });
  SerialOp iterations;
  {
    OpBuilder::InsertionGuard guard(builder);
    iterations = createCarryingLoop(builder, loc, loop, constant(0), count,
                                    constant(unrollTwice ? 2 : 1));
    Value iteration = iterations.getInductionVar();
    SmallVector<Value> yielded =
        buildIteration(iteration, iterations.getRegionIterArgs());
    if (unrollTwice) {
      Value second =
          arith::AddIOp::create(builder, loc, iteration, constant(1));
      Value inside = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::slt, second, count);
      auto branch = scf::IfOp::create(builder, loc, TypeRange(yielded), inside,
                                      /*withElseRegion=*/!yielded.empty());
      OpBuilder::InsertionGuard branchGuard(builder);
      if (yielded.empty()) {
        builder.setInsertionPoint(branch.thenBlock()->getTerminator());
        buildIteration(second, {});
      } else {
        builder.setInsertionPointToEnd(branch.thenBlock());
        scf::YieldOp::create(builder, loc, buildIteration(second, yielded));
        builder.setInsertionPointToEnd(branch.elseBlock());
        scf::YieldOp::create(builder, loc, yielded);
      }
      yielded = SmallVector<Value>(branch.getResults());
    }
    if (!yielded.empty())
      YieldOp::create(builder, loc, yielded);
  }
  // TMA copies are all waited for by the iterations that read them.
  if (!tma)
    NVVM::CpAsyncWaitGroupOp::create(builder, loc, 0);
  loop.replaceAllUsesWith(iterations.getResults());
  loop.erase();
  for (Value buffer : plan.buffers)
    if (buffer.use_empty())
      buffer.getDefiningOp()->erase();
}

namespace {

struct TileSoftwarePipeline
    : tile::impl::TileSoftwarePipelineBase<TileSoftwarePipeline> {
  using Base::Base;

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
      FailureOr<std::optional<PipelinePlan>> plan = analyzePipeline(loop);
      if (failed(plan))
        return signalPassFailure();
      if (!*plan) {
        // Nothing to run ahead: an ordinary serial loop.
        loop.setStages(1);
        continue;
      }
      if (loop.getRolled())
        pipelineRolled(loop, **plan, tma && canUseTma(loop, **plan));
      else
        pipeline(loop, **plan);
    }
  }
};

} // namespace
