//===- Passes.h - Serialization of GPU code ---------------------*- C++ -*-===//
//
// tile-serialize-to-ptx and tile-write-ptx (Passes.td), implemented in
// lib/Pipelines beside the pipeline that ends with them.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_PIPELINES_PASSES_H
#define TILE_PIPELINES_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tile {

/// The LLVM passes tile-serialize-to-ptx skips unless told otherwise
/// (`skip-llvm-passes`), comma-separated; lib/Pipelines/PTXSerializer.cpp
/// gives the measurements behind each.
extern const char *const kDefaultSkippedLLVMPasses;

#define GEN_PASS_DECL
#include "tile/Pipelines/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tile/Pipelines/Passes.h.inc"

} // namespace mlir::tile

#endif // TILE_PIPELINES_PASSES_H
