//===- LoopUtils.h - Loop helpers of the tile transforms --------*- C++ -*-===//

#ifndef TILE_DIALECT_TILE_TRANSFORMS_LOOPUTILS_H
#define TILE_DIALECT_TILE_TRANSFORMS_LOOPUTILS_H

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::tile {

/// Replaces a loop with constant bounds by one copy of its body per
/// iteration; the values it carries flow from each copy into the next, and
/// the last ones replace its results. Fails with an error at the loop when it
/// would create more than kMaxUnrolledOps operations (Limits.h) or has
/// non-constant bounds. (SCF's loopUnrollFull cannot be used in this project:
/// its header declares a function `mlir::tile` that clashes with the project's
/// namespace.)
LogicalResult unrollFully(scf::ForOp loop);

/// Checks that `copies` copies of `body` (nested ops included) stay within
/// kMaxUnrolledOps; otherwise emits an error at `loop` saying so.
LogicalResult checkUnrolledSize(Operation *loop, int64_t copies, Block &body);

/// Returns the number of iterations of `lb to ub step step` as scf.for runs
/// them: ceil((ub - lb) / step) when positive, 0 when ub <= lb or the step
/// is not positive (no division by zero); `ub - lb` when the step is 1 and
/// ub >= lb provably (ValueBoundsConstraintSet).
Value buildTripCount(OpBuilder &builder, Location loc, Value lower,
                     Value upper, Value step);

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_TRANSFORMS_LOOPUTILS_H
