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

#include "mlir/IR/Value.h"

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

/// Returns the largest power of two (at most 2^30) known to divide `value`;
/// 1 when nothing is known. Zero is divisible by everything.
int64_t getKnownDivisor(Value value);

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_ANALYSIS_INDEXANALYSIS_H
