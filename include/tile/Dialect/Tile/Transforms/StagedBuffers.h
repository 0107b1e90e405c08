//===- StagedBuffers.h - Shared tiles with one copy per stage ---*- C++ -*-===//
//
// A pipeline (a rolled `tile.pipelined`, or `tile.warp_specialize` with
// `tiles`) keeps S copies of a shared tile: one i8 allocation of S stages,
// each rounded up to its alignment, and every use of the tile a
// `memref.view` of the iteration's stage (marked `tile.swizzle` when the
// tile is swizzled, so that the swizzle starts at the stage). Stages start
// as aligned as the tile (at least 128 bytes, 1024 for a swizzled tile read
// by TMA or wgmma), so every stage meets the banks and the swizzle atoms
// the same way. Also the checks of whether a copy into such a tile can be a
// TMA copy, and which of the gemms reading the stages may stay in flight.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_TRANSFORMS_STAGEDBUFFERS_H
#define TILE_DIALECT_TILE_TRANSFORMS_STAGEDBUFFERS_H

#include "tile/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/IRMapping.h"

#include <optional>
#include <string>

namespace mlir::tile {

/// One tile's S stages in a single allocation.
struct StagedBuffer {
  /// The i8 allocation of all stages (where the tile's allocation was).
  Value raw;
  /// The tile's type, which each stage's view has.
  MemRefType type;
  /// The bytes of a stage (the tile rounded up to its alignment).
  int64_t stageBytes = 0;
  bool swizzled = false;
  /// The swizzle TMA writes into a stage (128 or 0 bytes).
  int64_t tmaSwizzle = 0;
  /// The bytes of the tile itself (what a TMA copy of it transfers).
  int64_t tileBytes = 0;

  /// The view of stage `stage` (an index in [0, S)) at the builder.
  Value buildStageView(OpBuilder &builder, Location loc, Value stage) const;
};

/// Allocates `stages` copies of `alloc`'s tile where `alloc` is, aligned for
/// TMA when `tma`. The old allocation is left for the caller to erase.
StagedBuffer createStagedBuffer(AllocSharedOp alloc, int64_t stages, bool tma);

/// The kernel argument a TMA copy reads, and where the copy's source view
/// lies in it: the argument itself, or a `memref.subview` of it that fixes
/// unit leading dimensions (one head of a [batch, heads, seq, d] tensor) and
/// keeps the others whole, so that what lies outside the view lies outside
/// the argument and TMA reads it as zero.
struct TmaSource {
  BlockArgument argument;
  /// Per dimension of the argument, the index a dropped dimension is fixed
  /// at, or a null value for a dimension the copy's indices run over.
  SmallVector<OpFoldResult> fixed;

  /// The argument's indices of the copy's tile that starts at `indices` of
  /// the view (one index per kept dimension, in order).
  SmallVector<Value> buildIndices(OpBuilder &builder, Location loc,
                                  ValueRange indices) const;
};

/// The TMA source of a copy from `source`, or why it has none (a remark's
/// reason).
FailureOr<TmaSource> getTmaSource(Value source, std::string &why);

/// The TMA copy of `copy` (whose source `whyNotTma` accepted) at the
/// builder, its operands looked up in `mapping` (the copy is one of a loop
/// body being cloned), completing on mbarrier `barrierId` of `barriers`,
/// swizzled by `swizzle` bytes.
TmaLoadOp buildTmaLoad(OpBuilder &builder, CopyOp copy, IRMapping &mapping,
                       Value barriers, Value barrierId, int64_t swizzle);

/// Why a `copy` from `source` (its source operand) into the tile of `alloc`
/// cannot be a TMA copy (a remark's reason), or nullopt when it can.
std::optional<std::string> whyNotTma(Value source, AllocSharedOp alloc);

/// The swizzle TMA writes into `alloc`, in bytes: 128 for a swizzled
/// buffer (IR/Swizzle.h is TMA's 128-byte pattern), else none.
int64_t getTmaSwizzle(AllocSharedOp alloc);

/// The wgmma gemms directly in `body` (a pipeline's loop body) that can stay
/// in flight into the next iteration: operands in shared memory (a fragment
/// A's registers are rewritten by the ops that compute it), and an
/// accumulator that nothing else in `body` touches.
SmallVector<GemmOp> getOverlappableGemms(Region &body);

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_TRANSFORMS_STAGEDBUFFERS_H
