//===- CopyOps.cpp - Moving and setting tiles -----------------------------===//
//
// tile.copy, tile.fill and tile.clear: their tile shapes, when they are
// collective (not when they only touch a thread's own buffer), and their
// verifiers. The lowering is in Transforms/CopyLowering.cpp.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileOps.h"

#include "OpSyntax.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::detail;

//===----------------------------------------------------------------------===//
// CopyOp
//===----------------------------------------------------------------------===//

SmallVector<int64_t> CopyOp::getTileShape() {
  if (std::optional<ArrayRef<int64_t>> shape = getShape())
    return llvm::to_vector(*shape);
  if (getTargetIndices().empty())
    return llvm::to_vector(getTarget().getType().getShape());
  return llvm::to_vector(getSource().getType().getShape());
}

bool CopyOp::isCollective() {
  return !isThreadPrivateBuffer(getSource()) &&
         !isThreadPrivateBuffer(getTarget());
}

/// Checks the index count of one side of a copy.
static LogicalResult verifyCopySide(CopyOp op, StringRef side, MemRefType type,
                                    ValueRange indices) {
  if (!indices.empty() && indices.size() != static_cast<size_t>(type.getRank()))
    return op.emitOpError()
           << side << " has " << indices.size() << " indices but its rank is "
           << type.getRank();
  return success();
}

LogicalResult CopyOp::verify() {
  MemRefType source = getSource().getType();
  MemRefType target = getTarget().getType();
  // A copy out of or into a fragment converts between float types (an f32
  // accumulator stored as f16); other copies move bits.
  bool converts = (isFragment(getSource()) || isFragment(getTarget())) &&
                  isa<FloatType>(source.getElementType()) &&
                  isa<FloatType>(target.getElementType());
  if (source.getElementType() != target.getElementType() && !converts)
    return emitOpError("source element type ")
           << source.getElementType() << " and target element type "
           << target.getElementType()
           << " differ; tile.copy converts only between float types, with a "
              "fragment on one side";
  if (source.getRank() != target.getRank())
    return emitOpError("source (rank ")
           << source.getRank() << ") and target (rank " << target.getRank()
           << ") must have the same rank";
  if (getConvertLayout() &&
      (!isFragment(getSource()) || !isFragment(getTarget())))
    return emitOpError("'convert_layout' converts between two fragments' "
                       "layouts: both operands must be fragments");
  for (Value side : {getSource(), getTarget()})
    if (isFragment(side) && !side.getDefiningOp<AllocFragmentOp>())
      return emitOpError("a fragment operand must be a 'tile.alloc_fragment' "
                         "(not a view or another allocation of the "
                         "'#tile.fragment' space)");
  if (failed(verifyCopySide(*this, "source", source, getSourceIndices())) ||
      failed(verifyCopySide(*this, "target", target, getTargetIndices())))
    return failure();

  bool sourceIndexed = !getSourceIndices().empty();
  bool targetIndexed = !getTargetIndices().empty();
  if (sourceIndexed && targetIndexed && !getShape())
    return emitOpError("both operands are indexed; give the tile shape with "
                       "'shape [...]'");
  SmallVector<int64_t> tile = getTileShape();
  if (tile.size() != static_cast<size_t>(source.getRank()))
    return emitOpError("tile shape ")
           << formatExtents(tile) << " must have rank " << source.getRank();
  if (llvm::any_of(tile, [](int64_t e) { return ShapedType::isDynamic(e); }))
    return emitOpError("tile shape must be static, got ")
           << formatExtents(tile)
           << "; the operand without indices gives the tile shape";
  if (llvm::any_of(tile, [](int64_t e) { return e < 1; }))
    return emitOpError("tile shape must be positive, got ")
           << formatExtents(tile);
  for (auto [side, type, indexed] :
       {std::tuple<StringRef, MemRefType, bool>{"source", source,
                                                sourceIndexed},
        {"target", target, targetIndexed}})
    if (!indexed && type.getShape() != ArrayRef<int64_t>(tile))
      return emitOpError()
             << side << " " << type << " is copied as a whole, so its shape "
             << "must equal the tile shape " << formatExtents(tile);
  return success();
}

//===----------------------------------------------------------------------===//
// FillOp, ClearOp
//===----------------------------------------------------------------------===//

bool FillOp::isCollective() { return !isThreadPrivateBuffer(getBuffer()); }

bool ClearOp::isCollective() { return !isThreadPrivateBuffer(getBuffer()); }

LogicalResult ClearOp::verify() {
  Type element = getBuffer().getType().getElementType();
  Type scalar = getElementTypeOrSelf(element);
  if (!scalar.isIntOrIndexOrFloat())
    return emitOpError("cannot clear a buffer of ")
           << element << " elements: there is no zero of that type";
  return success();
}
