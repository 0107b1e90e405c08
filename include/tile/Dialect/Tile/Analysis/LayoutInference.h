//===- LayoutInference.h - Which thread holds which fragment element -*- C++
//-*-===//
//
// Infers the layout of every fragment of a kernel, the warp grid of every
// tile.gemm and the layout every tile.parallel over fragments iterates in
// (the rules are in Passes.td, tile-infer-layouts). The analysis only
// computes; the pass records the result as attributes.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_ANALYSIS_LAYOUTINFERENCE_H
#define TILE_DIALECT_TILE_ANALYSIS_LAYOUTINFERENCE_H

#include "tile/Dialect/Tile/IR/FragmentLayout.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::tile {

/// The inferred layouts of a kernel.
struct LayoutAssignment {
  /// Each fragment allocation's layout.
  llvm::MapVector<Operation *, LayoutAttr> fragments;
  /// Each tile.gemm's warp grid [Wm, Wn].
  llvm::MapVector<Operation *, std::pair<int64_t, int64_t>> gemmWarps;
  /// Each tile.parallel over fragments: the layout it iterates in.
  llvm::MapVector<Operation *, LayoutAttr> parallels;
  /// Shared buffers read by a tile.gemm, given no swizzle, that can be
  /// swizzled (ldmatrix reads columns of rows: without it, 8 rows of a
  /// 64-byte or wider tile share banks).
  SmallVector<AllocSharedOp> swizzled;
  /// Shared buffers a tile.gemm reads through wgmma descriptors: swizzled
  /// (they are in `swizzled` unless already) and aligned to 1024 bytes, the
  /// span of the hardware's swizzle pattern.
  SmallVector<AllocSharedOp> descriptorOperands;
};

/// Checks how the kernel's fragments are used (only by tile.copy,
/// tile.fill, tile.clear, tile.gemm and, inside a tile.parallel, by loads
/// and stores at its induction variables) and infers their layouts.
/// Reports an error at the offending op and fails on misuse or conflict.
FailureOr<LayoutAssignment> inferLayouts(KernelOp kernel);

/// Returns the tile.alloc_fragment `value` comes from, or null.
AllocFragmentOp getFragmentAllocation(Value value);

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_ANALYSIS_LAYOUTINFERENCE_H
