//===- EmulateTma.cpp - TMA copies on the CPU target ----------------------===//
//
// The CPU target has no Tensor Memory Accelerator: each `tile.tma_load`
// becomes the copy its issuing thread makes, element by element, followed by
// the completion of the tile's bytes on the op's mbarrier:
//
//   for i0 < S0, i1 < S1:               (the target's shape)
//     v = in bounds ? source[x0 + i0, x1 + i1] : 0
//                     (source[y, x0 + i0, x1 + i1] with a leading dimension
//                     the target lacks)
//     target[i0, i1] = v                (logical; swizzled later; v
//                                        rounded to tf32 with round_tf32)
//   nvvm.mbarrier.complete_tx &barriers[id], bytes
//
// so that a TMA pipeline runs on the CPU with the GPU's synchronization
// (docs/CPUTarget.md). A `tile.tma_store` becomes its issuing thread's copy
// of the elements inside the target (its bulk async-group completes at
// once: the waits for it have nothing left to wait for).
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/FragmentLowering.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

#define DEBUG_TYPE "tile-emulate-tma"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEEMULATETMA
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

/// Opens the loops over the shared `tile`'s positions at the builder's
/// insertion point and leaves it in the innermost body, where it builds the
/// tensor's indices of the tile that starts at `offsets` (the tensor's
/// leading dimensions that the tile lacks at their offset alone) and
/// whether they are inside `tensor`. Returns the positions.
static SmallVector<Value> buildTileLoops(OpBuilder &builder, Location loc,
                                         MemRefType tile, Value tensor,
                                         ValueRange offsets,
                                         SmallVectorImpl<Value> &indices,
                                         Value &inBounds) {
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, value);
  };
  SmallVector<Value> positions;
  for (int64_t extent : tile.getShape()) {
    auto loop = scf::ForOp::create(builder, loc, constant(0), constant(extent),
                                   constant(1));
    positions.push_back(loop.getInductionVar());
    builder.setInsertionPoint(loop.getBody()->getTerminator());
  }
  int64_t leading = offsets.size() - positions.size();
  for (auto [dim, offset] : llvm::enumerate(offsets)) {
    Value index = dim < static_cast<size_t>(leading)
                      ? offset
                      : arith::AddIOp::create(builder, loc, offset,
                                              positions[dim - leading])
                            .getResult();
    indices.push_back(index);
    Value below = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::ult, index,
        memref::DimOp::create(builder, loc, tensor, dim));
    inBounds = inBounds ? arith::AndIOp::create(builder, loc, inBounds, below)
                              .getResult()
                        : below;
  }
  return positions;
}

/// Replaces `load` by its issuing thread's copy and the completion of its
/// bytes.
static void emulate(TmaLoadOp load) {
  Location loc = load.getLoc();
  OpBuilder builder(load);
  Value source = load.getSource();
  auto target = cast<MemRefType>(load.getTarget().getType());
  Type element = target.getElementType();
  SmallVector<Value> positions;
  {
    OpBuilder::InsertionGuard guard(builder);
    SmallVector<Value> indices;
    Value inBounds;
    positions = buildTileLoops(builder, loc, target, source, load.getIndices(),
                               indices, inBounds);
    auto read = scf::IfOp::create(builder, loc, TypeRange{element}, inBounds,
                                  /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard branch(builder);
      builder.setInsertionPointToStart(read.thenBlock());
      scf::YieldOp::create(
          builder, loc,
          ValueRange{memref::LoadOp::create(builder, loc, source, indices)});
      builder.setInsertionPointToStart(read.elseBlock());
      scf::YieldOp::create(builder, loc,
                           ValueRange{arith::ConstantOp::create(
                               builder, loc, builder.getZeroAttr(element))});
    }
    Value value = read.getResult(0);
    if (load.getRoundTf32())
      value = roundToTF32(builder, loc, value);
    memref::StoreOp::create(builder, loc, value, load.getTarget(), positions);
  }
  int64_t bytes = target.getNumElements() * element.getIntOrFloatBitWidth() / 8;
  Value address = nvgpu::MBarrierGetOp::create(
      builder, loc, builder.getI32Type(), load.getBarriers(),
      load.getBarrierId());
  Value pointer = LLVM::IntToPtrOp::create(
      builder, loc,
      LLVM::LLVMPointerType::get(builder.getContext(), /*addressSpace=*/3),
      address);
  NVVM::MBarrierCompleteTxOp::create(
      builder, loc, pointer,
      arith::ConstantIntOp::create(builder, loc, builder.getI32Type(), bytes));
  load.erase();
}

/// Replaces `store` by its issuing thread's copy of the elements inside
/// the target.
static void emulate(TmaStoreOp store) {
  Location loc = store.getLoc();
  OpBuilder builder(store);
  Value target = store.getTarget();
  SmallVector<Value> indices;
  Value inBounds;
  SmallVector<Value> positions =
      buildTileLoops(builder, loc, store.getSource().getType(), target,
                     store.getIndices(), indices, inBounds);
  auto write = scf::IfOp::create(builder, loc, inBounds,
                                 /*withElseRegion=*/false);
  builder.setInsertionPoint(write.thenBlock()->getTerminator());
  memref::StoreOp::create(
      builder, loc,
      memref::LoadOp::create(builder, loc, store.getSource(), positions),
      target, indices);
  store.erase();
}

namespace {

struct TileEmulateTma : tile::impl::TileEmulateTmaBase<TileEmulateTma> {
  void runOnOperation() override {
    SmallVector<TmaLoadOp> loads;
    SmallVector<TmaStoreOp> stores;
    getOperation().walk([&](Operation *op) {
      if (auto load = dyn_cast<TmaLoadOp>(op))
        loads.push_back(load);
      else if (auto store = dyn_cast<TmaStoreOp>(op))
        stores.push_back(store);
    });
    if (loads.empty() && stores.empty())
      return markAllAnalysesPreserved();
    for (TmaLoadOp load : loads)
      emulate(load);
    for (TmaStoreOp store : stores)
      emulate(store);
  }
};

} // namespace
