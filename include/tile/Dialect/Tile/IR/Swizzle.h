//===- Swizzle.h - XOR-swizzled shared-memory tiles -------------*- C++ -*-===//
//
// A shared buffer with `swizzle = 128` is laid out as the tensor-core
// hardware (TMA, wgmma) lays out a 128-byte-swizzled tile: its 16-byte
// chunks permuted within each 128-byte line, so that the 8 rows an
// `ldmatrix` (or a column of a tile) reads fall into 8 different bank
// groups. Code addresses the buffer with logical indices until
// tile-apply-swizzles rewrites every access into the physical position.
//
// Over the last two dimensions [R, L] (element size e, rows of L*e bytes,
// chunk = 16 / e elements, a line P = 128 / e elements):
//
//   rows of 128 bytes or less (rowsPerLine = 128 / (L*e) rows share a line):
//     linear = i * L + j
//   wider rows are cut into panels of P columns, each stored whole (R rows
//   of 128 bytes) before the next, as TMA writes a tile box by box:
//     linear = (j / P) * R * P + i * P + j mod P
//   then, in both cases, within the 128-byte line `line = linear / P`:
//     linear' = linear xor ((line mod 8) * chunk),
//     (i', j') = (linear' / L, linear' mod L)
//
// This is CUTLASS's Swizzle<3,4,3> on the byte offset of the linear
// position: 8 lines of 128 bytes form a 1024-byte atom, and a buffer
// aligned to 1024 bytes holds exactly the layout `wgmma` reads through a
// 128-byte-swizzle shared-memory descriptor. A chunk keeps its elements
// together and in order, so vector accesses of up to 16 bytes, cp.async
// and ldmatrix rows stay contiguous. The stage of a swizzled buffer in a
// rolled pipeline is a `memref.view` marked `tile.swizzle`, swizzled the
// same way from the stage's start.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_SWIZZLE_H
#define TILE_DIALECT_TILE_IR_SWIZZLE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"

#include <optional>
#include <string>

namespace mlir::tile {

/// The one swizzle span supported, in bytes.
constexpr int64_t kSwizzleBytes = 128;
/// The bytes over which the pattern repeats (8 lines): the alignment a
/// swizzled tile needs where the hardware applies the swizzle (wgmma, TMA).
constexpr int64_t kSwizzleAtomBytes = 1024;

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

/// The byte offset, from the start of the tile (the last two dimensions),
/// of logical (`row`, `column`) in a swizzled buffer of `type` before the
/// chunks of its line are permuted (`linear * e` above). Where the line is
/// not permuted (its number a multiple of 8) it is the physical offset;
/// descriptors (wgmma, TMA) start there and the hardware permutes the rest.
int64_t getSwizzledLinearOffset(MemRefType type, int64_t row, int64_t column);

/// The physical rows by which logical row `row + shift` lies below row
/// `row`, in the same column, for every row and column of a swizzled
/// buffer of `type`: when the shift moves every position by a multiple of
/// 8 lines (the pattern repeats: the chunks are permuted alike) and by
/// whole physical rows. Nullopt for other shifts. Index arithmetic of
/// (row + shift, column) is then that of (row, column) plus a constant.
std::optional<int64_t> getSwizzledRowShift(MemRefType type, int64_t shift);

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_IR_SWIZZLE_H
