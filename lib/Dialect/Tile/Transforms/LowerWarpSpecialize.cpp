//===- LowerWarpSpecialize.cpp - Producer/consumer pipelines on mbarriers -===//
//
// Lowers `tile.warp_specialize` to two roles that synchronize through a
// "full" and an "empty" mbarrier per stage. The consumer threads come first
// (what they hold after the op sits where it would without specialization):
//
//   thread 0: init full[s] (count: producer threads, twice that when they
//             copy with cp.async, 1 with TMA), empty[s] (consumers)
//   barrier                                   the inits are visible
//   if (t >= C): [setmaxnreg.dec]             producer role
//     for it < N: s = it % S, phase = (it / S) % 2
//       wait empty[s] for parity !phase       (passes at once in round 0)
//       producer body (iteration, stage s), its copies from global into the
//       buffers made cp.async; [cp.async.mbarrier.arrive.noinc full[s]];
//       arrive full[s]
//   if (t < C): [setmaxnreg.inc]              consumer role
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
// The roles compare the warp index, made provably warp-uniform by a shuffle
// from lane 0 (ptxas serializes wgmmas on paths it thinks divergent, C7520).
// The producer's role comes first in the code: the consumer's results
// (an accumulator) are then not live across the producer's code, which
// setmaxnreg leaves few registers. Each role ends by setting the register
// count back to the one at entry, as the code after the op runs in both
// roles' threads (ptxas fits it into the smaller count otherwise). The
// producer takes its registers back only after every consumer thread has
// given its own back (an mbarrier after the stages' ones, arrived by the
// consumers after their closing setmaxnreg.dec, waited for by the producer
// before its .inc): setmaxnreg.inc takes whatever the block's pool holds
// and retries until it can, the producer's idle threads reach their end at
// once, and the wait sleeps where the .inc would spin.
//
// `tiles` are allocated S times (StagedBuffers.h); in each iteration a tile
// is the view of stage s. On sm_90a (`tma`), when every copy into them is a
// whole-tile copy from a kernel argument that TMA can make, the producer's
// first thread alone runs the loop and issues them as TMA copies completing
// on full[s] (count 1):
//
//       wait empty[s]; arrive.expect_tx full[s], bytes;
//       tma_load ... into stage s
//
// With TMA, whole-tile copies from kernel arguments right before the op
// into shared tiles that only the consumer reads (attention's Q) move into
// the producer: its issuing thread makes them ahead of its loop, on one
// more mbarrier (the last, count 1), and the consumer waits for that before
// its loop. They then overlap the first stages' copies instead of preceding
// them with a global-memory latency of their own:
//
//       producer: arrive.expect_tx resident, bytes; tma_load Q; loop ...
//       consumer: wait resident (parity 0); loop ...
//
// A `tile.clear` / `tile.fill` of a consumer's fragment right before the op
// moves into the consumer's role, ahead of its loop, so that the fragment
// has no value in the other threads' code. An epilogue right after the op
// (elementwise ops on the consumer's fragments, copies of them to global
// memory, reads of shared tiles written before the op) moves into the role
// after its loop, under the consumer's register count.
//
// The consumer's wgmma gemms then read operands only TMA wrote (no
// fence.proxy.async: `tile.tma_operands`), and one whose accumulator
// nothing else in the body touches stays in flight (`tile.wgmma_in_flight`:
// wgmma.wait_group 1, then 0 after the loop). Its stage is then released
// one iteration late, after the wait that retires its MMAs:
//
//       wait full[s]; gemms (in flight); if (it > 0) arrive empty[(it-1) % S]
//
// Correct by construction needs the roles to write shared memory only
// through the pipeline's buffers and tiles, the producer writing, the
// consumer reading, and a buffer only at the slice of the stage argument.
// Other shared memory the roles may read (a tile loaded before the op): its
// writers are outside the op, and barrier insertion orders them with the op
// as one unit.
// Anything else is rejected, with the op named, as are block-wide barriers
// and reductions inside a role (only that role's threads would reach them: a
// deadlock).
//
// With `pingpong`, the consumer's warp groups take turns issuing their
// gemms (FlashAttention-3's ping-pong schedule), through named barriers
// turn[g] = kTurnBarrier + g, each counting two warp groups:
//
//   consumer group g of G: [if g == G - 1: arrive turn[0]]
//     for it < N: wait full[s]
//       ...; sync turn[g]; first gemm ... last gemm; arrive turn[(g+1) % G];
//       ... arrive empty[s]
//     [if g == 0: sync turn[0]]       the last group's final arrival
//
// so one group's MMAs run while the others work on their results. The
// barriers bracket only the issue: in-flight MMAs need no wait before them
// (kPingpongTurnAttr).
//
// A tf32 wgmma gemm of the consumer reads tiles that TMA rounded to tf32 on
// the copy (`tile.tma_load {round_tf32}`: a TFLOAT32 tensor map, to nearest
// with ties to even, as cuBLAS's TF32 kernels load theirs), so it rounds
// nothing itself (tile.tf32_rounded), neither its descriptor tiles nor the
// registers of B^T when it is transposed (B stored K x N). Those registers
// are read asynchronously by its MMAs in flight: the consumer's loop then
// runs two iterations per loop iteration, the second under it + 1 < N, as a
// rolled pipeline does. Without TMA copies a tf32 wgmma gemm in the
// consumer is an error.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "tile/Dialect/Tile/Analysis/SharedMemoryAccess.h"
#include "tile/Dialect/Tile/IR/Swizzle.h"
#include "tile/Dialect/Tile/Transforms/Distribution.h"
#include "tile/Dialect/Tile/Transforms/FragmentLowering.h"
#include "tile/Dialect/Tile/Transforms/LoopUtils.h"
#include "tile/Dialect/Tile/Transforms/StagedBuffers.h"

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

/// The threads of a warp group, which setmaxnreg and wgmma act on.
static constexpr int64_t kWarpGroupThreads = 128;

/// The first named barrier of a `pingpong` consumer's turns (0 is the
/// block's barrier, 1 the TMA-store epilogue's, CopyOutTma.cpp).
static constexpr int64_t kTurnBarrier = 2;

/// The named barriers of one consumer warp group's turns (i32 values).
struct Turns {
  /// The group's own barrier, which it waits on for its turn.
  Value own;
  /// The next group's, on which it passes the turn on.
  Value next;
  /// Threads counted by each: two warp groups.
  Value threads;
};

/// bar.sync (`wait`) or bar.arrive on a turn barrier, marked as one.
static void buildTurnBarrier(OpBuilder &builder, Location loc, Value id,
                             Value threads, bool wait) {
  Operation *barrier;
  if (wait)
    barrier = NVVM::BarrierOp::create(builder, loc, /*res=*/Type(), id,
                                      threads,
                                      /*reductionOp=*/NVVM::BarrierReductionAttr(),
                                      /*reductionPredicate=*/Value());
  else
    barrier = NVVM::BarrierArriveOp::create(builder, loc, id, threads);
  barrier->setAttr(kPingpongTurnAttr, builder.getUnitAttr());
}

/// A gemm on wgmma of f32 tiles (tf32), whose operands must be rounded to
/// tf32 before the MMAs read them (the tensor cores truncate).
static bool isTF32Wgmma(GemmOp gemm) {
  return gemm.getLowering() == GemmLowering::wgmma && gemm.isTF32();
}

/// Checks the synchronization and the shared-memory accesses of one role
/// (see the top of the file).
static LogicalResult checkRole(WarpSpecializeOp op, Region &region,
                               StringRef role, bool producer,
                               const SharedMemoryAccessAnalysis &analysis) {
  auto waitsForBlock = [](Operation *nested) {
    if (auto barrier = dyn_cast<NVVM::BarrierOp>(nested))
      return !barrier.getNumberOfThreads();
    return isa<BarrierOp, ThreadAllReduceOp, gpu::BarrierOp>(nested) ||
           nested->getName().getStringRef() == "nvvm.barrier0";
  };
  // Named barriers with a count synchronize some warps of a role (the
  // escape hatch), but not on the ids the lowering uses itself.
  // The turns' barriers are the whole block's: neither role may use them.
  int64_t turns =
      op.getPingpong()
          ? static_cast<int64_t>(op.getConsumerThreads()) / kWarpGroupThreads
          : 0;
  auto reservedId = [&](Value id) -> std::optional<StringRef> {
    std::optional<int64_t> value =
        id ? getConstantIntValue(id) : std::optional<int64_t>(0);
    if (!value)
      return std::nullopt;
    if (*value == 0)
      return StringRef("barrier 0 is the whole block's (bar.sync 0)");
    if (*value == 1)
      return StringRef("barrier 1 is the TMA-store epilogue's");
    if (*value >= kTurnBarrier && *value < kTurnBarrier + turns)
      return StringRef("barriers 2 and up (one per warp group) are the "
                       "pingpong consumer's turns");
    return std::nullopt;
  };
  WalkResult walk = region.walk([&](Operation *nested) {
    if (waitsForBlock(nested)) {
      nested->emitError("'")
          << nested->getName() << "' in the " << role
          << " of a 'tile.warp_specialize': only the " << role
          << "'s threads would reach it, and it waits for the whole block";
      return WalkResult::interrupt();
    }
    Value id;
    if (auto barrier = dyn_cast<NVVM::BarrierOp>(nested))
      id = barrier.getBarrierId();
    else if (auto arrive = dyn_cast<NVVM::BarrierArriveOp>(nested))
      id = arrive.getBarrierId();
    else
      return WalkResult::advance();
    if (std::optional<StringRef> reserved = reservedId(id)) {
      nested->emitError("'")
          << nested->getName() << "' in the " << role
          << " of a 'tile.warp_specialize' uses a named barrier that the "
             "lowering uses itself: "
          << *reserved << "; take another id (up to 15)";
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
    auto isAccessed = [&](Value candidate) {
      return llvm::is_contained(user->getOperands(), candidate) &&
             access.buffer == candidate;
    };
    bool tile = llvm::any_of(op.getTiles(), isAccessed);
    auto buffer = llvm::find_if(op.getBuffers(), isAccessed);
    if (!tile && buffer == op.getBuffers().end()) {
      // Shared memory outside the pipeline is read-only inside the op (a
      // Q tile loaded before it): its writes are all outside the op, which
      // barrier insertion orders with the op as one unit.
      if (!access.writes)
        continue;
      user->emitError("'")
          << user->getName() << "' in the " << role
          << " of a 'tile.warp_specialize' writes shared memory that is "
             "not one of its buffers or tiles (directly): no barrier can "
             "order it with the other role's accesses (outside the "
             "pipeline, the roles may only read shared memory)";
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
    // A tile is the iteration's stage by construction.
    if (tile)
      continue;
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
/// pipeline's `stages` (its buffers, or this iteration's views of its tiles)
/// under `root`: `tile.copy` ops, and stores in `tile.vectorized` loops of a
/// value just loaded from global memory. They become asynchronous (cp.async
/// after vectorization).
static void forEachAsyncCopy(Operation *root, ArrayRef<Value> stages,
                             function_ref<void(Operation *)> fn) {
  root->walk([&](Operation *op) {
    if (auto copy = dyn_cast<CopyOp>(op)) {
      if (llvm::is_contained(stages, copy.getTarget()) &&
          isGlobalBuffer(copy.getSource()))
        fn(copy);
      return;
    }
    auto store = dyn_cast<memref::StoreOp>(op);
    if (!store || !llvm::is_contained(stages, store.getMemref()) ||
        !isa<VectorizedOp>(store->getParentOp()))
      return;
    auto load = store.getValueToStore().getDefiningOp<memref::LoadOp>();
    if (load && isGlobalBuffer(load.getMemref()))
      fn(store);
  });
}

namespace {

/// How one `tile.warp_specialize` is lowered.
struct Lowering {
  WarpSpecializeOp op;
  /// The stages of each of the op's tiles.
  SmallVector<StagedBuffer> tiles;
  /// The producer's copies into tiles are TMA copies (transactionBytes a
  /// stage).
  bool tma = false;
  int64_t transactionBytes = 0;
  /// The producer copies asynchronously with cp.async.
  bool async = false;
  /// The consumer's gemms left in flight (their stage released late).
  SmallVector<GemmOp> inFlight;
  /// A consumer's gemm reads shared memory outside the pipeline (written
  /// before the op).
  bool readsOtherShared = false;
  /// Initializations of the consumer's fragments right before the op,
  /// moved into the consumer's role ahead of its loop.
  SmallVector<Operation *> consumerPrologue;
  /// The ops right after the op on the consumer's fragments (its epilogue),
  /// moved into the consumer's role after its loop.
  SmallVector<Operation *> consumerEpilogue;
  /// Testing the race check: stages are released as soon as the consumer
  /// has issued the MMAs reading them.
  bool releaseEarly = false;
  /// Testing the race check: the consumer does not wait for the resident
  /// tiles.
  bool skipResidentWait = false;
  /// Each role sets the register count back to the one at entry when it
  /// ends: not when the kernel ends with the op (nothing runs after it but
  /// the block barrier), as in CUTLASS's warp-specialized kernels.
  bool restoreRegisters = true;
  /// The producer gives its registers back (setmaxnreg.dec), and takes them
  /// again at its end only after the consumers have given theirs back:
  /// through one more mbarrier, barrier 2S.
  bool registerHandoff = false;
  /// The tiles (indices into the op's tiles) that the consumer's tf32 wgmma
  /// gemms read: TMA rounds them to tf32 on the copy.
  SmallVector<int64_t> tf32Tiles;
  /// The consumer's warp groups take turns issuing their gemms (`pingpong`
  /// on sm_90a, where the gemms are wgmma).
  bool pingpong = false;
  /// Whole-tile copies into shared tiles right before the op that only the
  /// consumer reads (a Q tile): with TMA, the producer's issuing thread
  /// makes them ahead of its loop, completing on one more mbarrier
  /// (residentBarrier(), residentBytes in all), which the consumer waits
  /// for before its loop.
  SmallVector<CopyOp> residentLoads;
  int64_t residentBytes = 0;

  int64_t stages() const { return WarpSpecializeOp(op).getStages(); }
  /// The mbarriers: full[s] is s, empty[s] S + s, the register handoff's
  /// 2S, the resident tiles' after them.
  int64_t residentBarrier() const {
    return 2 * stages() + (registerHandoff ? 1 : 0);
  }
  int64_t barrierCount() const {
    return residentBarrier() + (residentLoads.empty() ? 0 : 1);
  }
};

} // namespace

/// Whether the producer's copies into `op`'s tiles can all be TMA copies:
/// whole tiles from kernel arguments, at the top level of the region, and
/// nothing else writing the pipeline. Remarks on the first that cannot.
static bool canUseTma(WarpSpecializeOp op, int64_t &bytes) {
  if (op.getTiles().empty() || !op.getBuffers().empty())
    return false;
  bytes = 0;
  Block &producer = op.getProducer().front();
  for (Value tile : op.getTiles()) {
    auto alloc = tile.getDefiningOp<AllocSharedOp>();
    bytes += alloc.getType().getNumElements() *
             getBufferElementBytes(alloc.getType().getElementType());
    for (Operation *user : tile.getUsers()) {
      if (!op.getProducer().isAncestor(user->getParentRegion()))
        continue;
      auto copy = dyn_cast<CopyOp>(user);
      std::optional<std::string> why;
      if (!copy || copy.getTarget() != tile || !copy.getTargetIndices().empty())
        why = "the producer writes the tile otherwise than by one "
              "'tile.copy' of the whole tile";
      else if (user->getBlock() != &producer)
        why = "the copy is nested in control flow of the producer";
      else
        why = whyNotTma(copy.getSource(), alloc);
      if (why) {
        user->emitRemark("copied with cp.async, not TMA: ") << *why;
        return false;
      }
    }
  }
  // One thread runs the producer with TMA: it may compute indices, not
  // spread collective work over the role.
  for (Operation &nested : producer.without_terminator()) {
    auto copy = dyn_cast<CopyOp>(&nested);
    if ((copy && llvm::is_contained(op.getTiles(), copy.getTarget())) ||
        isMemoryEffectFree(&nested))
      continue;
    nested.emitRemark("copied with cp.async, not TMA: the producer does "
                      "more than compute indices and copy the tiles (with "
                      "TMA one thread runs it)");
    return false;
  }
  if (bytes >= (int64_t(1) << 20)) {
    op.emitRemark("copied with cp.async, not TMA: the tiles of one stage "
                  "have ")
        << bytes << " bytes; an mbarrier counts fewer than 2^20 per phase";
    return false;
  }
  return true;
}

/// The copies of whole tiles from kernel arguments into shared tiles that
/// precede `op` (with only index arithmetic, fragment initializations and
/// inserted barriers between) and whose tiles nothing but `op`'s consumer
/// uses, which only reads them (checkRole), in its loop or in the epilogue
/// that moves into its role (`epilogue`): the resident operands of the
/// loop, such as attention's Q tile, or a fused epilogue's bias. Issued by
/// TMA in the producer they overlap the first stages' copies; before the op
/// they would precede them, a global-memory latency more per block.
/// `bytes` is what they bring.
static SmallVector<CopyOp> getResidentLoads(WarpSpecializeOp op,
                                            ArrayRef<Operation *> epilogue,
                                            int64_t &bytes) {
  SmallVector<CopyOp> loads;
  bytes = 0;
  Region &consumer = op.getConsumer();
  for (Operation *previous = op->getPrevNode(); previous;
       previous = previous->getPrevNode()) {
    if (isMemoryEffectFree(previous) ||
        (isa<BarrierOp>(previous) && previous->hasAttr(kInsertedByAttr)))
      continue;
    if (isa<ClearOp, FillOp>(previous) &&
        getMemorySpace(cast<MemRefType>(previous->getOperand(0).getType())) ==
            MemorySpace::Fragment)
      continue;
    auto copy = dyn_cast<CopyOp>(previous);
    if (!copy || !copy.getTargetIndices().empty())
      break;
    auto alloc = copy.getTarget().getDefiningOp<AllocSharedOp>();
    if (!alloc || whyNotTma(copy.getSource(), alloc))
      break;
    bool onlyConsumerReads =
        llvm::all_of(alloc->getUsers(), [&](Operation *user) {
          return user == copy.getOperation() ||
                 consumer.isAncestor(user->getParentRegion()) ||
                 llvm::any_of(epilogue, [&](Operation *moved) {
                   return moved->isAncestor(user);
                 });
        });
    if (!onlyConsumerReads)
      break;
    loads.push_back(copy);
    bytes += alloc.getType().getNumElements() *
             getBufferElementBytes(alloc.getType().getElementType());
  }
  std::reverse(loads.begin(), loads.end());
  return loads;
}

/// The `tile.clear` / `tile.fill` of fragments of `op`'s consumer that
/// precede `op` with nothing between that touches memory (but the barriers
/// inserted for shared memory, which order nothing in registers). They move into
/// the consumer's role: the fragment then has no value outside the
/// consumer's code. Left before the op, its initial value flows around the
/// consumer's loop into what follows (LLVM cannot tell that the producer's
/// threads never use it), and the copies of those 128 initial registers
/// stay live across the loop, which spills.
static SmallVector<Operation *> getConsumerPrologue(WarpSpecializeOp op) {
  SmallVector<Operation *> prologue;
  Region &consumer = op.getConsumer();
  for (Operation *previous = op->getPrevNode(); previous;
       previous = previous->getPrevNode()) {
    if (isa<ClearOp, FillOp>(previous)) {
      Value fragment = previous->getOperand(0);
      if (getMemorySpace(cast<MemRefType>(fragment.getType())) !=
          MemorySpace::Fragment)
        break;
      bool usedInConsumer =
          llvm::any_of(fragment.getUsers(), [&](Operation *user) {
            return consumer.isAncestor(user->getParentRegion());
          });
      if (!usedInConsumer)
        break;
      prologue.push_back(previous);
      continue;
    }
    // A barrier inserted for shared memory orders nothing in registers.
    if (isa<BarrierOp>(previous) && previous->hasAttr(kInsertedByAttr))
      continue;
    if (previous->getNumRegions() != 0 || !isMemoryEffectFree(previous))
      break;
  }
  std::reverse(prologue.begin(), prologue.end());
  return prologue;
}

/// Whether `nested` only reads `memref` (a load, or a copy from it).
static bool onlyReads(Operation *nested, Value memref) {
  if (auto load = dyn_cast<memref::LoadOp>(nested))
    return load.getMemref() == memref;
  if (auto load = dyn_cast<vector::LoadOp>(nested))
    return load.getBase() == memref;
  if (auto copy = dyn_cast<CopyOp>(nested))
    return copy.getSource() == memref && copy.getTarget() != memref;
  return false;
}

/// Whether `op`, right after the pipeline `pipeline`, works only on
/// fragments of its consumer's threads, on global memory and on scalars,
/// and only reads shared memory outside the pipeline (a bias staged before
/// the op): nothing that waits for other threads. Such a tile is written
/// before the op, whose opening barrier orders the writes with the
/// consumer's reads, and nothing in the op writes it (checkRole).
static bool isConsumerEpilogueOp(Operation *op, WarpSpecializeOp pipeline) {
  int64_t threads = pipeline.getConsumerThreads();
  auto outsidePipeline = [&](Value value) {
    return value.getDefiningOp<AllocSharedOp>() &&
           !llvm::is_contained(pipeline.getTiles(), value) &&
           !llvm::is_contained(pipeline.getBuffers(), value);
  };
  auto ownedByConsumer = [&](Value value) {
    auto alloc = value.getDefiningOp<AllocFragmentOp>();
    LayoutAttr layout = alloc ? alloc.getLayoutAttr() : LayoutAttr();
    return layout && layout.getThreads() == threads;
  };
  if (auto parallel = dyn_cast<ParallelOp>(op)) {
    LayoutAttr layout = parallel.getLayoutAttr();
    if (!layout || layout.getThreads() != threads)
      return false;
  } else if (!isa<CopyOp, FillOp, ClearOp>(op)) {
    return false;
  }
  bool fragments = false;
  WalkResult walk = op->walk([&](Operation *nested) {
    if (nested != op && !isMemoryEffectFree(nested) &&
        !isa<memref::LoadOp, memref::StoreOp, vector::LoadOp, vector::StoreOp>(
            nested))
      return WalkResult::interrupt();
    for (Value operand : nested->getOperands()) {
      auto type = dyn_cast<MemRefType>(operand.getType());
      if (!type)
        continue;
      switch (getMemorySpace(type)) {
      case MemorySpace::Fragment:
        if (!ownedByConsumer(operand))
          return WalkResult::interrupt();
        fragments = true;
        break;
      case MemorySpace::Global:
        break;
      case MemorySpace::Shared:
        if (!outsidePipeline(operand) || !onlyReads(nested, operand))
          return WalkResult::interrupt();
        break;
      default:
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return fragments && !walk.wasInterrupted();
}

/// The ops right after `op` that work on its consumer's fragments and on
/// global memory only (an epilogue: a bias, an activation, the copy out),
/// with the side-effect-free ops between them. They move into the
/// consumer's role after its loop, where the consumer's register count
/// holds: after the op, ptxas fits the code into the count at entry, and a
/// fused epilogue (the accumulator, its bias values and the result) spilled
/// there. Only the consumer's threads ran them anyway.
static SmallVector<Operation *> getConsumerEpilogue(WarpSpecializeOp op) {
  SmallVector<Operation *> epilogue;
  for (Operation *next = op->getNextNode();
       next && !next->hasTrait<OpTrait::IsTerminator>();
       next = next->getNextNode()) {
    if (isConsumerEpilogueOp(next, op) ||
        (next->getNumRegions() == 0 && isMemoryEffectFree(next)))
      epilogue.push_back(next);
    else
      break;
  }
  // Up to the first op whose result is used after the moved ones, and
  // without the side-effect-free ops at the end.
  llvm::SmallPtrSet<Operation *, 16> moved(epilogue.begin(), epilogue.end());
  auto usedOutside = llvm::find_if(epilogue, [&](Operation *candidate) {
    return llvm::any_of(candidate->getUsers(), [&](Operation *user) {
      return !moved.contains(op->getBlock()->findAncestorOpInBlock(*user));
    });
  });
  epilogue.erase(usedOutside, epilogue.end());
  while (!epilogue.empty() && epilogue.back()->getNumRegions() == 0 &&
         isMemoryEffectFree(epilogue.back()))
    epilogue.pop_back();
  // Copies out alone need no registers beyond the fragments': they stay
  // after the op (moved, gemm/warp_specialized.mlir's f16 kernel ran 1.5%
  // slower on an H100: 213.8 against 210.9 us).
  if (llvm::all_of(epilogue, [](Operation *moved) {
        return isa<CopyOp>(moved) || isMemoryEffectFree(moved);
      }))
    return {};
  return epilogue;
}

/// True when nothing with an effect runs after `op` but what moves into the
/// consumer's role (`epilogue`): `op` is in the kernel's body, not in a
/// loop, and the kernel ends after it. Its roles then keep the register
/// counts they set (a producer that took its registers back retried
/// setmaxnreg.inc while the consumers worked, or slept in a wait for
/// them and delayed the block's end: attention at 1k, 0.7%).
static bool isLastInKernel(WarpSpecializeOp op,
                           ArrayRef<Operation *> epilogue) {
  if (!isa<KernelOp>(op->getParentOp()))
    return false;
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode())
    if (!next->hasTrait<OpTrait::IsTerminator>() &&
        !llvm::is_contained(epilogue, next) &&
        !(next->getNumRegions() == 0 && isMemoryEffectFree(next)))
      return false;
  return true;
}

/// Emits one role: `if (t < threads)` for the first role, `if (t >= first)`
/// for the second, around `for it < N { ... }`.
/// The stage of `iteration` and the parity of its round of the stages.
static std::pair<Value, Value> buildStageAndPhase(OpBuilder &builder,
                                                  Location loc, Value iteration,
                                                  int64_t stages) {
  Value count = arith::ConstantIndexOp::create(builder, loc, stages);
  Value stage = arith::RemUIOp::create(builder, loc, iteration, count);
  Value round = arith::DivUIOp::create(builder, loc, iteration, count);
  Value phase = arith::TruncIOp::create(
      builder, loc, builder.getI1Type(),
      arith::IndexCastUIOp::create(builder, loc, builder.getI64Type(), round));
  return {stage, phase};
}

/// One iteration `iteration` of a role's loop at the builder's insertion
/// point: its waits, the role's body on stage `iteration mod S`, its
/// arrivals.
static void buildIteration(OpBuilder &builder, Location loc,
                           const Lowering &plan, Region &region,
                           Value iteration, Value barriers, bool producer,
                           const Turns *turns = nullptr) {
  OpBuilder::InsertionGuard guard(builder);
  WarpSpecializeOp op = plan.op;
  int64_t stages = op.getStages();
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, value);
  };
  auto [stage, phase] = buildStageAndPhase(builder, loc, iteration, stages);
  // full[s] is barrier s, empty[s] barrier S + s.
  auto emptyOf = [&](Value stage) -> Value {
    return arith::AddIOp::create(builder, loc, stage, constant(stages));
  };
  Value full = stage;
  Value ticks = constant(10000000);
  if (producer) {
    Value notPhase = arith::XOrIOp::create(
        builder, loc, phase,
        arith::ConstantOp::create(builder, loc, builder.getBoolAttr(true)));
    nvgpu::MBarrierTryWaitParityOp::create(builder, loc, barriers, notPhase,
                                           ticks, emptyOf(stage));
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
  SmallVector<Value> stageValues(op.getBuffers().begin(),
                                 op.getBuffers().end());
  for (auto [tile, staged] : llvm::zip(op.getTiles(), plan.tiles)) {
    Value view = staged.buildStageView(builder, loc, stage);
    mapping.map(tile, view);
    stageValues.push_back(view);
  }

  if (producer && plan.tma) {
    // Everything but the copies first (index computations); then the
    // copies, after arming full[s] with the bytes they bring.
    SmallVector<CopyOp> copies;
    for (Operation &nested : region.front().without_terminator()) {
      auto copy = dyn_cast<CopyOp>(&nested);
      if (copy && llvm::is_contained(op.getTiles(), copy.getTarget()))
        copies.push_back(copy);
      else
        builder.clone(nested, mapping);
    }
    nvgpu::MBarrierArriveExpectTxOp::create(builder, loc, barriers,
                                            constant(plan.transactionBytes),
                                            full, /*predicate=*/Value());
    for (CopyOp copy : copies) {
      int64_t which =
          llvm::find(op.getTiles(), copy.getTarget()) - op.getTiles().begin();
      TmaLoadOp load = buildTmaLoad(builder, copy, mapping, barriers, full,
                                    plan.tiles[which].tmaSwizzle);
      if (llvm::is_contained(plan.tf32Tiles, which))
        load.setRoundTf32(true);
    }
    return;
  }

  // With turns, the group's turn brackets the first to the last op that
  // is or holds a gemm (a gemm under an `scf.if` on the iteration, which
  // tile-peel-guarded-gemms takes out of its branch).
  Operation *firstGemm = nullptr, *lastGemm = nullptr;
  if (turns)
    for (Operation &nested : region.front().without_terminator()) {
      if (!holdsGemm(&nested))
        continue;
      if (!firstGemm)
        firstGemm = &nested;
      lastGemm = &nested;
    }
  for (Operation &nested : region.front().without_terminator()) {
    if (&nested == firstGemm)
      buildTurnBarrier(builder, loc, turns->own, turns->threads,
                       /*wait=*/true);
    Operation *clone = builder.clone(nested, mapping);
    if (&nested == lastGemm)
      buildTurnBarrier(builder, loc, turns->next, turns->threads,
                       /*wait=*/false);
    if (producer)
      forEachAsyncCopy(clone, stageValues, [&](Operation *copy) {
        copy->setAttr(kAsyncAttr, UnitAttr::get(op.getContext()));
      });
    else
      nested.walk([&](GemmOp original) {
        auto gemm = cast<GemmOp>(mapping.lookup(original.getOperation()));
        if (llvm::is_contained(plan.inFlight, original))
          gemm->setAttr(kWgmmaInFlightAttr, builder.getUnitAttr());
        // Only TMA writes the tiles, and shared memory outside the
        // pipeline was written before the op (fenced once at the start of
        // the role).
        if (plan.tma)
          gemm->setAttr(kTmaOperandsAttr, builder.getUnitAttr());
        // TMA has rounded its tf32 tiles.
        if (isTF32Wgmma(gemm))
          gemm->setAttr(kTF32RoundedAttr, builder.getUnitAttr());
      });
  }
  if (producer && plan.async) {
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
  if (producer) {
    nvgpu::MBarrierArriveOp::create(builder, loc, barriers, full);
    return;
  }
  if (plan.inFlight.empty() || plan.releaseEarly) {
    nvgpu::MBarrierArriveOp::create(builder, loc, barriers, emptyOf(stage));
    return;
  }
  // The gemms' wgmma.wait_group 1 has retired the previous iteration's
  // MMAs: their stage is free. (The last stage is never waited for: a
  // later run of the op re-initializes the barriers.)
  Value notFirst = arith::CmpIOp::create(
      builder, loc, arith::CmpIPredicate::ugt, iteration, constant(0));
  auto release = scf::IfOp::create(builder, loc, notFirst,
                                   /*withElseRegion=*/false);
  builder.setInsertionPoint(release.thenBlock()->getTerminator());
  Value previous = arith::RemUIOp::create(
      builder, loc,
      arith::AddIOp::create(builder, loc, iteration, constant(stages - 1)),
      constant(stages));
  nvgpu::MBarrierArriveOp::create(builder, loc, barriers, emptyOf(previous));
}

static void buildRole(OpBuilder &builder, Location loc, const Lowering &plan,
                      Region &region, Value linear, Value warp, Value count,
                      Value barriers, int64_t first, int64_t threads,
                      std::optional<int64_t> regs,
                      std::optional<int64_t> entryRegs, bool producer) {
  WarpSpecializeOp op = plan.op;
  int64_t stages = op.getStages();
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, value);
  };
  // Compared by warps, whose index is provably warp-uniform (a shuffle
  // from lane 0): ptxas serializes wgmmas on a path it thinks divergent
  // (C7520), as CUTLASS's canonical_warp_group_idx avoids too.
  Value inRole =
      first == 0
          ? arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult, warp,
                                  constant(threads / tile::kWarpSize))
          : arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::uge, warp,
                                  constant(first / tile::kWarpSize));
  auto branch = scf::IfOp::create(builder, loc, inRole,
                                  /*withElseRegion=*/false);
  branch->setAttr(kRoleFirstAttr, builder.getI64IntegerAttr(first));
  branch->setAttr(kRoleThreadsAttr, builder.getI64IntegerAttr(threads));
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(branch.thenBlock()->getTerminator());
  // The register handoff's mbarrier, after the stages' full and empty ones.
  int64_t handoff = 2 * stages;
  if (regs) {
    NVVM::SetMaxRegisterOp::create(builder, loc, static_cast<uint32_t>(*regs),
                                   producer
                                       ? NVVM::SetMaxRegisterAction::decrease
                                       : NVVM::SetMaxRegisterAction::increase);
    // Back to the count at entry when the role ends: the code after the op
    // runs in both roles' threads, and ptxas fits it into the smaller count
    // (with 40, it spilled the accumulator around the barrier after the op).
    if (*entryRegs != *regs && plan.restoreRegisters) {
      auto restore = NVVM::SetMaxRegisterOp::create(
          builder, loc, static_cast<uint32_t>(*entryRegs),
          producer ? NVVM::SetMaxRegisterAction::increase
                   : NVVM::SetMaxRegisterAction::decrease);
      // The consumers hand their registers over once they have given them
      // back (below).
      if (!producer && plan.registerHandoff)
        nvgpu::MBarrierArriveOp::create(builder, loc, barriers,
                                        constant(handoff));
      // The role's code goes between.
      builder.setInsertionPoint(restore);
      // setmaxnreg.inc takes whatever the pool holds, and retries until it
      // can. The producer's threads that issue nothing reach their end at
      // once: taking their registers back then could leave the consumers'
      // .inc short for good (the consumers wait for registers, the producer
      // for the consumers). So the producer waits until every consumer
      // thread has given its registers back, sleeping in the mbarrier's
      // try_wait: its .inc then succeeds at once. (Waiting only for the
      // consumers' .inc, as until 2026-11-29, left the producer's .inc
      // retrying for the whole of the consumers' work: a third of the
      // instructions an attention kernel issued.)
      if (producer && plan.registerHandoff) {
        auto wait = nvgpu::MBarrierTryWaitParityOp::create(
            builder, loc, barriers,
            arith::ConstantOp::create(builder, loc, builder.getBoolAttr(false)),
            constant(10000000), constant(handoff));
        builder.setInsertionPoint(wait);
      }
    }
  }

  if (!producer) {
    // The consumer's MMAs read shared memory outside the pipeline (written
    // before the op by the generic proxy) through the async proxy: one
    // fence here rather than one per gemm (the op only reads it).
    if (plan.tma && plan.readsOtherShared)
      NVVM::FenceProxyOp::create(
          builder, loc, NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(builder.getContext(),
                                     NVVM::SharedSpace::shared_cta));
    for (Operation *initialization : plan.consumerPrologue)
      initialization->moveBefore(builder.getInsertionBlock(),
                                 builder.getInsertionPoint());
    // The epilogue after the loop, the loop before it.
    for (Operation *epilogue : plan.consumerEpilogue)
      epilogue->moveBefore(builder.getInsertionBlock(),
                           builder.getInsertionPoint());
    if (!plan.consumerEpilogue.empty())
      builder.setInsertionPoint(plan.consumerEpilogue.front());
  }
  // With TMA, the role's first thread produces alone (the others go on to
  // the end of the role).
  if (producer && plan.tma) {
    Value isFirst = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::eq, linear, constant(first));
    auto issuer = scf::IfOp::create(builder, loc, isFirst,
                                    /*withElseRegion=*/false);
    builder.setInsertionPoint(issuer.thenBlock()->getTerminator());
    // The resident tiles first: the consumer's first gemm needs them.
    if (!plan.residentLoads.empty()) {
      Value resident = constant(plan.residentBarrier());
      nvgpu::MBarrierArriveExpectTxOp::create(builder, loc, barriers,
                                              constant(plan.residentBytes),
                                              resident, /*predicate=*/Value());
      IRMapping mapping;
      for (CopyOp copy : plan.residentLoads) {
        auto alloc = copy.getTarget().getDefiningOp<AllocSharedOp>();
        mapping.map(copy.getTarget(), copy.getTarget());
        buildTmaLoad(builder, copy, mapping, barriers, resident,
                     getTmaSwizzle(alloc));
      }
    }
  }
  if (!producer && !plan.residentLoads.empty() && !plan.skipResidentWait)
    nvgpu::MBarrierTryWaitParityOp::create(
        builder, loc, barriers,
        arith::ConstantOp::create(builder, loc, builder.getBoolAttr(false)),
        constant(10000000), constant(plan.residentBarrier()));
  // A transposed tf32 gemm in flight reads registers that the next
  // iteration would load again: two iterations per loop iteration give each
  // its own (the second under `it + 1 < N`).
  bool twice = !producer && llvm::any_of(plan.inFlight, [](GemmOp gemm) {
    return gemm.isTransposedWgmma();
  });
  std::optional<Turns> turns;
  if (!producer && plan.pingpong) {
    int64_t groups = threads / kWarpGroupThreads;
    Type i32 = builder.getI32Type();
    auto toI32 = [&](Value index) -> Value {
      return arith::IndexCastUIOp::create(builder, loc, i32, index);
    };
    Value group = arith::DivUIOp::create(
        builder, loc, warp, constant(kWarpGroupThreads / tile::kWarpSize));
    Value next = arith::RemUIOp::create(
        builder, loc, arith::AddIOp::create(builder, loc, group, constant(1)),
        constant(groups));
    turns = Turns{
        toI32(arith::AddIOp::create(builder, loc, group,
                                    constant(kTurnBarrier))),
        toI32(arith::AddIOp::create(builder, loc, next,
                                    constant(kTurnBarrier))),
        arith::ConstantIntOp::create(builder, loc, i32,
                                     2 * kWarpGroupThreads)};
    Value first = arith::ConstantIntOp::create(builder, loc, i32, kTurnBarrier);
    // The last group gives group 0 its first turn.
    auto opening = scf::IfOp::create(
        builder, loc,
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, group,
                              constant(groups - 1)),
        /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPoint(opening.thenBlock()->getTerminator());
      buildTurnBarrier(builder, loc, first, turns->threads, /*wait=*/false);
    }
    // After the loop group 0 takes the last group's final turn, so that no
    // barrier is left half arrived.
    auto closing = scf::IfOp::create(
        builder, loc,
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, group,
                              constant(0)),
        /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPoint(closing.thenBlock()->getTerminator());
      buildTurnBarrier(builder, loc, first, turns->threads, /*wait=*/true);
    }
    builder.setInsertionPoint(closing);
  }
  auto loop = scf::ForOp::create(builder, loc, constant(0), count,
                                 constant(twice ? 2 : 1));
  builder.setInsertionPoint(loop.getBody()->getTerminator());
  buildIteration(builder, loc, plan, region, loop.getInductionVar(), barriers,
                 producer, turns ? &*turns : nullptr);
  if (twice) {
    Value second = arith::AddIOp::create(builder, loc, loop.getInductionVar(),
                                         constant(1));
    auto inside = scf::IfOp::create(
        builder, loc,
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult, second,
                              count),
        /*withElseRegion=*/false);
    builder.setInsertionPoint(inside.thenBlock()->getTerminator());
    buildIteration(builder, loc, plan, region, second, barriers, producer,
                   turns ? &*turns : nullptr);
  }
}

/// The tiles of `op` that its consumer's tf32 wgmma gemms read, into
/// `plan.tf32Tiles`: TMA rounds them on the copy. An error when it cannot
/// (no TMA, or an operand from outside the pipeline).
static LogicalResult planTF32Rounding(WarpSpecializeOp op, Lowering &plan) {
  WalkResult walk = op.getConsumer().walk([&](GemmOp gemm) {
    if (!isTF32Wgmma(gemm))
      return WalkResult::advance();
    auto fail = [&](const Twine &why) {
      gemm.emitOpError("is a tf32 wgmma gemm in the consumer of a "
                       "'tile.warp_specialize', whose operand tiles TMA "
                       "rounds to tf32 on the copy; ")
          << why;
      return WalkResult::interrupt();
    };
    if (!plan.tma)
      return fail("its tiles are not copied by TMA (sm_90a, the producer "
                  "copying whole tiles from kernel arguments)");
    for (Value operand : {gemm.getA(), gemm.getB()}) {
      auto tiles = op.getTiles();
      auto tile = llvm::find(tiles, operand);
      if (tile == tiles.end())
        return fail("it reads a shared tile that is not one of the "
                    "pipeline's tiles");
      int64_t index = tile - tiles.begin();
      if (!llvm::is_contained(plan.tf32Tiles, index))
        plan.tf32Tiles.push_back(index);
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

static LogicalResult lower(WarpSpecializeOp op, bool tma, bool releaseEarly,
                           bool skipResidentWait,
                           std::optional<int64_t> entryRegs) {
  Location loc = op.getLoc();
  Lowering plan;
  plan.op = op;
  plan.tma = tma && canUseTma(op, plan.transactionBytes);
  if (failed(planTF32Rounding(op, plan)))
    return failure();
  for (Value tile : op.getTiles())
    plan.tiles.push_back(createStagedBuffer(tile.getDefiningOp<AllocSharedOp>(),
                                            op.getStages(), plan.tma));
  if (!plan.tma) {
    SmallVector<Value> stages(op.getBuffers().begin(), op.getBuffers().end());
    llvm::append_range(stages, op.getTiles());
    for (Operation &nested : op.getProducer().front())
      forEachAsyncCopy(&nested, stages,
                       [&](Operation *) { plan.async = true; });
  }
  if (tma)
    plan.inFlight = getOverlappableGemms(op.getConsumer());
  plan.consumerPrologue = getConsumerPrologue(op);
  plan.consumerEpilogue = getConsumerEpilogue(op);
  if (plan.tma)
    plan.residentLoads =
        getResidentLoads(op, plan.consumerEpilogue, plan.residentBytes);
  // Tiles TMA writes need no proxy fence before the MMAs read them.
  llvm::SmallPtrSet<Value, 2> residentTiles;
  for (CopyOp copy : plan.residentLoads)
    residentTiles.insert(copy.getTarget());
  op.getConsumer().walk([&](GemmOp gemm) {
    for (Value operand : {gemm.getA(), gemm.getB()}) {
      if (!isSharedMemory(operand) ||
          llvm::is_contained(op.getTiles(), operand))
        continue;
      // A resident tile, or a choice among resident tiles (a select).
      SmallVector<AllocSharedOp> chosen = getSelectedSharedTiles(operand);
      if (chosen.empty() || !llvm::all_of(chosen, [&](AllocSharedOp alloc) {
            return residentTiles.contains(alloc.getResult());
          }))
        plan.readsOtherShared = true;
    }
  });
  plan.releaseEarly = releaseEarly;
  plan.skipResidentWait = skipResidentWait;
  // The turns order wgmma issue; elsewhere (mma.sync, the CPU target's
  // scalar gemms) there is nothing to take turns for.
  plan.pingpong = op.getPingpong() &&
                  op.getConsumer()
                      .walk([](GemmOp gemm) {
                        return gemm.getLowering() == GemmLowering::wgmma
                                   ? WalkResult::interrupt()
                                   : WalkResult::advance();
                      })
                      .wasInterrupted();
  plan.restoreRegisters = !isLastInKernel(op, plan.consumerEpilogue);
  if (entryRegs && plan.restoreRegisters) {
    int64_t entry = *entryRegs;
    plan.registerHandoff = static_cast<int64_t>(
        op.getProducerRegs().value_or(entry))<entry &&static_cast<int64_t>(
        op.getConsumerRegs().value_or(entry))>
        entry;
  }

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
      plan.barrierCount());
  Value barriers = nvgpu::MBarrierCreateOp::create(builder, loc, groupType);
  Value linear = buildLinearThreadId(builder, loc, kernel);
  Type i32 = builder.getI32Type();
  auto constantI32 = [&](int32_t value) -> Value {
    return arith::ConstantIntOp::create(builder, loc, i32, value);
  };
  Value warp =
      gpu::ShuffleOp::create(
          builder, loc,
          arith::IndexCastUIOp::create(
              builder, loc, i32,
              arith::DivUIOp::create(builder, loc, linear,
                                     constant(tile::kWarpSize))),
          constantI32(0), constantI32(tile::kWarpSize), gpu::ShuffleMode::IDX)
          .getShuffleResult();
  warp =
      arith::IndexCastUIOp::create(builder, loc, builder.getIndexType(), warp);
  // full[s] counts each producer thread's explicit arrive, and its cp.async
  // completion arrive when it copies asynchronously; with TMA, the one
  // arrive.expect_tx of the thread that issues the copies.
  int64_t fullCount =
      plan.tma ? 1 : op.getProducerThreads() * (plan.async ? 2 : 1);
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
    if (plan.registerHandoff)
      nvgpu::MBarrierInitOp::create(builder, loc, barriers,
                                    constant(op.getConsumerThreads()),
                                    constant(2 * stages),
                                    /*predicate=*/Value());
    if (!plan.residentLoads.empty())
      nvgpu::MBarrierInitOp::create(builder, loc, barriers, constant(1),
                                    constant(plan.residentBarrier()),
                                    /*predicate=*/Value());
    if (plan.tma)
      NVVM::FenceMbarrierInitOp::create(builder, loc);
  }
  // TMA writes the resident tiles: aligned as it needs, and no longer
  // copied before the op.
  for (CopyOp copy : plan.residentLoads) {
    auto alloc = copy.getTarget().getDefiningOp<AllocSharedOp>();
    int64_t alignment = alloc.isSwizzled() ? kSwizzleAtomBytes : 128;
    if (alloc.getEffectiveAlignment() < alignment)
      alloc.setAlignment(alignment);
  }
  createCompilerBarrier(builder, loc, "tile-lower-warp-specialize");
  Value count = buildTripCount(builder, loc, op.getLowerBound(),
                               op.getUpperBound(), op.getStep());
  // The producer's role comes first in the code, though its threads come
  // last: what the consumer computes (an accumulator of 128 registers) is
  // then not live across the producer's code, which setmaxnreg leaves few
  // registers (LLVM cannot tell that the producer's threads never use it).
  int64_t consumers = op.getConsumerThreads();
  buildRole(builder, loc, plan, op.getProducer(), linear, warp, count,
            barriers, consumers, op.getProducerThreads(), op.getProducerRegs(),
            entryRegs, /*producer=*/true);
  buildRole(builder, loc, plan, op.getConsumer(), linear, warp, count,
            barriers, 0, consumers, op.getConsumerRegs(), entryRegs,
            /*producer=*/false);
  // Every role is done with the mbarriers before anything after the op (a
  // later run of the same op re-initializes them).
  createCompilerBarrier(builder, loc, "tile-lower-warp-specialize");
  SmallVector<Value> tiles(op.getTiles().begin(), op.getTiles().end());
  op.erase();
  for (CopyOp copy : plan.residentLoads)
    copy.erase();
  for (Value tile : tiles)
    if (tile.use_empty())
      tile.getDefiningOp()->erase();
  return success();
}

namespace {

struct TileLowerWarpSpecialize
    : tile::impl::TileLowerWarpSpecializeBase<TileLowerWarpSpecialize> {
  using Base::Base;

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
    // ignores it otherwise. The block's share of the register file (all of
    // it, or its part when the kernel asks for several blocks per SM), in
    // 8s, no more than what a consumer asks for (setmaxnreg.inc cannot
    // lower the count) and no less than what a producer keeps (.dec cannot
    // raise it).
    KernelOp kernel = getOperation();
    int64_t blocksPerSM = kernel.getMinBlocksPerSm().value_or(1);
    std::optional<int64_t> entry;
    for (WarpSpecializeOp op : ops) {
      if (!op.getProducerRegs() && !op.getConsumerRegs())
        continue;
      int64_t registers =
          std::min<int64_t>(255, kRegistersPerSM /
                                     (kernel.getNumThreads() * blocksPerSM)) /
          8 * 8;
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
                       "the same regs (the kernel's register count at entry "
                       "is chosen for them)")
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
              << " at entry"
              << (blocksPerSM > 1 ? ", " + std::to_string(blocksPerSM) +
                                        " blocks per SM"
                                  : std::string())
              << "): setmaxnreg.inc would wait forever";
          return signalPassFailure();
        }
      }
      kernel->setAttr(
          kMaxRegistersAttr,
          IntegerAttr::get(IntegerType::get(&getContext(), 32), *entry));
    }
    for (WarpSpecializeOp op : ops)
      if (failed(lower(op, tma, testReleaseEarly, testSkipResidentWait,
                       entry)))
        return signalPassFailure();
  }
};

} // namespace
