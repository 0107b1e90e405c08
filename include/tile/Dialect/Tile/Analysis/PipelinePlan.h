//===- PipelinePlan.h - What a pipelined loop runs ahead --------*- C++ -*-===//
//
// The analysis behind tile-software-pipeline (SoftwarePipeline.cpp): which
// copies of a `tile.pipelined` loop run stages ahead, into which shared
// buffers, and which body ops they need; and the checks that make running
// them ahead safe (each copy fills its whole buffer, nothing else writes
// it, nothing in the loop writes the global memory they read, what they
// depend on is pure and not loop-carried). A failed check is an error at
// the op that breaks it.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_ANALYSIS_PIPELINEPLAN_H
#define TILE_DIALECT_TILE_ANALYSIS_PIPELINEPLAN_H

#include "tile/Dialect/Tile/IR/TileOps.h"

#include <optional>

namespace mlir::tile {

/// What runs ahead and what it fills.
struct PipelinePlan {
  /// The pipelined copies, in body order.
  SmallVector<CopyOp> copies;
  /// Their target buffers (tile.alloc_shared results), in the same order.
  SmallVector<Value> buffers;
  /// The copies and the body ops they depend on, in body order.
  SmallVector<Operation *> producer;
};

/// Finds the pipelined copies of `loop` and what they depend on. Returns
/// nullopt when there is nothing to pipeline (with a remark), failure after
/// an error.
FailureOr<std::optional<PipelinePlan>> analyzePipeline(PipelinedOp loop);

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_ANALYSIS_PIPELINEPLAN_H
