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
  int64_t rows;
  int64_t rowElements;
  int64_t elementBytes;
  /// Elements of a 128-byte line, and of a chunk.
  int64_t lineElements;
  int64_t chunkElements;

  /// Rows wider than a line are cut into panels of one line's width.
  bool isPanelled() const { return rowElements > lineElements; }
};
} // namespace

static SwizzleShape getShape(MemRefType type) {
  int64_t elementBytes = llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  return {type.getShape()[type.getRank() - 2], type.getShape().back(),
          elementBytes, kSwizzleBytes / elementBytes,
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
  auto mul = [&](Value a, int64_t b) -> Value {
    return arith::MulIOp::create(builder, loc, a, constant(b));
  };
  auto add = [&](Value a, Value b) -> Value {
    return arith::AddIOp::create(builder, loc, a, b);
  };
  auto div = [&](Value a, int64_t b) -> Value {
    return arith::DivUIOp::create(builder, loc, a, constant(b));
  };
  auto rem = [&](Value a, int64_t b) -> Value {
    return arith::RemUIOp::create(builder, loc, a, constant(b));
  };
  size_t rank = indices.size();
  Value row = indices[rank - 2], column = indices[rank - 1];
  SmallVector<Value> result(indices);
  if (shape.rowElements == shape.lineElements) {
    // One row per line: the row keeps its place, its chunks move.
    Value mask = mul(rem(row, 8), shape.chunkElements);
    result[rank - 1] = arith::XOrIOp::create(builder, loc, column, mask);
    return result;
  }
  Value linear, line;
  if (shape.isPanelled()) {
    Value panel = div(column, shape.lineElements);
    linear = add(add(mul(panel, shape.rows * shape.lineElements),
                     mul(row, shape.lineElements)),
                 rem(column, shape.lineElements));
  } else {
    linear = add(mul(row, shape.rowElements), column);
  }
  line = div(linear, shape.lineElements);
  Value swizzled = arith::XOrIOp::create(
      builder, loc, linear, mul(rem(line, 8), shape.chunkElements));
  result[rank - 2] = div(swizzled, shape.rowElements);
  result[rank - 1] = rem(swizzled, shape.rowElements);
  return result;
}

/// `linear` above, in elements.
static int64_t getLinearPosition(const SwizzleShape &shape, int64_t row,
                                 int64_t column) {
  if (!shape.isPanelled())
    return row * shape.rowElements + column;
  return (column / shape.lineElements) * shape.rows * shape.lineElements +
         row * shape.lineElements + column % shape.lineElements;
}

std::pair<int64_t, int64_t>
tile::getSwizzledPosition(MemRefType type, int64_t row, int64_t column) {
  SwizzleShape shape = getShape(type);
  int64_t linear = getLinearPosition(shape, row, column);
  int64_t mask = ((linear / shape.lineElements) % 8) * shape.chunkElements;
  int64_t swizzled = linear ^ mask;
  return {swizzled / shape.rowElements, swizzled % shape.rowElements};
}

int64_t tile::getSwizzledLinearOffset(MemRefType type, int64_t row,
                                      int64_t column) {
  SwizzleShape shape = getShape(type);
  return getLinearPosition(shape, row, column) * shape.elementBytes;
}
