//===- InsertBarriers.cpp - Place barriers where shared memory races ------===//
//
// Walks the kernel body in program order with the set of shared-memory
// accesses made since the last barrier ("pending"). Before an op whose
// accesses conflict with a pending one (read-after-write, write-after-read,
// write-after-write, by different threads), it inserts `tile.barrier` and
// clears the set. Loops are walked with the accesses their previous
// iteration leaves pending, so hazards carried around a loop get a barrier in
// the body. Control flow that depends on the thread is never entered: its
// accesses are checked against the pending set as a whole (a barrier goes
// before it, hoisted), and a hazard between two accesses inside it is
// reported as an error, since no barrier can be placed there. A
// `tile.warp_specialize` opens and closes with barriers of its own (its
// lowering's): nothing is pending across it.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "tile/Dialect/Tile/Analysis/SharedMemoryAccess.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-insert-barriers"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEINSERTBARRIERS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

using Accesses = SmallVector<SharedAccess>;

/// Drops repeated accesses (same op, buffer, direction and carrying loop:
/// the rest follows from the op). Merging branches and loop iterations
/// repeats the accesses that were pending before them; without this the
/// pending set grows with every nesting level.
static void removeDuplicates(Accesses &accesses) {
  llvm::DenseSet<std::tuple<Operation *, Operation *, void *, unsigned>> seen;
  llvm::erase_if(accesses, [&](const SharedAccess &access) {
    unsigned direction = unsigned(access.reads) | unsigned(access.writes) << 1;
    return !seen
                .insert({access.op, access.carriedAcross,
                         access.buffer.getAsOpaquePointer(), direction})
                .second;
  });
}

/// Returns true for barriers of the whole block (a named barrier with a
/// thread count waits for part of it only).
static bool isBarrier(Operation *op) {
  StringRef name = op->getName().getStringRef();
  return isa<BarrierOp, gpu::BarrierOp>(op) || name == "nvvm.barrier0" ||
         (name == "nvvm.barrier" && op->getNumOperands() == 0);
}

/// Returns true for ops whose lowering opens and closes with a barrier of
/// the whole block: `tile.warp_specialize` (tile-lower-warp-specialize puts
/// one after the mbarrier initialization and one after the roles). What
/// precedes such an op is ordered with everything in and after it, and what
/// it does with everything after it: nothing is pending at either end, and
/// a tile written before it and read after it (a fused epilogue's bias)
/// needs no barrier of its own.
static bool isBracketedByBarriers(Operation *op) {
  return isa<WarpSpecializeOp>(op);
}

/// Names an access for diagnostics: "'memref.store' writing".
static std::string describe(const SharedAccess &access) {
  std::string text = "'" + access.op->getName().getStringRef().str() + "'";
  if (access.atomic)
    return text + " (atomic)";
  if (access.writes && access.reads)
    return text + " reading and writing";
  return text + (access.writes ? " writing" : " reading");
}

namespace {

class BarrierPlacer {
public:
  BarrierPlacer(KernelOp kernel) : analysis(kernel) {}

  /// Walks `block` given the accesses pending at its start, leaves in
  /// `pending` those pending at its end. With `insert` false, nothing is
  /// changed: barriers are only simulated. Returns true when a barrier
  /// certainly runs in the block.
  FailureOr<bool> walkBlock(Block &block, Accesses &pending, bool insert);

  unsigned getNumInserted() const { return numInserted; }

private:
  /// Returns the first pending access that conflicts with one of `accesses`.
  std::optional<std::pair<SharedAccess, SharedAccess>>
  findConflict(const Accesses &pending, const Accesses &accesses) const {
    for (const SharedAccess &later : accesses)
      for (const SharedAccess &earlier : pending)
        if (analysis.mayConflict(earlier, later))
          return std::make_pair(earlier, later);
    return std::nullopt;
  }

  /// Places a barrier before `op` (or pretends to).
  void placeBarrier(Operation *op, Accesses &pending, bool insert,
                    const SharedAccess &earlier, const SharedAccess &later) {
    pending.clear();
    if (!insert)
      return;
    LLVM_DEBUG(llvm::dbgs() << "barrier before " << *later.op << "\n  after "
                            << *earlier.op << "\n");
    OpBuilder builder(op);
    createCompilerBarrier(builder, op->getLoc(), "tile-insert-barriers");
    ++numInserted;
  }

  /// Collects the accesses `block` makes before a barrier it surely runs
  /// (its own, or one of the first iteration of a loop that surely runs);
  /// returns true if there is such a barrier.
  bool collectUntilBarrier(Block &block, Accesses &accesses) const;

  FailureOr<bool> walkDivergent(Operation *op, Accesses &pending,
                                bool insert);
  FailureOr<bool> walkLoop(Operation *loop, Accesses &pending, bool insert);

  SharedMemoryAccessAnalysis analysis;
  unsigned numInserted = 0;
};

} // namespace

/// A region op whose control flow depends on the thread: barriers cannot go
/// inside, so its accesses count as one; hazards among them are errors.
FailureOr<bool> BarrierPlacer::walkDivergent(Operation *op,
                                             Accesses &pending, bool insert) {
  Accesses inside;
  analysis.collect(op, inside);
  bool placed = false;
  if (auto conflict = findConflict(pending, inside)) {
    placeBarrier(op, pending, insert, conflict->first, conflict->second);
    placed = true;
  }

  // Simulations only need the pending set; the real walk reports errors.
  // Every pair is checked as is, and, when a loop inside `op` (or `op`
  // itself) encloses both, with the first from an earlier iteration.
  auto innermostCommonLoop = [&](Operation *a, Operation *b) -> Operation * {
    for (Operation *loop = a->getParentOp(); loop;
         loop = loop->getParentOp()) {
      if (isa<LoopLikeOpInterface, scf::WhileOp>(loop) && loop->isAncestor(b))
        return loop;
      if (loop == op)
        break;
    }
    return nullptr;
  };
  for (size_t later = 0; insert && later < inside.size(); ++later) {
    for (size_t earlier = 0; earlier < inside.size(); ++earlier) {
      bool conflict =
          earlier != later &&
          analysis.mayConflict(inside[earlier], inside[later]);
      if (!conflict) {
        Operation *loop =
            innermostCommonLoop(inside[earlier].op, inside[later].op);
        if (!loop)
          continue;
        SharedAccess previous = inside[earlier];
        previous.carriedAcross = loop;
        conflict = analysis.mayConflict(previous, inside[later]);
      }
      if (!conflict)
        continue;
      const SharedAccess &first = inside[std::min(earlier, later)];
      const SharedAccess &second = inside[std::max(earlier, later)];
      InFlightDiagnostic diag =
          second.op->emitError("shared-memory race: ")
          << describe(second) << " may touch an element that "
          << describe(first)
          << " touches from another thread, and no barrier can separate "
             "them inside control flow that depends on the thread index; "
             "move the accesses out of it or make its condition uniform";
      diag.attachNote(first.op->getLoc()) << "the other access";
      diag.attachNote(op->getLoc())
          << "thread-dependent control flow: '" << op->getName() << "'";
      return failure();
    }
  }
  pending.append(inside.begin(), inside.end());
  return placed;
}

/// Returns the trip count of a loop whose bounds and step are constants.
static std::optional<int64_t> getStaticTripCount(LoopLikeOpInterface loop) {
  std::optional<SmallVector<OpFoldResult>> lbs = loop.getLoopLowerBounds();
  std::optional<SmallVector<OpFoldResult>> ubs = loop.getLoopUpperBounds();
  std::optional<SmallVector<OpFoldResult>> steps = loop.getLoopSteps();
  if (!lbs || !ubs || !steps || lbs->size() != 1)
    return std::nullopt;
  std::optional<int64_t> lb = getConstantIntValue((*lbs)[0]);
  std::optional<int64_t> ub = getConstantIntValue((*ubs)[0]);
  std::optional<int64_t> step = getConstantIntValue((*steps)[0]);
  if (!lb || !ub || !step || *step <= 0)
    return std::nullopt;
  return *ub > *lb ? llvm::divideCeil(*ub - *lb, *step) : 0;
}

bool BarrierPlacer::collectUntilBarrier(Block &block,
                                        Accesses &accesses) const {
  for (Operation &op : block) {
    if (isBarrier(&op) || isBracketedByBarriers(&op))
      return true;
    auto loop = dyn_cast<LoopLikeOpInterface>(&op);
    std::optional<int64_t> trips =
        loop ? getStaticTripCount(loop) : std::nullopt;
    if (trips && *trips > 0 && op.getNumRegions() == 1 &&
        op.getRegion(0).hasOneBlock()) {
      if (collectUntilBarrier(op.getRegion(0).front(), accesses))
        return true;
      continue;
    }
    analysis.collect(&op, accesses);
  }
  return false;
}

/// A loop with uniform trip count: the body is walked with what the previous
/// iteration leaves pending.
FailureOr<bool> BarrierPlacer::walkLoop(Operation *loop, Accesses &pending,
                                        bool insert) {
  Block &body = loop->getRegion(0).front();
  // A hazard with what precedes the loop gets one barrier before it, not one
  // per iteration. Only the accesses an iteration makes before its first
  // barrier can meet what precedes the loop.
  Accesses inside;
  for (Operation &op : body) {
    if (isBarrier(&op) || isBracketedByBarriers(&op))
      break;
    analysis.collect(&op, inside);
  }
  bool placedBefore = false;
  Accesses beforeLoop = pending;
  if (auto conflict = findConflict(pending, inside)) {
    placeBarrier(loop, pending, insert, conflict->first, conflict->second);
    placedBefore = true;
  }
  // What one iteration leaves pending, entered with what precedes the loop.
  Accesses carried = pending;
  FailureOr<bool> simulated = walkBlock(body, carried, /*insert=*/false);
  if (failed(simulated))
    return failure();
  Accesses entry = pending;
  for (SharedAccess access : carried) {
    access.carriedAcross = loop;
    entry.push_back(std::move(access));
  }
  FailureOr<bool> hasBarrier = walkBlock(body, entry, insert);
  if (failed(hasBarrier))
    return failure();
  // After the loop: the last iteration's accesses, and what preceded the loop
  // when the body has no barrier or may not run.
  std::optional<int64_t> trips =
      getStaticTripCount(cast<LoopLikeOpInterface>(loop));
  bool runsBarrier = *hasBarrier && trips && *trips > 0;
  // The body may have got a barrier of its own that precedes every access
  // meeting what precedes the loop (a loop-carried hazard needed it): then
  // the barrier before the loop is redundant. Only when the body surely
  // runs its barrier, so that what is pending after the loop is the same
  // either way.
  if (insert && placedBefore && runsBarrier)
    if (Operation *barrier = loop->getPrevNode();
        barrier && isBarrier(barrier) && barrier->hasAttr(kInsertedByAttr)) {
      Accesses firstAccesses;
      collectUntilBarrier(body, firstAccesses);
      if (!findConflict(beforeLoop, firstAccesses)) {
        LLVM_DEBUG(llvm::dbgs() << "barrier before " << *loop
                                << " is redundant: removed\n");
        barrier->erase();
        --numInserted;
        placedBefore = false;
      }
    }
  for (SharedAccess &access : entry)
    access.carriedAcross = nullptr;
  if (runsBarrier)
    pending = std::move(entry);
  else
    pending.append(entry.begin(), entry.end());
  removeDuplicates(pending);
  return runsBarrier || placedBefore;
}

FailureOr<bool> BarrierPlacer::walkBlock(Block &block, Accesses &pending,
                                         bool insert) {
  bool sawBarrier = false;
  for (Operation &opRef : llvm::make_early_inc_range(block)) {
    Operation *op = &opRef;
    if (isBarrier(op) || isBracketedByBarriers(op)) {
      pending.clear();
      sawBarrier = true;
      continue;
    }
    bool atomicUnit =
        op->getNumRegions() == 0 || isa<ParallelOp, CopyOp, FillOp, ClearOp,
                                        ThreadAllReduceOp, ForEachOwnedOp>(op);
    if (atomicUnit) {
      Accesses accesses;
      analysis.collect(op, accesses);
      if (auto conflict = findConflict(pending, accesses)) {
        placeBarrier(op, pending, insert, conflict->first, conflict->second);
        sawBarrier = true;
      }
      pending.append(accesses.begin(), accesses.end());
      continue;
    }
    // Thread-dependent control flow, and scf.while (its trip count is not
    // known to be uniform), are walked as one unit.
    if (analysis.getUniformity().isDivergentRegionHolder(op) ||
        isa<scf::WhileOp>(op)) {
      FailureOr<bool> placed = walkDivergent(op, pending, insert);
      if (failed(placed))
        return failure();
      sawBarrier |= *placed;
      continue;
    }
    // Uniform loops: one region with one block, iterated.
    if (isa<LoopLikeOpInterface>(op) && op->getNumRegions() == 1 &&
        op->getRegion(0).hasOneBlock()) {
      FailureOr<bool> barrier = walkLoop(op, pending, insert);
      if (failed(barrier))
        return failure();
      sawBarrier |= *barrier;
      continue;
    }
    // Other uniform region ops (scf.if, scf.execute_region): each region
    // runs at most once; what any of them leaves is pending afterwards.
    Accesses merged;
    bool allRegionsBarrier = true;
    bool anyRegion = false;
    for (Region &region : op->getRegions()) {
      if (region.empty()) {
        allRegionsBarrier = false;
        merged.append(pending.begin(), pending.end());
        continue;
      }
      if (!region.hasOneBlock()) {
        // Unstructured control flow: treat it as one divergent unit.
        FailureOr<bool> placed = walkDivergent(op, pending, insert);
        if (failed(placed))
          return failure();
        sawBarrier |= *placed;
        anyRegion = false;
        break;
      }
      anyRegion = true;
      Accesses branch = pending;
      FailureOr<bool> barrier = walkBlock(region.front(), branch, insert);
      if (failed(barrier))
        return failure();
      allRegionsBarrier &= *barrier;
      merged.append(branch.begin(), branch.end());
    }
    if (!anyRegion)
      continue;
    // An scf.if without else may skip its region entirely.
    if (auto ifOp = dyn_cast<scf::IfOp>(op); ifOp && ifOp.getElseRegion().empty()) {
      allRegionsBarrier = false;
      merged.append(pending.begin(), pending.end());
    }
    pending = std::move(merged);
    removeDuplicates(pending);
    sawBarrier |= allRegionsBarrier;
  }
  return sawBarrier;
}

namespace {

struct TileInsertBarriersPass
    : tile::impl::TileInsertBarriersBase<TileInsertBarriersPass> {
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    BarrierPlacer placer(kernel);
    Accesses pending;
    if (failed(placer.walkBlock(kernel.getBody().front(), pending,
                                /*insert=*/true)))
      return signalPassFailure();
    LLVM_DEBUG(llvm::dbgs() << kernel.getSymName() << ": "
                            << placer.getNumInserted()
                            << " barrier(s) inserted\n");
  }
};

} // namespace
