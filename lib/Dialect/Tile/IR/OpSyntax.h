//===- OpSyntax.h - Assembly helpers of the tile ops ------------*- C++ -*-===//
//
// Printing and parsing shared by the files that define the tile ops
// (TileOps.cpp, KernelOp.cpp). Private to the dialect's IR library.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_DIALECT_TILE_IR_OPSYNTAX_H
#define TILE_LIB_DIALECT_TILE_IR_OPSYNTAX_H

#include "mlir/IR/OpImplementation.h"

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

} // namespace mlir::tile::detail

#endif // TILE_LIB_DIALECT_TILE_IR_OPSYNTAX_H
