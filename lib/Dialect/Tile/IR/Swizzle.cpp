//===- Swizzle.cpp - XOR-swizzled shared-memory tiles ---------------------===//

#include "tile/Dialect/Tile/IR/Swizzle.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;

/// Bytes per chunk that moves as one unit.
static constexpr int64_t kChunkBytes = 16;

namespace {
/// The constants of the swizzle of one buffer type.
struct SwizzleShape {
  int64_t rowElements;
  int64_t rowsPerLine;
  int64_t chunkElements;
};
} // namespace

static SwizzleShape getShape(MemRefType type) {
  int64_t elementBytes = llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  int64_t rowElements = type.getShape().back();
  int64_t rowBytes = rowElements * elementBytes;
  return {rowElements, std::max<int64_t>(1, kSwizzleBytes / rowBytes),
          kChunkBytes / elementBytes};
}

std::optional<std::string> tile::whyNotSwizzlable(MemRefType type) {
  if (type.getRank() < 2 || !type.hasStaticShape())
    return std::string("a swizzled buffer has a static shape of rank 2 or "
                       "more (its last two dimensions are the tile)");
  if (type.getNumElements() == 0)
    return std::string("a swizzled buffer is not empty");
  Type element = type.getElementType();
  if (!element.isIntOrFloat())
    return std::string("a swizzled buffer holds integers or floats");
  int64_t bits = element.getIntOrFloatBitWidth();
  if (bits % 8 != 0 || !llvm::isPowerOf2_64(bits / 8) || bits / 8 > 16)
    return std::string("a swizzled buffer's elements are 1, 2, 4, 8 or 16 "
                       "bytes");
  int64_t rowBytes = type.getShape().back() * (bits / 8);
  int64_t rows = type.getShape()[type.getRank() - 2];
  if (rowBytes % kChunkBytes != 0)
    return "its rows of " + std::to_string(rowBytes) +
           " bytes are not a multiple of 16 bytes";
  if (rowBytes >= kSwizzleBytes && rowBytes % kSwizzleBytes != 0)
    return "its rows of " + std::to_string(rowBytes) +
           " bytes are not a multiple of 128 bytes";
  if (rowBytes < kSwizzleBytes &&
      (kSwizzleBytes % rowBytes != 0 || (rows * rowBytes) % kSwizzleBytes))
    return "its rows of " + std::to_string(rowBytes) + " bytes (x " +
           std::to_string(rows) + ") do not fill whole 128-byte lines";
  return std::nullopt;
}

SmallVector<Value> tile::buildSwizzledIndices(OpBuilder &builder, Location loc,
                                              MemRefType type,
                                              ValueRange indices) {
  SwizzleShape shape = getShape(type);
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, value);
  };
  size_t rank = indices.size();
  Value row = indices[rank - 2], column = indices[rank - 1];
  Value line = shape.rowsPerLine == 1
                   ? row
                   : arith::DivUIOp::create(builder, loc, row,
                                            constant(shape.rowsPerLine));
  Value mask = arith::MulIOp::create(
      builder, loc, arith::RemUIOp::create(builder, loc, line, constant(8)),
      constant(shape.chunkElements));
  SmallVector<Value> result(indices);
  if (shape.rowsPerLine == 1) {
    // The row keeps its place; only the chunk within it moves.
    result[rank - 1] = arith::XOrIOp::create(builder, loc, column, mask);
    return result;
  }
  Value linear = arith::AddIOp::create(
      builder, loc,
      arith::MulIOp::create(builder, loc, row, constant(shape.rowElements)),
      column);
  Value swizzled = arith::XOrIOp::create(builder, loc, linear, mask);
  result[rank - 2] = arith::DivUIOp::create(builder, loc, swizzled,
                                            constant(shape.rowElements));
  result[rank - 1] = arith::RemUIOp::create(builder, loc, swizzled,
                                            constant(shape.rowElements));
  return result;
}

std::pair<int64_t, int64_t>
tile::getSwizzledPosition(MemRefType type, int64_t row, int64_t column) {
  SwizzleShape shape = getShape(type);
  int64_t mask = ((row / shape.rowsPerLine) % 8) * shape.chunkElements;
  int64_t linear = (row * shape.rowElements + column) ^ mask;
  return {linear / shape.rowElements, linear % shape.rowElements};
}
