//===- SharedMemoryAccess.h - Who touches which shared element --*- C++ -*-===//
//
// Describes the shared-memory accesses of ops in a kernel and decides whether
// two of them may touch the same element from different threads, which is
// what barrier insertion needs.
//
// An access is one of:
// - thread-level: a load, store or atomic with explicit indices, run by every
//   thread; indices are decomposed into a linear function of the thread
//   indices plus uniform terms;
// - parallel: an access in a `tile.parallel` body, indexed by its induction
//   variables (iterations are spread over threads in a fixed order);
// - distributed: a collective op (`tile.copy`, `tile.fill`, `tile.clear`) or
//   any other op whose element-to-thread mapping is not known.
//
// Two accesses conflict unless they touch different buffers (or different
// stages of a rolled pipeline's buffer), both only read, both are atomics,
// they are the same op, or the analysis proves that an element touched by
// both is touched by the same thread (thread dimensions pinned by enclosing
// `scf.if (thread_id d == v)` branches do not need telling apart).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_ANALYSIS_SHAREDMEMORYACCESS_H
#define TILE_DIALECT_TILE_ANALYSIS_SHAREDMEMORYACCESS_H

#include "mlir/IR/Operation.h"
#include "tile/Dialect/Tile/IR/ThreadUniformity.h"

namespace mlir::tile {

class KernelOp;
class ParallelOp;

/// One shared-memory access.
struct SharedAccess {
  enum class Mapping { ThreadLevel, Parallel, Distributed };

  Operation *op = nullptr;
  /// The allocation the access goes to (views are looked through).
  Value buffer;
  bool reads = false;
  bool writes = false;
  bool atomic = false;
  /// A vector load or store: several elements along the innermost index.
  bool vectorAccess = false;
  Mapping mapping = Mapping::Distributed;
  /// Indices for ThreadLevel and Parallel accesses.
  SmallVector<Value> indices;
  /// The tile.parallel of a Parallel access.
  Operation *parallel = nullptr;
  /// Set when the access comes from an earlier iteration of this loop:
  /// values defined inside it may differ between the two accesses.
  Operation *carriedAcross = nullptr;
  /// For an access through a stage of a rolled pipeline (`memref.view` of
  /// the allocation at byte shift `((iteration + offset) mod stages) *
  /// stageBytes`, or at a constant multiple of `stageBytes`): which stage.
  struct StageSlice {
    /// The iteration value; null for a constant stage (then `offset` is it).
    Value iteration;
    int64_t offset = 0;
    int64_t stages = 0;
    int64_t stageBytes = 0;
  };
  std::optional<StageSlice> stage;
};

/// Collects accesses and answers conflict queries for one kernel.
class SharedMemoryAccessAnalysis {
public:
  explicit SharedMemoryAccessAnalysis(KernelOp kernel);

  /// Appends the shared-memory accesses of `op` and everything nested in it.
  /// A collective op counts as a whole, with a distributed mapping.
  void collect(Operation *op, SmallVectorImpl<SharedAccess> &accesses) const;

  /// Returns true when `earlier` and `later` may touch the same element from
  /// two different threads with at least one of them writing.
  bool mayConflict(const SharedAccess &earlier,
                   const SharedAccess &later) const;

  const ThreadUniformity &getUniformity() const { return uniformity; }

private:
  bool provablySameThread(const SharedAccess &a, const SharedAccess &b) const;
  bool provablyDifferentIterationElements(const SharedAccess &a,
                                          const SharedAccess &b,
                                          Operation *loop) const;

  ThreadUniformity uniformity;
  SmallVector<int64_t, 3> threadExtents;
};

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_ANALYSIS_SHAREDMEMORYACCESS_H
