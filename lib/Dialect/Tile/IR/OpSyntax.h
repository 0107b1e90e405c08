//===- OpSyntax.h - Assembly helpers of the tile ops ------------*- C++ -*-===//
//
// Printing, parsing and verifier helpers shared by the files that define
// the tile ops (TileOps.cpp, KernelOp.cpp, LoopOps.cpp, FragmentOps.cpp,
// CopyOps.cpp, WarpSpecializeOp.cpp). Private to
// the dialect's IR library.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_DIALECT_TILE_IR_OPSYNTAX_H
#define TILE_LIB_DIALECT_TILE_IR_OPSYNTAX_H

#include "mlir/IR/OpImplementation.h"
#include "tile/Dialect/Tile/IR/TileOps.h"

#include <string>

namespace mlir::tile::detail {

/// Formats extents as `[e0, e1, ...]`, a dynamic one as `?`.
std::string formatExtents(ArrayRef<int64_t> extents);

/// Parses `[e0, e1, ...]`, where an extent may be `?` when `allowDynamic`.
ParseResult parseExtentList(OpAsmParser &parser,
                            SmallVectorImpl<int64_t> &extents,
                            bool allowDynamic);

/// Prints `[e0, e1, ...]` (formatExtents).
void printExtentList(OpAsmPrinter &p, ArrayRef<int64_t> extents);

/// Parses an optional attribute dictionary (after `attributes` when
/// `withKeyword`) into `result` and checks its inherent attributes as the
/// generic form does: one of the wrong kind (`layout = 3`) is an error
/// rather than silently dropped.
ParseResult parseCheckedAttrDict(OpAsmParser &parser, OperationState &result,
                                 bool withKeyword = false);

/// The kernel `op` is in; emits an error on `op` and returns null when it is
/// outside one.
KernelOp getEnclosingKernel(Operation *op);

} // namespace mlir::tile::detail

#endif // TILE_LIB_DIALECT_TILE_IR_OPSYNTAX_H
