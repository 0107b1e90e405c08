//===- TmaOps.cpp - The Tensor Memory Accelerator's copy ------------------===//
//
// tile.tma_load and tile.tma_store: the limits of one TMA tile copy (PTX ISA,
// cp.async.bulk.tensor; CUDA driver API, cuTensorMapEncodeTiled) checked
// where the op is made, so that the launcher's tensor map encoding cannot
// fail for a reason the compiler knew.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tile;

/// The box of a TMA copy between `global` and the shared tile `tile`.
static SmallVector<int64_t> getTmaBox(MemRefType global, MemRefType tile,
                                      int64_t swizzle) {
  // The global tensor's leading dimensions that the tile lacks: one element.
  SmallVector<int64_t> box(global.getRank() - tile.getRank(), 1);
  llvm::append_range(box, tile.getShape());
  if (swizzle != 0)
    box.back() = swizzle / getBufferElementBytes(tile.getElementType());
  return box;
}

SmallVector<int64_t> TmaStoreOp::getBox() {
  return getTmaBox(getTarget().getType(), getSource().getType(),
                   getSwizzle());
}

int64_t TmaLoadOp::getTransactionBytes() {
  MemRefType target = getTarget().getType();
  return target.getNumElements() *
         getBufferElementBytes(target.getElementType());
}

SmallVector<int64_t> TmaLoadOp::getBox() {
  return getTmaBox(getSource().getType(), getTarget().getType(),
                   getSwizzle());
}

std::optional<std::string>
tile::getTmaTileError(MemRefType tensor, MemRefType tile, int64_t swizzle) {
  std::string message;
  llvm::raw_string_ostream os(message);
  if (tensor.getRank() < 1 || tensor.getRank() > 5) {
    os << "the tensor has rank " << tensor.getRank()
       << "; TMA copies tiles of rank 1 to 5";
    return message;
  }
  if (tile.getRank() < 1 || tile.getRank() > tensor.getRank()) {
    os << "the tile's rank " << tile.getRank()
       << " is not between 1 and the tensor's " << tensor.getRank();
    return message;
  }
  if (tile.getElementType() != tensor.getElementType()) {
    os << "the tile's element type " << tile.getElementType()
       << " differs from the tensor's " << tensor.getElementType();
    return message;
  }
  if (!tensor.getLayout().isIdentity() || !tile.getLayout().isIdentity())
    return std::string("TMA needs the identity layout on both sides");
  Type element = tensor.getElementType();
  int64_t bits = element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 0;
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64) {
    os << "TMA copies elements of 8, 16, 32 or 64 bits, not " << element;
    return message;
  }
  if (!tile.hasStaticShape())
    return std::string("the tile's shape is not static");
  int64_t rowBytes = tile.getShape().back() * bits / 8;
  if (swizzle != 0 && swizzle != 128) {
    os << "swizzle " << swizzle << " is not one TMA writes here (0 or 128)";
    return message;
  }
  // Rows narrower than 128 bytes share a 128-byte line in our layout; TMA's
  // 128-byte swizzle of a box that narrow is another layout (tried on an
  // H200: mma_sync.mlir's 64-byte rows came out wrong).
  if (swizzle == 128 && (tile.getRank() < 2 || rowBytes % 128 != 0)) {
    os << "the 128-byte-swizzled tile has " << rowBytes
       << "-byte rows; TMA writes rows of whole 128-byte panels";
    return message;
  }
  if (swizzle != 0 && rowBytes > swizzle &&
      (tile.getRank() != 2 || tile.getShape()[0] % 8 != 0)) {
    os << "the 128-byte-swizzled tile is stored in panels, which TMA "
          "writes one box each only for 2-D tiles of a multiple of 8 rows";
    return message;
  }
  if (rowBytes % 16 != 0) {
    os << "the tile's rows are " << rowBytes
       << " bytes; TMA boxes have rows of multiples of 16 bytes";
    return message;
  }
  int64_t bytes = tile.getNumElements() * bits / 8;
  for (auto [dim, extent] : llvm::enumerate(tile.getShape())) {
    int64_t box = extent;
    if (swizzle != 0 && dim + 1 == static_cast<size_t>(tile.getRank()))
      box = swizzle * 8 / bits;
    if (box > 256) {
      os << "the box has extent " << box << " in dimension " << dim
         << ", over TMA's limit of 256 elements";
      return message;
    }
  }
  if (bytes >= (int64_t(1) << 20)) {
    os << "the tile has " << bytes
       << " bytes; an mbarrier counts fewer than 2^20 per phase";
    return message;
  }
  return std::nullopt;
}

LogicalResult TmaLoadOp::verify() {
  MemRefType source = getSource().getType();
  auto argument = dyn_cast<BlockArgument>(getSource());
  if (!argument || !isa<KernelOp>(argument.getOwner()->getParentOp()))
    return emitOpError("source must be a memref argument of the kernel: the "
                       "launcher encodes its tensor map");
  if (!isGlobalBuffer(getSource()))
    return emitOpError("source must be in global memory");
  if (static_cast<int64_t>(getIndices().size()) != source.getRank())
    return emitOpError("expected ")
           << source.getRank() << " indices, one per source dimension, got "
           << getIndices().size();
  if (!isSharedMemory(getTarget()))
    return emitOpError("target must be in shared (workgroup) memory");
  if (std::optional<std::string> error =
          getTmaTileError(source, getTarget().getType(), getSwizzle()))
    return emitOpError("cannot copy with TMA: ") << *error;
  if (getRoundTf32() && !source.getElementType().isF32())
    return emitOpError("rounds to tf32 only f32 elements, not ")
           << source.getElementType();
  return success();
}

LogicalResult TmaStoreOp::verify() {
  MemRefType target = getTarget().getType();
  auto argument = dyn_cast<BlockArgument>(getTarget());
  if (!argument || !isa<KernelOp>(argument.getOwner()->getParentOp()))
    return emitOpError("target must be a memref argument of the kernel: the "
                       "launcher encodes its tensor map");
  if (!isGlobalBuffer(getTarget()))
    return emitOpError("target must be in global memory");
  if (static_cast<int64_t>(getIndices().size()) != target.getRank())
    return emitOpError("expected ")
           << target.getRank() << " indices, one per target dimension, got "
           << getIndices().size();
  if (!isSharedMemory(getSource()))
    return emitOpError("source must be in shared (workgroup) memory");
  if (std::optional<std::string> error =
          getTmaTileError(target, getSource().getType(), getSwizzle()))
    return emitOpError("cannot copy with TMA: ") << *error;
  return success();
}
