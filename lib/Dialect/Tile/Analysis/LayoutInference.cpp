//===- LayoutInference.cpp - Which thread holds which fragment element ----===//
//
// Fragments that must share a layout (touched by one tile.parallel, or the
// two sides of a fragment-to-fragment copy) form groups (union-find). Ops
// that fix a layout (an explicit layout on the allocation, the accumulator
// of a tile.gemm) seed their group; a group fixed twice differently is an
// error naming both ops; a group left free gets the blocked layout. This is
// TileLang's strict -> common -> free order, with groups instead of a
// worklist: the constraints are equalities, so one pass suffices.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Analysis/LayoutInference.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "tile/Dialect/Tile/IR/Swizzle.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-infer-layouts"

using namespace mlir;
using namespace mlir::tile;

AllocFragmentOp tile::getFragmentAllocation(Value value) {
  return value.getDefiningOp<AllocFragmentOp>();
}

/// Prints `[a, b]`.
static std::string formatPair(int64_t a, int64_t b) {
  return "[" + std::to_string(a) + ", " + std::to_string(b) + "]";
}

/// True when every use of `alloc` is one whose addresses tile-apply-swizzles
/// rewrites (or a tile op lowered into such accesses): only then is
/// swizzling it without being asked safe. A pipeline that stages the tile
/// makes its stages swizzled views.
static bool canSwizzleUses(Value buffer) {
  return llvm::all_of(buffer.getUsers(), [](Operation *user) {
    // A tile chosen at run time is used as the tiles it chooses among.
    if (auto select = dyn_cast<arith::SelectOp>(user))
      return canSwizzleUses(select.getResult());
    return isa<memref::LoadOp, memref::StoreOp, vector::LoadOp,
               vector::StoreOp, CopyOp, FillOp, ClearOp, GemmOp>(user) ||
           isa<WarpSpecializeOp>(user);
  });
}
static bool canSwizzleUses(AllocSharedOp alloc) {
  return canSwizzleUses(alloc.getResult());
}

namespace {

/// The layout a group of fragments has, and the op that fixed it.
struct Fixed {
  LayoutAttr layout;
  Operation *source = nullptr;
  std::string why;
};

class LayoutInference {
public:
  explicit LayoutInference(KernelOp kernel) : kernel(kernel) {}

  FailureOr<LayoutAssignment> run() {
    SmallVector<AllocFragmentOp> allocations;
    kernel.getBody().walk(
        [&](AllocFragmentOp alloc) { allocations.push_back(alloc); });
    for (AllocFragmentOp alloc : allocations) {
      groups.insert(alloc.getOperation());
      if (failed(checkUses(alloc)))
        return failure();
    }
    // Strict: explicit layouts, then gemm accumulators.
    for (AllocFragmentOp alloc : allocations)
      if (LayoutAttr layout = alloc.getLayoutAttr())
        if (failed(fix(alloc, layout, alloc, "its explicit layout")))
          return failure();
    // Groups read as a gemm's A operand: the gemms that make them split
    // their warps along M only, as the reader must.
    kernel.getBody().walk([&](GemmOp gemm) {
      if (AllocFragmentOp a = getFragmentAllocation(gemm.getA()))
        aOperandGroups.insert(groups.getLeaderValue(a.getOperation()));
    });
    WalkResult walk = kernel.getBody().walk([&](GemmOp gemm) {
      return failed(seedGemm(gemm)) ? WalkResult::interrupt()
                                    : WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
    // Reduced layouts follow the layouts they are reduced from.
    if (failed(propagateReductions()))
      return failure();
    // Free: the blocked layout, for fragments no reduction defines first
    // (a reduction's target takes its source's layout once that is known).
    for (bool targetsToo : {false, true}) {
      for (AllocFragmentOp alloc : allocations) {
        if (fixedLayout(alloc) || (!targetsToo && isReductionTarget(alloc)))
          continue;
        if (failed(fixBlocked(alloc)) || failed(propagateReductions()))
          return failure();
      }
    }

    LayoutAssignment result;
    for (AllocFragmentOp alloc : allocations)
      result.fragments[alloc] = fixedLayout(alloc);
    result.gemmWarps = gemmWarps;
    for (auto [parallel, member] : parallelMembers)
      result.parallels[parallel] = fixedLayout(member);
    result.descriptorOperands = descriptorOperands.takeVector();
    for (AllocSharedOp alloc : result.descriptorOperands)
      if (!alloc.isSwizzled())
        result.swizzled.push_back(alloc);
    kernel.getBody().walk([&](GemmOp gemm) {
      for (Value operand : {gemm.getA(), gemm.getB()}) {
        // The tiles a select chooses among are swizzled together or not
        // at all: the gemm addresses them alike.
        SmallVector<AllocSharedOp> allocs = getSelectedSharedTiles(operand);
        bool swizzlable = !allocs.empty();
        for (AllocSharedOp alloc : allocs)
          swizzlable &= !alloc.getSwizzle() &&
                        !whyNotSwizzlable(alloc.getType()) &&
                        canSwizzleUses(alloc);
        if (!swizzlable)
          continue;
        for (AllocSharedOp alloc : allocs)
          if (!llvm::is_contained(result.swizzled, alloc))
            result.swizzled.push_back(alloc);
      }
    });
    return result;
  }

private:
  /// A fragment whose layout is another one's reduced along `dim`: the
  /// target of a tile.reduce, or a fragment a tile.parallel reads at its
  /// induction variables without `dim` (a broadcast of a reduced row).
  struct Reduction {
    /// The reduced fragment, or the tile.parallel whose layout is reduced.
    AllocFragmentOp source;
    ParallelOp parallel;
    int64_t dim;
    AllocFragmentOp target;
    Operation *op;
  };

  bool isReductionTarget(AllocFragmentOp alloc) {
    Operation *leader = groups.getLeaderValue(alloc.getOperation());
    return llvm::any_of(reductions, [&](Reduction &reduction) {
      return groups.getLeaderValue(reduction.target.getOperation()) == leader;
    });
  }

  /// Gives each reduction target its source's layout reduced along the
  /// dimension, until nothing changes; a target fixed otherwise is a
  /// conflict.
  LogicalResult propagateReductions() {
    for (bool changed = true; changed;) {
      changed = false;
      for (Reduction &reduction : reductions) {
        LayoutAttr from;
        if (reduction.source) {
          from = fixedLayout(reduction.source);
        } else {
          auto member = parallelMembers.find(reduction.parallel.getOperation());
          if (member == parallelMembers.end())
            return reduction.parallel.emitOpError(
                       "reads a reduced fragment (a broadcast along dimension ")
                   << reduction.dim
                   << ") but touches no fragment of its whole index space, "
                      "whose layout it would iterate in";
          from = fixedLayout(member->second);
        }
        if (!from)
          continue;
        LayoutAttr reduced = getReducedLayout(from, reduction.dim);
        // The same rows in the same threads (registers numbered otherwise,
        // from a source of another width) are one layout to the lowering.
        if (LayoutAttr current = fixedLayout(reduction.target))
          if (isSameDistribution(current, reduced))
            continue;
        if (failed(fix(reduction.target, reduced, reduction.op,
                       "the layout of the fragment it reduces, without "
                       "dimension " +
                           std::to_string(reduction.dim))))
          return failure();
        changed = true;
      }
    }
    return success();
  }

  /// Gives `alloc`'s group the blocked layout.
  LogicalResult fixBlocked(AllocFragmentOp alloc) {
    MemRefType type = alloc.getResult().getType();
    int64_t threads = getThreads(alloc);
    std::optional<int64_t> run =
        getBlockedRun(type.getShape(), threads, type.getElementType());
    if (!run)
      return alloc.emitOpError("a fragment of ")
             << type.getNumElements()
             << " elements cannot be spread evenly over the block's " << threads
             << " threads";
    LayoutAttr layout =
        getBlockedLayout(kernel.getContext(), type.getShape(), threads, *run);
    return fix(alloc, layout, alloc, "the blocked layout");
  }

  /// The threads `alloc` is spread over: its consumer role's, or the
  /// block's.
  int64_t getThreads(AllocFragmentOp alloc) {
    auto it = roleThreads.find(alloc.getOperation());
    return it == roleThreads.end() ? kernel.getNumThreads() : it->second;
  }

  /// The layout of `alloc`'s group, or null.
  LayoutAttr fixedLayout(AllocFragmentOp alloc) {
    auto it = fixed.find(groups.getLeaderValue(alloc.getOperation()));
    return it == fixed.end() ? LayoutAttr() : it->second.layout;
  }

  /// Fixes the layout of `alloc`'s group, or reports the conflict.
  LogicalResult fix(AllocFragmentOp alloc, LayoutAttr layout, Operation *source,
                    StringRef why) {
    Operation *leader = groups.getLeaderValue(alloc.getOperation());
    auto [it, inserted] =
        fixed.try_emplace(leader, Fixed{layout, source, why.str()});
    if (inserted || it->second.layout == layout)
      return success();
    InFlightDiagnostic diag =
        source->emitError("conflicting fragment layouts: this op needs ")
        << why << " for the fragment at " << alloc.getLoc()
        << ", but another op fixed a different one (to keep both, copy "
           "between two fragments with 'convert_layout': through shared "
           "memory)";
    diag.attachNote(it->second.source->getLoc())
        << "this op fixed " << it->second.why;
    return diag;
  }

  /// The accumulator layout of `gemm`, with its warp grid, and the layout
  /// of a fragment A operand.
  LogicalResult seedGemm(GemmOp gemm) {
    AllocFragmentOp alloc = getFragmentAllocation(gemm.getC());
    if (!alloc)
      return gemm.emitOpError("operand C must be a 'tile.alloc_fragment' "
                              "(not a view of one)");
    AllocFragmentOp a = getFragmentAllocation(gemm.getA());
    if (!a && isFragment(gemm.getA()))
      return gemm.emitOpError("operand A must be a 'tile.alloc_fragment' "
                              "(not a view of one)");
    int64_t m = gemm.getM(), n = gemm.getN(), k = gemm.getK();
    int64_t warps = getRoleThreads(gemm).second / kWarpSize;
    if (getThreads(alloc) != warps * kWarpSize)
      return gemm.emitOpError("runs on ")
             << warps * kWarpSize << " threads, but its accumulator is also "
             << "used by " << getThreads(alloc)
             << " (the block, or a pipeline's consumer role): a fragment "
                "lives in one set of threads";
    // A fragment A operand is held by the warps that hold its rows, whole:
    // its gemm, and the gemm that computes it, split M only.
    bool splitMOnly =
        a || aOperandGroups.contains(groups.getLeaderValue(alloc.getOperation()));
    std::pair<int64_t, int64_t> grid;
    if (std::optional<ArrayRef<int64_t>> given = gemm.getWarps()) {
      grid = {(*given)[0], (*given)[1]};
    } else if (gemm.getLowering() == GemmLowering::wgmma) {
      // The op verifier checked the shape: one warp per 16 rows (of C^T
      // when the product is computed transposed).
      grid = gemm.isTransposedWgmma() ? std::make_pair(int64_t(1), warps)
                                      : std::make_pair(warps, int64_t(1));
      if (failed(seedDescriptorOperands(gemm)))
        return failure();
    } else if (splitMOnly) {
      if (m % (warps * kMmaTileRows) != 0)
        return gemm.emitOpError("splits its ")
               << warps << " warps along M only ("
               << (a ? "its A operand is a fragment"
                     : "its accumulator feeds a gemm's A operand")
               << "), which needs M a multiple of 16 x " << warps
               << ", got " << m;
      grid = {warps, 1};
    } else {
      std::optional<std::pair<int64_t, int64_t>> chosen =
          chooseMmaWarps(m, n, warps);
      if (!chosen)
        return gemm.emitOpError("no split of the block's ")
               << warps << " warps gives each warp whole 16x8 tiles of the "
               << m << "x" << n
               << " accumulator: make M a multiple of 16 x (warps along M) "
                  "and N of 8 x (warps along N)";
      grid = *chosen;
    }
    gemmWarps[gemm] = grid;
    if (gemm.getLowering() == GemmLowering::wgmma &&
        gemm.isTransposedWgmma()) {
      // C^T = B^T A^T: C holds the accumulator of the N x M product.
      LayoutAttr layout = getTransposedLayout(
          getMmaAccumulatorLayout(kernel.getContext(), {n, m}, warps, 1));
      return fix(alloc, layout, gemm,
                 "the transposed wgmma accumulator layout (tf32 with B "
                 "stored K x N) with warps " +
                     formatPair(grid.first, grid.second));
    }
    LayoutAttr layout = getMmaAccumulatorLayout(kernel.getContext(), {m, n},
                                                grid.first, grid.second);
    if (failed(fix(alloc, layout, gemm,
                   "the mma accumulator layout with warps " +
                       formatPair(grid.first, grid.second))))
      return failure();
    if (!a)
      return success();
    LayoutAttr aLayout = getMmaAccumulatorLayout(kernel.getContext(), {m, k},
                                                 grid.first, 1);
    if (!aLayout)
      return gemm.emitOpError("a fragment A operand needs K a multiple of "
                              "8, got ")
             << k;
    return fix(a, aLayout, gemm,
               "the mma A-operand layout with warps " +
                   formatPair(grid.first, 1));
  }

  /// The shared operands of a wgmma gemm are read through descriptors:
  /// whole allocations, swizzled, aligned to a 1024-byte swizzle atom.
  LogicalResult seedDescriptorOperands(GemmOp gemm) {
    for (auto [name, operand] :
         {std::make_pair("A", gemm.getA()), std::make_pair("B", gemm.getB())}) {
      // A fragment A operand is read from registers.
      if (isFragment(operand))
        continue;
      SmallVector<AllocSharedOp> allocs = getSelectedSharedTiles(operand);
      if (allocs.empty())
        return gemm.emitOpError("wgmma lowering reads operand ")
               << name
               << " through a shared-memory descriptor: it must be a whole "
                  "'tile.alloc_shared' buffer (or an 'arith.select' of "
                  "such buffers), not a view";
      for (AllocSharedOp alloc : allocs) {
        if (alloc.getSwizzle() && !alloc.isSwizzled())
          return gemm.emitOpError("wgmma lowering reads operand ")
                 << name
                 << " as a 128-byte swizzled tile, but its allocation asks "
                    "for swizzle = 0";
        if (std::optional<std::string> why = whyNotSwizzlable(alloc.getType()))
          return gemm.emitOpError("wgmma lowering reads operand ")
                 << name << " as a 128-byte swizzled tile, but " << *why;
        if (!canSwizzleUses(alloc))
          return gemm.emitOpError("wgmma lowering reads operand ")
                 << name
                 << " as a 128-byte swizzled tile, but another use of it "
                    "cannot address a swizzled tile";
        descriptorOperands.insert(alloc);
      }
    }
    return success();
  }

  /// Checks every use of a fragment and records the groups it joins.
  LogicalResult checkUses(AllocFragmentOp alloc) {
    Value fragment = alloc.getResult();
    for (OpOperand &use : fragment.getUses()) {
      Operation *user = use.getOwner();
      // A fragment used in a pipeline's consumer role lives in its
      // threads, the block's first; the producer's come after them.
      if (auto pipeline = user->getParentOfType<WarpSpecializeOp>()) {
        if (!pipeline.getConsumer().isAncestor(user->getParentRegion()))
          return user->emitOpError(
              "uses a fragment in the producer of a 'tile.warp_specialize': "
              "a fragment lives in the consumer's threads (the block's "
              "first) or in the whole block");
        int64_t threads = pipeline.getConsumerThreads();
        auto [it, inserted] =
            roleThreads.try_emplace(alloc.getOperation(), threads);
        if (!inserted && it->second != threads)
          return user->emitOpError("uses a fragment in consumer roles of ")
                 << it->second << " and " << threads
                 << " threads: its layout spreads it over one of them";
      }
      if (auto gemm = dyn_cast<GemmOp>(user)) {
        if (use.getOperandNumber() == 1)
          return gemm.emitOpError("takes its B operand from shared memory; "
                                  "a fragment is its A operand or its "
                                  "accumulator C");
        continue;
      }
      if (isa<FillOp, ClearOp>(user))
        continue;
      if (auto reduce = dyn_cast<ReduceOp>(user)) {
        AllocFragmentOp source = getFragmentAllocation(reduce.getSource());
        AllocFragmentOp target = getFragmentAllocation(reduce.getTarget());
        if (!source || !target)
          return reduce.emitOpError("reduces a 'tile.alloc_fragment' into "
                                    "another (not views of them)");
        if (source == target)
          return reduce.emitOpError("reduces a fragment into itself");
        // Recorded once, from the source's uses.
        if (source == alloc)
          reductions.push_back({source, nullptr,
                                static_cast<int64_t>(reduce.getDim()), target,
                                reduce});
        continue;
      }
      if (auto copy = dyn_cast<CopyOp>(user)) {
        bool isSource = copy.getSource() == fragment;
        if (!(isSource ? copy.getSourceIndices() : copy.getTargetIndices())
                 .empty())
          return copy.emitOpError("copies a whole fragment: the fragment "
                                  "operand takes no indices (give them to "
                                  "the memory side)");
        Value other = isSource ? copy.getTarget() : copy.getSource();
        // An explicit conversion leaves each side its own layout.
        if (copy.getConvertLayout())
          continue;
        if (AllocFragmentOp peer = getFragmentAllocation(other))
          groups.unionSets(alloc.getOperation(), peer.getOperation());
        else if (isFragment(other))
          return copy.emitOpError("fragments must be used directly, not "
                                  "through views");
        continue;
      }
      if (isa<memref::LoadOp, memref::StoreOp>(user)) {
        if (failed(checkElementAccess(alloc, user)))
          return failure();
        continue;
      }
      if (auto owned = dyn_cast<ForEachOwnedOp>(user)) {
        joinOwned(owned, alloc);
        continue;
      }
      // A wait ties the registers the fragment has: no constraint.
      if (isa<WgmmaWaitOp>(user))
        continue;
      return user->emitOpError("cannot use a fragment: fragments are "
                               "accessed by tile.copy, tile.fill, "
                               "tile.clear, tile.gemm, tile.reduce, and by "
                               "loads and "
                               "stores inside a tile.parallel over their "
                               "index space or a tile.for_each_owned at "
                               "its coordinates");
    }
    return success();
  }

  /// The dimension `d` when `indices` are the induction variables of
  /// `parallel` without the d-th, and `shape` its extents without the d-th:
  /// an access of a fragment reduced along `d` (a broadcast).
  static std::optional<int64_t> getBroadcastDim(ParallelOp parallel,
                                                ArrayRef<int64_t> shape,
                                                ValueRange indices) {
    ArrayRef<int64_t> extents = parallel.getExtents();
    auto ivs = parallel.getInductionVars();
    if (extents.size() < 2 || indices.size() + 1 != extents.size())
      return std::nullopt;
    for (int64_t dim = 0, e = extents.size(); dim < e; ++dim) {
      SmallVector<Value> kept;
      SmallVector<int64_t> keptExtents;
      for (int64_t i = 0; i < e; ++i) {
        if (i == dim)
          continue;
        kept.push_back(ivs[i]);
        keptExtents.push_back(extents[i]);
      }
      if (llvm::equal(indices, kept) && ArrayRef<int64_t>(keptExtents) == shape)
        return dim;
    }
    return std::nullopt;
  }

  /// `alloc` shares the layout of the fragment `owned` iterates over.
  void joinOwned(ForEachOwnedOp owned, AllocFragmentOp alloc) {
    auto [it, inserted] =
        ownedMembers.try_emplace(owned.getOperation(), alloc);
    if (!inserted)
      groups.unionSets(it->second.getOperation(), alloc.getOperation());
  }

  /// A load or store of a fragment element: inside a tile.parallel over the
  /// fragment's index space, at its induction variables, or inside a
  /// tile.for_each_owned at its coordinates.
  LogicalResult checkElementAccess(AllocFragmentOp alloc, Operation *access) {
    ValueRange indices = isa<memref::LoadOp>(access)
                             ? cast<memref::LoadOp>(access).getIndices()
                             : cast<memref::StoreOp>(access).getIndices();
    MemRefType type = alloc.getResult().getType();
    auto owned = access->getParentOfType<ForEachOwnedOp>();
    auto parallel = access->getParentOfType<ParallelOp>();
    // The nearest of the two decides.
    if (owned && !(parallel && owned->isProperAncestor(parallel))) {
      if (cast<MemRefType>(owned.getFragment().getType()).getShape() !=
              type.getShape() ||
          !llvm::equal(indices, owned.getCoordinates()))
        return access->emitOpError(
            "accesses a fragment element in a 'tile.for_each_owned' at "
            "other indices than its coordinates: only the element at the "
            "coordinates is held by the running thread");
      joinOwned(owned, alloc);
      return success();
    }
    if (parallel && !parallel->getParentOfType<ParallelOp>()) {
      std::optional<int64_t> dim =
          getBroadcastDim(parallel, type.getShape(), indices);
      if (dim) {
        if (isa<memref::StoreOp>(access))
          return access->emitOpError(
                     "writes a fragment at the induction variables without "
                     "dimension ")
                 << *dim
                 << ": every iteration along it would write the same "
                    "element (read it there; write it in a 'tile.parallel' "
                    "over its own index space)";
        reductions.push_back({nullptr, parallel, *dim, alloc, access});
        return success();
      }
    }
    if (!parallel || parallel.getExtents() != type.getShape() ||
        !llvm::equal(indices, parallel.getInductionVars()))
      return access->emitOpError(
          "accesses a fragment element outside of a 'tile.parallel' over "
          "the fragment's index space at its induction variables: the "
          "element's thread runs that iteration, so only there is it held "
          "by the running thread");
    // An iteration runs on one thread only if no enclosing tile.parallel
    // spreads it further.
    if (parallel->getParentOfType<ParallelOp>())
      return access->emitOpError("accesses a fragment in nested "
                                 "'tile.parallel' loops");
    auto [it, inserted] =
        parallelMembers.try_emplace(parallel.getOperation(), alloc);
    if (!inserted)
      groups.unionSets(it->second.getOperation(), alloc.getOperation());
    return success();
  }

  KernelOp kernel;
  llvm::EquivalenceClasses<Operation *> groups;
  DenseMap<Operation *, Fixed> fixed;
  /// Fragments used in a pipeline's consumer role: its thread count.
  DenseMap<Operation *, int64_t> roleThreads;
  llvm::MapVector<Operation *, std::pair<int64_t, int64_t>> gemmWarps;
  llvm::MapVector<Operation *, AllocFragmentOp> parallelMembers;
  /// A fragment each tile.for_each_owned shares its layout with.
  llvm::MapVector<Operation *, AllocFragmentOp> ownedMembers;
  /// Leaders of the groups that some gemm reads as its A operand.
  llvm::DenseSet<Operation *> aOperandGroups;
  /// Shared operands of wgmma gemms.
  llvm::SetVector<AllocSharedOp> descriptorOperands;
  /// Fragments whose layout is another's reduced along a dimension.
  SmallVector<Reduction> reductions;
};

} // namespace

FailureOr<LayoutAssignment> tile::inferLayouts(KernelOp kernel) {
  return LayoutInference(kernel).run();
}
