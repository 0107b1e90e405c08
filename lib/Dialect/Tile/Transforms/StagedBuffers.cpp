//===- StagedBuffers.cpp - Shared tiles with one copy per stage -----------===//
//
// See StagedBuffers.h.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/StagedBuffers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "tile/Dialect/Tile/IR/Swizzle.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::tile;

int64_t tile::getTmaSwizzle(AllocSharedOp alloc) {
  return alloc.isSwizzled() ? kSwizzleBytes : 0;
}

/// The alignment of a stage of `alloc`: what the buffer asks for, and what
/// TMA needs of its target when the copies are TMA's (a 1024-byte swizzle
/// atom for swizzled tiles, 128 bytes otherwise).
static int64_t getStageAlignment(AllocSharedOp alloc, bool tma) {
  int64_t alignment = std::max<int64_t>(alloc.getEffectiveAlignment(), 16);
  if (tma)
    alignment = std::max(alignment,
                         alloc.isSwizzled() ? kSwizzleAtomBytes : int64_t(128));
  return alignment;
}

StagedBuffer tile::createStagedBuffer(AllocSharedOp alloc, int64_t stages,
                                      bool tma) {
  StagedBuffer staged;
  staged.type = alloc.getType();
  staged.swizzled = alloc.isSwizzled();
  staged.tmaSwizzle = getTmaSwizzle(alloc);
  staged.tileBytes = staged.type.getNumElements() *
                     getBufferElementBytes(staged.type.getElementType());
  int64_t alignment = getStageAlignment(alloc, tma);
  staged.stageBytes =
      llvm::alignTo(staged.tileBytes, std::max<int64_t>(alignment, 128));
  OpBuilder builder(alloc);
  auto rawType =
      MemRefType::get({stages * staged.stageBytes}, builder.getI8Type(),
                      AffineMap(), staged.type.getMemorySpace());
  staged.raw = AllocSharedOp::create(builder, alloc.getLoc(), rawType,
                                     builder.getI64IntegerAttr(alignment),
                                     IntegerAttr());
  return staged;
}

Value StagedBuffer::buildStageView(OpBuilder &builder, Location loc,
                                   Value stage) const {
  Value shift = arith::MulIOp::create(
      builder, loc, stage,
      arith::ConstantIndexOp::create(builder, loc, stageBytes));
  auto view =
      memref::ViewOp::create(builder, loc, type, raw, shift, ValueRange());
  if (swizzled)
    view->setAttr(kSwizzledViewAttr, builder.getUnitAttr());
  return view.getResult();
}

std::optional<std::string> tile::whyNotTma(Value source, AllocSharedOp alloc) {
  auto argument = dyn_cast<BlockArgument>(source);
  if (!argument || !isa<KernelOp>(argument.getOwner()->getParentOp()))
    return std::string("its source is not a memref argument of the kernel "
                       "(TMA reads through a tensor map that the launcher "
                       "encodes for an argument)");
  auto sourceType = cast<MemRefType>(source.getType());
  if (std::optional<std::string> error = getTmaTileError(
          sourceType, alloc.getType(), getTmaSwizzle(alloc)))
    return error;
  // The tensor map's row pitch must be a multiple of 16 bytes.
  if (sourceType.getRank() > 1) {
    int64_t inner = sourceType.getShape().back();
    int64_t multiple = ShapedType::isDynamic(inner)
                           ? getDeclaredMultiple(argument).value_or(1)
                           : inner;
    int64_t elementBytes = getBufferElementBytes(sourceType.getElementType());
    if (multiple * elementBytes % 16 != 0)
      return llvm::formatv("the source's rows are not known to be multiples "
                           "of 16 bytes (declare {{tile.multiple_of = {0}} "
                           "on the argument)",
                           std::max<int64_t>(16 / elementBytes, 1))
          .str();
  }
  return std::nullopt;
}

SmallVector<GemmOp> tile::getOverlappableGemms(Region &body) {
  SmallVector<GemmOp> gemms;
  for (auto gemm : body.front().getOps<GemmOp>()) {
    if (gemm.getLowering() != GemmLowering::wgmma ||
        getMemorySpace(gemm.getA().getType()) == MemorySpace::Fragment)
      continue;
    bool alone = llvm::all_of(gemm.getC().getUsers(), [&](Operation *user) {
      return user == gemm.getOperation() ||
             !body.isAncestor(user->getParentRegion());
    });
    if (alone)
      gemms.push_back(gemm);
  }
  return gemms;
}
