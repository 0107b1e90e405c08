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

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_TRANSFORMS_REDUCTIONBUILDERS_H
