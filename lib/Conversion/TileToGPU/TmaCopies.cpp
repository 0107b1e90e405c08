//===- TmaCopies.cpp - tile.tma_load to cp.async.bulk.tensor --------------===//
//
// The TMA part of tile-to-gpu: each distinct (argument, box, swizzle) of a
// kernel's tile.tma_load ops becomes a tensor-map parameter of its
// gpu.func (listed in `tile.tensor_maps` for the launcher, fenced for the
// tensor-map proxy at entry), and each copy one cp.async.bulk.tensor per
// box that completes on its mbarrier (docs/KernelABI.md).
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
          static_cast<int64_t>(load.getSwizzle())};
}

/// The distinct tensor maps the TMA copies of `kernel` read, in order of
/// first use.
SmallVector<TensorMap> tile::collectTensorMaps(KernelOp kernel) {
  SmallVector<TensorMap> maps;
  kernel.getBody().walk([&](TmaLoadOp load) {
    TensorMap map = getTensorMap(load);
    if (!llvm::is_contained(maps, map))
      maps.push_back(std::move(map));
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

/// Replaces `load` by one cp.async.bulk.tensor per box (per 128-byte panel
/// of a swizzled target) reading through `map`.
static void lowerTmaLoad(TmaLoadOp load, Value map) {
  OpBuilder builder(load);
  Location loc = load.getLoc();
  MemRefType target = load.getTarget().getType();
  SmallVector<int64_t> box = load.getBox();
  int64_t boxes = target.getShape().back() / box.back();
  int64_t boxBytes = load.getTransactionBytes() / boxes;
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(builder, loc,
                                                              load.getTarget());
  Value barrier = buildSharedPointer(
      builder, loc,
      nvgpu::MBarrierGetOp::create(builder, loc, builder.getI32Type(),
                                   load.getBarriers(), load.getBarrierId()));
  // Coordinates are innermost first.
  SmallVector<Value> coordinates;
  for (Value index : llvm::reverse(load.getIndices()))
    coordinates.push_back(
        arith::IndexCastOp::create(builder, loc, builder.getI32Type(), index));
  Value inner = coordinates.front();
  for (int64_t index = 0; index < boxes; ++index) {
    Value shift =
        arith::ConstantIndexOp::create(builder, loc, index * boxBytes);
    Value target = buildSharedPointer(
        builder, loc, arith::AddIOp::create(builder, loc, base, shift));
    coordinates.front() = arith::AddIOp::create(
        builder, loc, inner,
        arith::ConstantIntOp::create(builder, loc, builder.getI32Type(),
                                     index * box.back()));
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        builder, loc, target, map, coordinates, barrier,
        /*im2colOffsets=*/ValueRange(), /*multicastMask=*/Value(),
        /*l2CacheHint=*/Value(), NVVM::TMALoadMode::TILE,
        /*isCTAOnly=*/true, /*group=*/NVVM::CTAGroupKindAttr(),
        /*predicate=*/Value());
  }
  load.erase();
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
  func.walk([&](TmaLoadOp load) { loads.push_back(load); });
  for (TmaLoadOp load : loads)
    lowerTmaLoad(
        load, parameters[llvm::find(maps, getTensorMap(load)) - maps.begin()]);
}
