//===- CopyLowering.h - Collective copies and fills to threads --*- C++ -*-===//
//
// The patterns of tile-lower-tile-ops that lower tile.copy, tile.fill and
// tile.clear (CopyLowering.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_TRANSFORMS_COPYLOWERING_H
#define TILE_DIALECT_TILE_TRANSFORMS_COPYLOWERING_H

#include "tile/Dialect/Tile/IR/TileOps.h"

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace mlir::tile {

/// Adds the patterns that spread tile.copy, tile.fill and tile.clear over
/// the threads that run them (or a thread's own buffer, with constant
/// indices).
void populateCopyLoweringPatterns(RewritePatternSet &patterns);

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_TRANSFORMS_COPYLOWERING_H
