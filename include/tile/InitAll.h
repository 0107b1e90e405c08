//===- InitAll.h - Register the tile dialect and what kernels use -*- C++ -*-===//

#ifndef TILE_INITALL_H
#define TILE_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::tile {

/// Registers the tile dialect and the upstream dialects a kernel may use:
/// arith, func, gpu, index, llvm, math, memref, nvgpu, nvvm, scf, vector.
void registerAllDialects(DialectRegistry &registry);

/// Registers every pass and pipeline of the project.
void registerAllPasses();

} // namespace mlir::tile

#endif // TILE_INITALL_H
