//===- ReductionBuilders.h - Pieces of cross-thread reductions --*- C++ -*-===//
//
// What the lowerings of tile.thread_allreduce (LowerReductions.cpp) and of
// tile.reduce on fragments (FragmentReduce.cpp) share: the combining
// operator and the warp shuffle of 16- and 32-bit values.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_TRANSFORMS_REDUCTIONBUILDERS_H
#define TILE_DIALECT_TILE_TRANSFORMS_REDUCTIONBUILDERS_H

#include "tile/Dialect/Tile/IR/TileOps.h"

namespace mlir::tile {

/// `lhs <kind> rhs` (floats: maximumf / minimumf for max / min).
Value buildReduceCombine(OpBuilder &builder, Location loc, ReduceKind kind,
                         Value lhs, Value rhs);

/// `gpu.shuffle xor` of a 16- or 32-bit value over `width` lanes; 16-bit
/// values travel in the low half of a 32-bit register.
Value buildShuffleXor(OpBuilder &builder, Location loc, Value value,
                      int64_t offset, int64_t width);

/// Combines, in a fixed order (so that every thread of a group computes the
/// same bits), the partials a block's threads stored in the shared buffer
/// `slots` at `first + t` for thread t: those of the threads that differ
/// from `thread` only in `warpBits` (bits 5 and up of the linear thread
/// index). The caller stores the partials and places the barriers.
Value buildCombineWarpPartials(OpBuilder &builder, Location loc,
                               ReduceKind kind, Value slots, int64_t first,
                               Value thread, int64_t warpBits);

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_TRANSFORMS_REDUCTIONBUILDERS_H
