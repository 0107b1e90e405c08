//===- Swizzle.h - XOR-swizzled shared-memory tiles -------------*- C++ -*-===//
//
// A shared buffer with `swizzle = 128` stores its 16-byte chunks permuted
// within each 128-byte line, so that the 8 rows an `ldmatrix` (or a column
// of a tile) reads fall into 8 different bank groups. Code addresses the
// buffer with logical indices until tile-apply-swizzles rewrites every
// access into the physical position:
//
//   over the last two dimensions [R, L] (element size e, row of L*e bytes):
//   rowsPerLine = max(1, 128 / (L*e)), chunk = 16 / e elements,
//   x = ((i floordiv rowsPerLine) mod 8) * chunk,
//   linear' = (i * L + j) xor x,   (i', j') = (linear' / L, linear' % L)
//
// For rows of 128 bytes or more this is j' = j xor ((i mod 8) * chunk),
// CUTLASS's Swizzle<3,4,3>; shorter rows share a 128-byte line. A chunk
// keeps its elements together and in order, so vector accesses of up to
// 16 bytes, cp.async and ldmatrix rows stay contiguous. The stage of a
// swizzled buffer in a rolled pipeline is a `memref.view` marked
// `tile.swizzle`, swizzled the same way from the stage's start.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_SWIZZLE_H
#define TILE_DIALECT_TILE_IR_SWIZZLE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include <optional>
#include <string>

namespace mlir::tile {

/// The one swizzle span supported, in bytes.
constexpr int64_t kSwizzleBytes = 128;

/// Marks a `memref.view` that is one stage of a swizzled buffer staged by a
/// rolled pipeline (tile-software-pipeline): tile-apply-swizzles rewrites
/// the view's accesses as it does those of a swizzled allocation.
constexpr llvm::StringLiteral kSwizzledViewAttr = "tile.swizzle";

/// Why a buffer of `type` cannot be swizzled, or nullopt when it can: at
/// least 2-D, elements of a power-of-two size up to 16 bytes, rows a
/// multiple of 16 bytes that either divide 128 bytes (with whole 128-byte
/// lines) or are a multiple of it.
std::optional<std::string> whyNotSwizzlable(MemRefType type);

/// The physical indices of logical `indices` into a swizzled buffer of
/// `type` (only the last two change).
SmallVector<Value> buildSwizzledIndices(OpBuilder &builder, Location loc,
                                        MemRefType type, ValueRange indices);

/// The same on integers: the physical (row, column) of logical (row,
/// column) in a swizzled buffer of `type` (tests, pictures).
std::pair<int64_t, int64_t> getSwizzledPosition(MemRefType type, int64_t row,
                                                int64_t column);

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_IR_SWIZZLE_H
