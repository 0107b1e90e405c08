//===- LoopUtils.h - Loop helpers of the tile transforms --------*- C++ -*-===//

#ifndef TILE_DIALECT_TILE_TRANSFORMS_LOOPUTILS_H
#define TILE_DIALECT_TILE_TRANSFORMS_LOOPUTILS_H

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::tile {

/// Replaces a loop with constant bounds and no results by one copy of its
/// body per iteration. (SCF's loopUnrollFull cannot be used in this project:
/// its header declares a function `mlir::tile` that clashes with the
/// project's namespace.)
LogicalResult unrollFully(scf::ForOp loop);

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_TRANSFORMS_LOOPUTILS_H
