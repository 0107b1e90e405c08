//===- TmaCopies.cpp - tile.tma_load to cp.async.bulk.tensor --------------===//
//
// The TMA part of tile-to-gpu: each distinct (argument, box, swizzle, tf32
// rounding) of a
// kernel's tile.tma_load and tile.tma_store ops becomes a tensor-map
// parameter of its gpu.func (listed in `tile.tensor_maps` for the
// launcher, fenced for the tensor-map proxy at entry). Each load becomes
// one cp.async.bulk.tensor per box that completes on its mbarrier, each
// store one per box and a commit of their bulk async-group
// (docs/KernelABI.md).
//
//===----------------------------------------------------------------------===//

#include "TmaCopies.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

using namespace mlir;
using namespace mlir::tile;

static TensorMap getTensorMap(TmaLoadOp load) {
  return {cast<BlockArgument>(load.getSource()).getArgNumber(), load.getBox(),
          static_cast<int64_t>(load.getSwizzle()), load.getRoundTf32()};
}

static TensorMap getTensorMap(TmaStoreOp store) {
  return {cast<BlockArgument>(store.getTarget()).getArgNumber(),
          store.getBox(), static_cast<int64_t>(store.getSwizzle())};
}

/// The distinct tensor maps the TMA copies of `kernel` read, in order of
/// first use.
SmallVector<TensorMap> tile::collectTensorMaps(KernelOp kernel) {
  SmallVector<TensorMap> maps;
  auto add = [&](TensorMap map) {
    if (!llvm::is_contained(maps, map))
      maps.push_back(std::move(map));
  };
  kernel.getBody().walk([&](Operation *op) {
    if (auto load = dyn_cast<TmaLoadOp>(op))
      add(getTensorMap(load));
    else if (auto store = dyn_cast<TmaStoreOp>(op))
      add(getTensorMap(store));
  });
  return maps;
}

/// A shared-memory pointer from an i32 or index address.
static Value buildSharedPointer(OpBuilder &builder, Location loc,
                                Value address) {
  if (address.getType().isIndex())
    address = arith::IndexCastUIOp::create(builder, loc, builder.getI64Type(),
                                           address);
  return LLVM::IntToPtrOp::create(
      builder, loc,
      LLVM::LLVMPointerType::get(builder.getContext(), /*addressSpace=*/3),
      address);
}

/// Calls `issue` once per box of a TMA copy between the shared tile `tile`
/// and the tile of a tensor that starts at `indices` (one box per 128-byte
/// panel of a swizzled tile), with the box's shared-memory pointer and its
/// coordinates in the tensor (i32, innermost first).
static void forEachBox(OpBuilder &builder, Location loc, Value tile,
                       ArrayRef<int64_t> box, ValueRange indices,
                       function_ref<void(Value, ValueRange)> issue) {
  auto type = cast<MemRefType>(tile.getType());
  int64_t boxes = type.getShape().back() / box.back();
  int64_t boxBytes = type.getNumElements() *
                     getBufferElementBytes(type.getElementType()) / boxes;
  Value base =
      memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, tile);
  assert(!indices.empty() && "a tensor has at least one dimension");
  auto toI32 = [&](Value index) -> Value {
    return arith::IndexCastOp::create(builder, loc, builder.getI32Type(),
                                      index);
  };
  // Innermost first.
  Value inner = toI32(indices.back());
  SmallVector<Value> coordinates{inner};
  for (Value index : llvm::reverse(indices.drop_back()))
    coordinates.push_back(toI32(index));
  for (int64_t index = 0; index < boxes; ++index) {
    Value shift =
        arith::ConstantIndexOp::create(builder, loc, index * boxBytes);
    Value panel = buildSharedPointer(
        builder, loc, arith::AddIOp::create(builder, loc, base, shift));
    coordinates.front() = arith::AddIOp::create(
        builder, loc, inner,
        arith::ConstantIntOp::create(builder, loc, builder.getI32Type(),
                                     index * box.back()));
    issue(panel, coordinates);
  }
}

/// Replaces `load` by one cp.async.bulk.tensor per box reading through
/// `map`, each completing on the load's mbarrier.
static void lowerTmaLoad(TmaLoadOp load, Value map) {
  OpBuilder builder(load);
  Location loc = load.getLoc();
  Value barrier = buildSharedPointer(
      builder, loc,
      nvgpu::MBarrierGetOp::create(builder, loc, builder.getI32Type(),
                                   load.getBarriers(), load.getBarrierId()));
  forEachBox(builder, loc, load.getTarget(), load.getBox(), load.getIndices(),
             [&](Value panel, ValueRange coordinates) {
               NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
                   builder, loc, panel, map, coordinates, barrier,
                   /*im2colOffsets=*/ValueRange(), /*multicastMask=*/Value(),
                   /*l2CacheHint=*/Value(), NVVM::TMALoadMode::TILE,
                   /*isCTAOnly=*/true, /*group=*/NVVM::CTAGroupKindAttr(),
                   /*predicate=*/Value());
             });
  load.erase();
}

/// Replaces `store` by one cp.async.bulk.tensor per box writing through
/// `map`, and the commit of their bulk async-group.
static void lowerTmaStore(TmaStoreOp store, Value map) {
  OpBuilder builder(store);
  Location loc = store.getLoc();
  forEachBox(builder, loc, store.getSource(), store.getBox(),
             store.getIndices(), [&](Value panel, ValueRange coordinates) {
               NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
                   builder, loc, map, panel, coordinates,
                   /*l2CacheHint=*/Value(), NVVM::TMAStoreMode::TILE,
                   /*predicate=*/Value());
             });
  NVVM::CpAsyncBulkCommitGroupOp::create(builder, loc);
  store.erase();
}

/// Appends a tensor-map parameter to `func` per entry of `maps`, records
/// them in `tile.tensor_maps`, fences each for the tensor-map proxy (the
/// launcher wrote it with a copy from the host) and lowers the TMA copies.
void tile::addTensorMaps(gpu::GPUFuncOp func, ArrayRef<TensorMap> maps) {
  if (maps.empty())
    return;
  OpBuilder builder(func.getContext());
  Location loc = func.getLoc();
  auto pointerType = LLVM::LLVMPointerType::get(func.getContext());
  SmallVector<Type> inputs(func.getArgumentTypes());
  inputs.append(maps.size(), pointerType);
  func.setFunctionType(builder.getFunctionType(inputs, {}));
  Block &entry = func.getBody().front();
  builder.setInsertionPointToStart(&entry);
  SmallVector<Attribute> attrs;
  SmallVector<Value> parameters;
  Value size =
      arith::ConstantIntOp::create(builder, loc, builder.getI32Type(), 128);
  for (const TensorMap &map : maps) {
    parameters.push_back(entry.addArgument(pointerType, loc));
    attrs.push_back(map.toAttr(builder));
    NVVM::FenceProxyAcquireOp::create(builder, loc, NVVM::MemScopeKind::SYS,
                                      parameters.back(), size);
  }
  func->setAttr(kTensorMapsAttr, builder.getArrayAttr(attrs));
  SmallVector<TmaLoadOp> loads;
  SmallVector<TmaStoreOp> stores;
  func.walk([&](Operation *op) {
    if (auto load = dyn_cast<TmaLoadOp>(op))
      loads.push_back(load);
    else if (auto store = dyn_cast<TmaStoreOp>(op))
      stores.push_back(store);
  });
  auto parameterOf = [&](const TensorMap &map) {
    return parameters[llvm::find(maps, map) - maps.begin()];
  };
  for (TmaLoadOp load : loads)
    lowerTmaLoad(load, parameterOf(getTensorMap(load)));
  for (TmaStoreOp store : stores)
    lowerTmaStore(store, parameterOf(getTensorMap(store)));
}
