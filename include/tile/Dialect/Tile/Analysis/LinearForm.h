//===- LinearForm.h - Index expressions as linear forms ---------*- C++ -*-===//
//
// An index as `sum(thread[d] * tid_d) + sum(coefficient * term) + constant`,
// where the terms are values uniform across the block: what barrier
// insertion (SharedMemoryAccess) needs to tell whether two threads can touch
// the same element.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_ANALYSIS_LINEARFORM_H
#define TILE_DIALECT_TILE_ANALYSIS_LINEARFORM_H

#include "mlir/IR/Value.h"
#include "tile/Dialect/Tile/IR/ThreadUniformity.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::tile {

/// `sum(thread[d] * tid_d) + sum(coefficient * term) + constant`, where the
/// terms are values uniform across the block.
struct LinearForm {
  int64_t thread[3] = {0, 0, 0};
  /// Sorted by value, without zero coefficients, once normalized.
  SmallVector<std::pair<Value, int64_t>, 4> terms;
  int64_t constant = 0;

  /// this += scale * other.
  void add(const LinearForm &other, int64_t scale);

  /// Sorts the terms, merges equal ones and drops those that cancelled.
  void normalize();
};

/// The linear form of an index: constants, thread indices (tile or gpu),
/// uniform values as terms, and +, -, * by a constant, widening casts and
/// affine.apply of those. Nullopt for anything else (a quotient, a product
/// of two thread-dependent values, a thread-dependent load).
std::optional<LinearForm> getLinearForm(Value value,
                                        const ThreadUniformity &uniformity);

/// Returns true when the thread part of the forms (one per index dimension)
/// takes a different value for every thread of the block, whose extents
/// are `extents`.
bool isInjectiveAcrossThreads(ArrayRef<const LinearForm *> forms,
                              ArrayRef<int64_t> extents);

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_ANALYSIS_LINEARFORM_H
