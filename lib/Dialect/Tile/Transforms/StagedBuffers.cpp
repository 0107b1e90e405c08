//===- StagedBuffers.cpp - Shared tiles with one copy per stage -----------===//
//
// See StagedBuffers.h.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/StagedBuffers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
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

static bool isKernelArgument(Value value) {
  auto argument = dyn_cast<BlockArgument>(value);
  return argument && isa<KernelOp>(argument.getOwner()->getParentOp());
}

/// Whether `size` is the whole extent of dimension `dim` of `memref`: equal
/// static extents, or `memref.dim` of it.
static bool isWholeExtent(OpFoldResult size, Value memref, int64_t dim) {
  int64_t extent = cast<MemRefType>(memref.getType()).getDimSize(dim);
  if (std::optional<int64_t> constant = getConstantIntValue(size))
    return !ShapedType::isDynamic(extent) && *constant == extent;
  auto dimOp = cast<Value>(size).getDefiningOp<memref::DimOp>();
  if (!dimOp || dimOp.getSource() != memref)
    return false;
  std::optional<int64_t> index = dimOp.getConstantIndex();
  return index && *index == dim;
}

FailureOr<TmaSource> tile::getTmaSource(Value source, std::string &why) {
  TmaSource result;
  if (isKernelArgument(source)) {
    result.argument = cast<BlockArgument>(source);
    result.fixed.assign(cast<MemRefType>(source.getType()).getRank(),
                        OpFoldResult());
    return result;
  }
  auto subview = source.getDefiningOp<memref::SubViewOp>();
  if (!subview || !isKernelArgument(subview.getSource())) {
    why = "its source is neither a memref argument of the kernel nor a "
          "subview of one (TMA reads through a tensor map that the launcher "
          "encodes for an argument)";
    return failure();
  }
  Value argument = subview.getSource();
  llvm::SmallBitVector dropped = subview.getDroppedDims();
  for (auto [dim, offset, size, stride] :
       llvm::enumerate(subview.getMixedOffsets(), subview.getMixedSizes(),
                       subview.getMixedStrides())) {
    if (getConstantIntValue(stride) != 1) {
      why = llvm::formatv("its source is a subview with a stride other than "
                          "1 in dimension {0}",
                          dim);
      return failure();
    }
    if (dropped.test(dim)) {
      // The box is one element along the leading dimensions the tile lacks.
      if (llvm::any_of(result.fixed, [](OpFoldResult fixed) { return !fixed; })) {
        why = llvm::formatv("its source is a subview that drops dimension "
                            "{0} after one it keeps (TMA's box here has "
                            "the tile's extents in the innermost dimensions)",
                            dim);
        return failure();
      }
      result.fixed.push_back(offset);
      continue;
    }
    // Elements outside the view must lie outside the argument, where TMA
    // reads zeros as tile.copy does outside its source.
    if (getConstantIntValue(offset) != 0 ||
        !isWholeExtent(size, argument, dim)) {
      why = llvm::formatv(
          "its source is a subview that does not keep dimension {0} whole "
          "(offset 0, the argument's extent): TMA would read the argument "
          "past the view's end instead of zeros",
          dim);
      return failure();
    }
    result.fixed.push_back(OpFoldResult());
  }
  result.argument = cast<BlockArgument>(argument);
  return result;
}

SmallVector<Value> TmaSource::buildIndices(OpBuilder &builder, Location loc,
                                           ValueRange indices) const {
  SmallVector<Value> result;
  auto next = indices.begin();
  for (OpFoldResult index : fixed) {
    if (!index) {
      result.push_back(*next++);
      continue;
    }
    if (auto value = dyn_cast<Value>(index))
      result.push_back(value);
    else
      result.push_back(arith::ConstantIndexOp::create(
          builder, loc, *getConstantIntValue(index)));
  }
  return result;
}

TmaLoadOp tile::buildTmaLoad(OpBuilder &builder, CopyOp copy,
                             IRMapping &mapping, Value barriers,
                             Value barrierId, int64_t swizzle) {
  Location loc = copy.getLoc();
  SmallVector<Value> indices;
  for (Value index : copy.getSourceIndices())
    indices.push_back(mapping.lookupOrDefault(index));
  if (indices.empty())
    indices.assign(copy.getSource().getType().getRank(),
                   arith::ConstantIndexOp::create(builder, loc, 0));
  std::string why;
  FailureOr<TmaSource> source =
      getTmaSource(mapping.lookupOrDefault(copy.getSource()), why);
  assert(succeeded(source) && "a copy whyNotTma rejects");
  auto load = TmaLoadOp::create(builder, loc, source->argument,
                                source->buildIndices(builder, loc, indices),
                                mapping.lookup(copy.getTarget()), barriers,
                                barrierId);
  load.setSwizzle(swizzle);
  return load;
}

std::optional<std::string> tile::whyNotTma(Value source, AllocSharedOp alloc) {
  std::string why;
  FailureOr<TmaSource> tmaSource = getTmaSource(source, why);
  if (failed(tmaSource))
    return why;
  BlockArgument argument = tmaSource->argument;
  auto sourceType = cast<MemRefType>(argument.getType());
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
