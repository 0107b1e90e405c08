//===- Distribution.h - Spread work over a block's threads ------*- C++ -*-===//

#ifndef TILE_DIALECT_TILE_TRANSFORMS_DISTRIBUTION_H
#define TILE_DIALECT_TILE_TRANSFORMS_DISTRIBUTION_H

#include "mlir/IR/Builders.h"
#include "tile/Dialect/Tile/IR/TileOps.h"

namespace mlir::tile {

/// Returns `tx + X * (ty + Y * tz)` for the kernel's block shape.
Value buildLinearThreadId(OpBuilder &builder, Location loc, KernelOp kernel);

/// The threads that run an op together: `count` threads from linear index
/// `first`. The whole block, or the role of a warp-specialized pipeline
/// (tile-lower-warp-specialize marks the role's `scf.if` with
/// `tile.role_first` and `tile.role_threads`).
struct ThreadGroup {
  int64_t first = 0;
  int64_t count = 0;
};
ThreadGroup getThreadGroup(Operation *op);


/// Splits `linear` into indices of `extents` (row-major: the last dimension
/// varies fastest).
SmallVector<Value> buildDelinearize(OpBuilder &builder, Location loc,
                                    Value linear, ArrayRef<int64_t> extents);

/// Emits a loop that visits every index of [0, count) with the indices spread
/// over the threads that run `op` (getThreadGroup): thread t of the group
/// visits t, t + T, t + 2T, ... (T threads in the group), so neighbouring
/// threads visit neighbouring indices. The trip count is the same in every
/// thread; a tail is guarded with `scf.if`. Returns the linear index and
/// leaves `builder` inside the loop body, where the caller emits the work of
/// one index.
Value buildDistributedLoop(OpBuilder &builder, Location loc, Operation *op,
                           int64_t count);

/// Emits a loop over [0, count) run by each thread on its own and returns its
/// induction variable, leaving `builder` inside the body.
Value buildSerialLoop(OpBuilder &builder, Location loc, int64_t count);

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_TRANSFORMS_DISTRIBUTION_H
