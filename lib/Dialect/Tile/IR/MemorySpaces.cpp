//===- MemorySpaces.cpp - Where a kernel's buffers live -------------------===//
//
// Classifies memrefs by the memory a kernel keeps them in: global, shared,
// thread-local, fragment.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/MemorySpaces.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "tile/Dialect/Tile/IR/TileOps.h"

using namespace mlir;
using namespace mlir::tile;

MemorySpace tile::getMemorySpace(MemRefType type) {
  Attribute space = type.getMemorySpace();
  if (!space)
    return MemorySpace::Global;
  if (isa<FragmentSpaceAttr>(space))
    return MemorySpace::Fragment;
  if (auto gpuSpace = dyn_cast<gpu::AddressSpaceAttr>(space)) {
    switch (gpuSpace.getValue()) {
    case gpu::AddressSpace::Global:
      return MemorySpace::Global;
    case gpu::AddressSpace::Workgroup:
      return MemorySpace::Shared;
    case gpu::AddressSpace::Private:
      return MemorySpace::Local;
    }
  }
  if (auto intSpace = dyn_cast<IntegerAttr>(space)) {
    switch (intSpace.getInt()) {
    case 0:
    case 1:
      return MemorySpace::Global;
    case 3:
      return MemorySpace::Shared;
    case 5:
      return MemorySpace::Local;
    default:
      break;
    }
  }
  return MemorySpace::Other;
}

bool tile::isFragment(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  return type && getMemorySpace(type) == MemorySpace::Fragment;
}

bool tile::isThreadPrivateBuffer(Value buffer) {
  while (Operation *def = buffer.getDefiningOp()) {
    if (isa<AllocLocalOp, memref::AllocaOp>(def))
      return true;
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      break;
    buffer = view.getViewSource();
  }
  auto type = dyn_cast<MemRefType>(buffer.getType());
  return type && getMemorySpace(type) == MemorySpace::Local;
}

bool tile::isGlobalBuffer(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  return type && getMemorySpace(type) == MemorySpace::Global &&
         !isThreadPrivateBuffer(value);
}

bool tile::isSharedMemory(Value value) {
  while (value) {
    auto type = dyn_cast<MemRefType>(value.getType());
    if (type && getMemorySpace(type) == MemorySpace::Shared)
      return true;
    Operation *def = value.getDefiningOp();
    if (auto cast = dyn_cast_if_present<memref::MemorySpaceCastOp>(def))
      value = cast.getSource();
    else if (auto view = dyn_cast_if_present<ViewLikeOpInterface>(def))
      value = view.getViewSource();
    else
      return false;
  }
  return false;
}

int64_t tile::getBufferElementBytes(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.getNumElements() *
           getBufferElementBytes(vector.getElementType());
  if (type.isIndex())
    return 8;
  return llvm::divideCeil(type.getIntOrFloatBitWidth(), 8);
}
