//===- LowerWarpSpecialize.cpp - Producer/consumer pipelines on mbarriers -===//
//
// Lowers `tile.warp_specialize` to two roles that synchronize through a
// "full" and an "empty" mbarrier per stage:
//
//   thread 0: init full[s] (count: producer threads, twice that when they
//             copy with cp.async), empty[s] (consumers)
//   barrier                                   the inits are visible
//   if (t < P): [setmaxnreg.dec]              producer role
//     for it < N: s = it % S, phase = (it / S) % 2
//       wait empty[s] for parity !phase       (passes at once in round 0)
//       producer body (iteration, stage s), its copies from global into the
//       buffers made cp.async; [cp.async.mbarrier.arrive.noinc full[s]];
//       arrive full[s]
//   if (t >= P): [setmaxnreg.inc]             consumer role
//     for it < N: wait full[s] for parity phase
//       consumer body; arrive empty[s]
//
// Every role thread arrives once per iteration, unconditionally, so the
// counts are always reached. mbarrier.arrive releases and the wait
// acquires, at CTA scope: the consumer sees the producer's shared-memory
// writes of a stage, and the producer rewrites a stage only after every
// consumer thread is done with it. Collective ops in a role are spread over
// that role's threads (the role's scf.if carries tile.role_first and
// tile.role_threads).
//
// Correct by construction needs the roles to touch shared memory only
// through the pipeline's buffers, at the slice of their stage argument: the
// producer writing, the consumer reading. Anything else is rejected, with
// the op named, as are block-wide barriers and reductions inside a role (only
// that role's threads would reach them: a deadlock).
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/IRMapping.h"
#include "tile/Dialect/Tile/Analysis/SharedMemoryAccess.h"
#include "tile/Dialect/Tile/Transforms/Distribution.h"
#include "tile/Dialect/Tile/Transforms/LoopUtils.h"

#define DEBUG_TYPE "tile-lower-warp-specialize"

namespace mlir::tile {
#define GEN_PASS_DEF_TILELOWERWARPSPECIALIZE
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

/// Returns the index of the stage dimension of the access `op` makes to
/// `buffer`, and the extent of the access along it, or nullopt when the op
/// is not a form whose slice is known.
static std::optional<std::pair<Value, int64_t>> getStageIndex(Operation *op,
                                                              Value buffer) {
  auto first = [](ValueRange indices) -> Value {
    return indices.empty() ? Value() : indices.front();
  };
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return std::make_pair(first(load.getIndices()), int64_t(1));
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return std::make_pair(first(store.getIndices()), int64_t(1));
  // A vector as deep as the memref also spans the stage dimension.
  auto vectorExtent = [](VectorType vector, MemRefType memref) -> int64_t {
    return vector.getRank() >= memref.getRank()
               ? vector.getDimSize(vector.getRank() - memref.getRank())
               : 1;
  };
  if (auto load = dyn_cast<vector::LoadOp>(op))
    return std::make_pair(
        first(load.getIndices()),
        vectorExtent(load.getVectorType(), load.getMemRefType()));
  if (auto store = dyn_cast<vector::StoreOp>(op))
    return std::make_pair(
        first(store.getIndices()),
        vectorExtent(store.getVectorType(), store.getMemRefType()));
  if (auto copy = dyn_cast<CopyOp>(op)) {
    ValueRange indices = copy.getTarget() == buffer ? copy.getTargetIndices()
                                                    : copy.getSourceIndices();
    return std::make_pair(first(indices), copy.getTileShape().front());
  }
  return std::nullopt;
}

/// Checks the shared-memory accesses of one role (see the top of the file).
static LogicalResult checkRole(WarpSpecializeOp op, Region &region,
                               StringRef role, bool producer,
                               const SharedMemoryAccessAnalysis &analysis) {
  auto waitsForBlock = [](Operation *nested) {
    StringRef name = nested->getName().getStringRef();
    return isa<BarrierOp, ThreadAllReduceOp, gpu::BarrierOp>(nested) ||
           name == "nvvm.barrier0" || name == "nvvm.barrier";
  };
  WalkResult walk = region.walk([&](Operation *nested) {
    if (waitsForBlock(nested)) {
      nested->emitError("'")
          << nested->getName() << "' in the " << role
          << " of a 'tile.warp_specialize': only the " << role
          << "'s threads would reach it, and it waits for the whole block";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();

  SmallVector<SharedAccess> accesses;
  for (Operation &nested : region.front())
    analysis.collect(&nested, accesses);
  Value stage = region.getArgument(1);
  for (const SharedAccess &access : accesses) {
    Operation *user = access.op;
    auto buffer = llvm::find_if(op.getBuffers(), [&](Value candidate) {
      return llvm::is_contained(user->getOperands(), candidate) &&
             access.buffer == candidate;
    });
    if (buffer == op.getBuffers().end()) {
      user->emitError("'")
          << user->getName() << "' in the " << role
          << " of a 'tile.warp_specialize' touches shared memory that is "
             "not one of its buffers (directly): no barrier can order it "
             "with the other role's accesses";
      return failure();
    }
    if (producer ? access.reads : access.writes) {
      user->emitError("'")
          << user->getName() << "' in the " << role
          << (producer ? " reads" : " writes")
          << " a pipeline buffer: the producer may only write the buffers, "
             "the consumer only read them";
      return failure();
    }
    std::optional<std::pair<Value, int64_t>> index =
        getStageIndex(user, *buffer);
    if (!index || index->first != stage || index->second != 1) {
      user->emitError("'")
          << user->getName() << "' in the " << role
          << " must access the slice of its stage: the leading index of a "
             "pipeline buffer must be the region's stage argument (and a "
             "copy's extent along it 1); another stage may be in use by the "
             "other role";
      return failure();
    }
  }
  return success();
}

/// Calls `fn` on each of the producer's copies from global memory into the
/// pipeline buffers under `root`: `tile.copy` ops, and stores in
/// `tile.vectorized` loops of a value just loaded from global memory. They
/// become asynchronous (cp.async after vectorization).
static void forEachAsyncCopy(Operation *root, ValueRange buffers,
                             function_ref<void(Operation *)> fn) {
  root->walk([&](Operation *op) {
    if (auto copy = dyn_cast<CopyOp>(op)) {
      if (llvm::is_contained(buffers, copy.getTarget()) &&
          isGlobalBuffer(copy.getSource()))
        fn(copy);
      return;
    }
    auto store = dyn_cast<memref::StoreOp>(op);
    if (!store || !llvm::is_contained(buffers, store.getMemref()) ||
        !isa<VectorizedOp>(store->getParentOp()))
      return;
    auto load = store.getValueToStore().getDefiningOp<memref::LoadOp>();
    if (load && isGlobalBuffer(load.getMemref()))
      fn(store);
  });
}

/// True when the producer of `op` issues asynchronous copies.
static bool hasAsyncCopies(WarpSpecializeOp op) {
  bool found = false;
  for (Operation &nested : op.getProducer().front())
    forEachAsyncCopy(&nested, op.getBuffers(),
                     [&](Operation *) { found = true; });
  return found;
}

/// Emits one role: `if (first <= t < first + count) { for it < N { ... } }`.
static void buildRole(OpBuilder &builder, Location loc, WarpSpecializeOp op,
                      Region &region, Value linear, Value count, Value barriers,
                      int64_t first, int64_t threads,
                      std::optional<int64_t> regs, bool producer) {
  int64_t stages = op.getStages();
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, value);
  };
  Value inRole =
      producer ? arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult,
                                       linear, constant(first + threads))
               : arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::uge,
                                       linear, constant(first));
  auto branch = scf::IfOp::create(builder, loc, inRole,
                                  /*withElseRegion=*/false);
  branch->setAttr(kRoleFirstAttr, builder.getI64IntegerAttr(first));
  branch->setAttr(kRoleThreadsAttr, builder.getI64IntegerAttr(threads));
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(branch.thenBlock()->getTerminator());
  if (regs)
    NVVM::SetMaxRegisterOp::create(builder, loc, static_cast<uint32_t>(*regs),
                                   producer
                                       ? NVVM::SetMaxRegisterAction::decrease
                                       : NVVM::SetMaxRegisterAction::increase);

  auto loop = scf::ForOp::create(builder, loc, constant(0), count, constant(1));
  builder.setInsertionPoint(loop.getBody()->getTerminator());
  Value iteration = loop.getInductionVar();
  Value stage =
      arith::RemUIOp::create(builder, loc, iteration, constant(stages));
  Value round =
      arith::DivUIOp::create(builder, loc, iteration, constant(stages));
  Value phase = arith::TruncIOp::create(
      builder, loc, builder.getI1Type(),
      arith::IndexCastUIOp::create(builder, loc, builder.getI64Type(), round));
  // full[s] is barrier s, empty[s] barrier S + s.
  Value full = stage;
  Value empty = arith::AddIOp::create(builder, loc, stage, constant(stages));
  Value ticks = constant(10000000);
  if (producer) {
    Value notPhase = arith::XOrIOp::create(
        builder, loc, phase,
        arith::ConstantOp::create(builder, loc, builder.getBoolAttr(true)));
    nvgpu::MBarrierTryWaitParityOp::create(builder, loc, barriers, notPhase,
                                           ticks, empty);
  } else {
    nvgpu::MBarrierTryWaitParityOp::create(builder, loc, barriers, phase, ticks,
                                           full);
  }
  IRMapping mapping;
  Value value = arith::AddIOp::create(
      builder, loc, op.getLowerBound(),
      arith::MulIOp::create(builder, loc, iteration, op.getStep()));
  mapping.map(region.getArgument(0), value);
  mapping.map(region.getArgument(1), stage);
  for (Operation &nested : region.front().without_terminator()) {
    Operation *clone = builder.clone(nested, mapping);
    if (producer)
      forEachAsyncCopy(clone, op.getBuffers(), [&](Operation *copy) {
        copy->setAttr(kAsyncAttr, UnitAttr::get(op.getContext()));
      });
  }
  if (producer && hasAsyncCopies(op)) {
    // The stage is full when this thread's cp.async copies have landed as
    // well: an arrival triggered by their completion. With .noinc it is one
    // of the arrivals full[s] counts (two per producer thread: this one and
    // the explicit arrive below, which releases the thread's ordinary
    // stores). Without .noinc, compute-sanitizer 2025.3's synccheck reports
    // "Missing wait" on every such arrive, a false report its 2025.4 notes
    // fix (test/sanitizer-repro/README.md); CUTLASS uses .noinc too.
    Value address = nvgpu::MBarrierGetOp::create(
        builder, loc, builder.getI32Type(), barriers, full);
    Value pointer = LLVM::IntToPtrOp::create(
        builder, loc,
        LLVM::LLVMPointerType::get(builder.getContext(),
                                   /*addressSpace=*/3),
        address);
    NVVM::CpAsyncMBarrierArriveOp::create(builder, loc, pointer,
                                          /*noinc=*/true);
  }
  nvgpu::MBarrierArriveOp::create(builder, loc, barriers,
                                  producer ? full : empty);
}

static void lower(WarpSpecializeOp op) {
  Location loc = op.getLoc();
  OpBuilder builder(op);
  auto kernel = op->getParentOfType<KernelOp>();
  int64_t stages = op.getStages();
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, value);
  };
  MLIRContext *context = op.getContext();
  auto groupType = nvgpu::MBarrierGroupType::get(
      context,
      gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup),
      2 * stages);
  Value barriers = nvgpu::MBarrierCreateOp::create(builder, loc, groupType);
  Value linear = buildLinearThreadId(builder, loc, kernel);
  // full[s] counts each producer thread's explicit arrive, and its cp.async
  // completion arrive when it copies asynchronously.
  int64_t fullCount = op.getProducerThreads() * (hasAsyncCopies(op) ? 2 : 1);
  {
    Value isFirst = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::eq, linear, constant(0));
    auto init = scf::IfOp::create(builder, loc, isFirst,
                                  /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(init.thenBlock()->getTerminator());
    for (int64_t stage = 0; stage < stages; ++stage) {
      nvgpu::MBarrierInitOp::create(builder, loc, barriers, constant(fullCount),
                                    constant(stage),
                                    /*predicate=*/Value());
      nvgpu::MBarrierInitOp::create(builder, loc, barriers,
                                    constant(op.getConsumerThreads()),
                                    constant(stages + stage),
                                    /*predicate=*/Value());
    }
  }
  createCompilerBarrier(builder, loc, "tile-lower-warp-specialize");
  Value count = buildTripCount(builder, loc, op.getLowerBound(),
                               op.getUpperBound(), op.getStep());
  int64_t producers = op.getProducerThreads();
  buildRole(builder, loc, op, op.getProducer(), linear, count, barriers, 0,
            producers, op.getProducerRegs(), /*producer=*/true);
  buildRole(builder, loc, op, op.getConsumer(), linear, count, barriers,
            producers, op.getConsumerThreads(), op.getConsumerRegs(),
            /*producer=*/false);
  // Every role is done with the mbarriers before anything after the op (a
  // later run of the same op re-initializes them).
  createCompilerBarrier(builder, loc, "tile-lower-warp-specialize");
  op.erase();
}

namespace {

struct TileLowerWarpSpecialize
    : tile::impl::TileLowerWarpSpecializeBase<TileLowerWarpSpecialize> {
  void runOnOperation() override {
    SmallVector<WarpSpecializeOp> ops;
    getOperation().walk([&](WarpSpecializeOp op) { ops.push_back(op); });
    if (ops.empty())
      return markAllAnalysesPreserved();
    SharedMemoryAccessAnalysis analysis(getOperation());
    for (WarpSpecializeOp op : ops)
      if (failed(checkRole(op, op.getProducer(), "producer", true, analysis)) ||
          failed(checkRole(op, op.getConsumer(), "consumer", false, analysis)))
        return signalPassFailure();
    // setmaxnreg needs the register count at entry (.maxnreg): ptxas
    // ignores it otherwise. The block's share of the register file, in 8s,
    // no more than what a consumer asks for (setmaxnreg.inc cannot lower
    // the count) and no less than what a producer keeps (.dec cannot raise
    // it).
    KernelOp kernel = getOperation();
    std::optional<int64_t> entry;
    for (WarpSpecializeOp op : ops) {
      if (!op.getProducerRegs() && !op.getConsumerRegs())
        continue;
      int64_t registers =
          std::min<int64_t>(255, kRegistersPerSM / kernel.getNumThreads()) / 8 *
          8;
      if (entry)
        registers = std::min(registers, *entry);
      if (std::optional<int64_t> consumer = op.getConsumerRegs())
        registers = std::min(registers, *consumer);
      entry = registers;
    }
    if (entry) {
      WarpSpecializeOp first = *llvm::find_if(ops, [](WarpSpecializeOp op) {
        return op.getProducerRegs() || op.getConsumerRegs();
      });
      for (WarpSpecializeOp op : ops) {
        // The counts are not restored after a role: every pipeline of the
        // kernel must ask for the same ones.
        if (op.getProducerRegs() != first.getProducerRegs() ||
            op.getConsumerRegs() != first.getConsumerRegs()) {
          op.emitError("every 'tile.warp_specialize' of a kernel must give "
                       "the same regs (setmaxnreg is not undone after a "
                       "role)")
                  .attachNote(first.getLoc())
              << "this one gives other regs";
          return signalPassFailure();
        }
        int64_t producer = op.getProducerRegs().value_or(*entry);
        int64_t consumer = op.getConsumerRegs().value_or(*entry);
        if (producer > *entry) {
          op.emitError("producer regs (")
              << producer << ") exceed the register count at kernel entry ("
              << *entry << ", from the block size and the consumer's regs): "
              << "setmaxnreg.dec cannot raise it";
          return signalPassFailure();
        }
        // setmaxnreg.inc waits until the registers are free in the block's
        // pool, which holds what the threads got at entry.
        int64_t wanted = producer * op.getProducerThreads() +
                         consumer * op.getConsumerThreads();
        int64_t pool = *entry * kernel.getNumThreads();
        if (wanted > pool) {
          op.emitError("the roles' registers (")
              << op.getProducerThreads() << " x " << producer << " + "
              << op.getConsumerThreads() << " x " << consumer << " = " << wanted
              << ") exceed the block's " << pool << " ("
              << kernel.getNumThreads() << " threads x " << *entry
              << " at entry): setmaxnreg.inc would wait forever";
          return signalPassFailure();
        }
      }
      kernel->setAttr(
          kMaxRegistersAttr,
          IntegerAttr::get(IntegerType::get(&getContext(), 32), *entry));
    }
    for (WarpSpecializeOp op : ops)
      lower(op);
  }
};

} // namespace
