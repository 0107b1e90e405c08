//===- IndexAnalysis.h - Ranges and divisors of index values ----*- C++ -*-===//
//
// Local, on-demand facts about `index` values in a kernel: the range a value
// can take (from constants, the kernel's static grid and block, loop bounds,
// and arithmetic or affine maps of those) and the largest power of two known
// to divide it. Bounds handling uses ranges to drop tests that cannot fail;
// vectorization uses divisors to prove alignment.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_ANALYSIS_INDEXANALYSIS_H
#define TILE_DIALECT_TILE_ANALYSIS_INDEXANALYSIS_H

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"
#include "mlir/IR/ValueRange.h"
#include "llvm/ADT/ArrayRef.h"

#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>

namespace mlir::tile {

/// A closed range [lower, upper] of integers.
struct IndexRange {
  int64_t lower;
  int64_t upper;
};

/// Returns the range `value` provably lies in, or nullopt when unknown.
std::optional<IndexRange> getIndexRange(Value value);

/// Returns the range of `expr` with its dimensions and symbols in the
/// ranges given (nullopt: unknown), or nullopt when unknown.
std::optional<IndexRange>
getAffineExprRange(AffineExpr expr,
                   ArrayRef<std::optional<IndexRange>> dimRanges,
                   ArrayRef<std::optional<IndexRange>> symbolRanges);

/// Returns the largest power of two (at most 2^30) known to divide `value`;
/// 1 when nothing is known. Zero is divisible by everything.
int64_t getKnownDivisor(Value value);

/// What is known of where the elements of a memref lie, in elements from
/// the start of its buffer: the exponents of the largest powers of two
/// dividing its offset and each of its strides (at most 30).
struct KnownStrides {
  int64_t offsetLog2;
  llvm::SmallVector<int64_t> strideLog2;
};

/// The strides of `memref` as far as they are known: an identity layout
/// has offset 0 and the strides of its shape (a dynamic extent counts as
/// its declared `tile.multiple_of`, else as 1); a `memref.subview` (a
/// kernel's view of one head or one batch) adds its offsets times its
/// source's strides and multiplies the strides it keeps. Nullopt for other
/// layouts.
std::optional<KnownStrides> getKnownStrides(Value memref);

/// True when consecutive elements of the innermost dimension of `type` are
/// adjacent in memory (the identity layout, or a strided one whose
/// innermost stride is a static 1).
bool hasUnitInnermostStride(MemRefType type);

/// Returns the alignment, in bytes, known for the start of the buffer
/// `memref` views: kernel arguments are 16-byte aligned (the ABI), shared
/// and local buffers as allocated, views of them at a known shift or
/// offset; anything else only to its element size.
int64_t getKnownBufferAlignment(Value memref);

/// Returns the alignment, in bytes, known for the address of
/// `memref[indices]`: the buffer's start, and each index times its stride
/// (getKnownStrides). At least the element size.
int64_t getKnownAccessAlignment(Value memref, ValueRange indices);

/// The same for indices of which only a power of two dividing each is
/// known (`indexDivisors`, one per dimension), before they are built.
int64_t getKnownAccessAlignment(Value memref,
                                ArrayRef<int64_t> indexDivisors);

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_ANALYSIS_INDEXANALYSIS_H
