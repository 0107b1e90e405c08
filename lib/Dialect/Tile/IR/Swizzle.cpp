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

namespace {
/// Index arithmetic by constants, as shifts and masks where the constant is
/// a power of two (every constant of the swizzle but the row and panel
/// counts), folded where the operands are constants: LLVM's InstCombine
/// would rewrite the divisions into these itself, revisiting every user
/// (docs/Pipeline.md, compile time). The structure of the computation is
/// the one LLVM folds best; see buildSwizzledIndices.
struct IndexBuilder {
  OpBuilder &builder;
  Location loc;

  Value constant(int64_t value) {
    return arith::ConstantIndexOp::create(builder, loc, value);
  }
  Value add(Value a, Value b) {
    return builder.createOrFold<arith::AddIOp>(loc, a, b);
  }
  Value bitXor(Value a, Value b) {
    return builder.createOrFold<arith::XOrIOp>(loc, a, b);
  }
  Value mul(Value a, int64_t b) {
    if (b == 1)
      return a;
    if (llvm::isPowerOf2_64(b))
      return builder.createOrFold<arith::ShLIOp>(loc, a,
                                                 constant(llvm::Log2_64(b)));
    return builder.createOrFold<arith::MulIOp>(loc, a, constant(b));
  }
  Value div(Value a, int64_t b) {
    if (b == 1)
      return a;
    if (llvm::isPowerOf2_64(b))
      return builder.createOrFold<arith::ShRUIOp>(loc, a,
                                                  constant(llvm::Log2_64(b)));
    return builder.createOrFold<arith::DivUIOp>(loc, a, constant(b));
  }
  Value rem(Value a, int64_t b) {
    if (b == 1)
      return constant(0);
    if (llvm::isPowerOf2_64(b))
      return builder.createOrFold<arith::AndIOp>(loc, a, constant(b - 1));
    return builder.createOrFold<arith::RemUIOp>(loc, a, constant(b));
  }
};
} // namespace

SmallVector<Value> tile::buildSwizzledIndices(OpBuilder &builder, Location loc,
                                              MemRefType type,
                                              ValueRange indices) {
  SwizzleShape shape = getShape(type);
  IndexBuilder b{builder, loc};
  size_t rank = indices.size();
  Value row = indices[rank - 2], column = indices[rank - 1];
  SmallVector<Value> result(indices);
  // The chunks of line `line` move by `mask` elements (xor), a multiple of
  // a chunk below a line: mask = (line mod 8) * chunk.
  auto getMask = [&](Value line) {
    return b.mul(b.rem(line, 8), shape.chunkElements);
  };
  if (shape.rowElements == shape.lineElements) {
    // One row per line: the row keeps its place, its chunks move.
    result[rank - 1] = b.bitXor(column, getMask(row));
    return result;
  }
  // The linear position, its chunks moved within the line, then (s / L, s
  // mod L), which the memref lowering's s / L * L + s mod L folds back
  // into s.
  Value linear;
  if (shape.isPanelled()) {
    Value panel = b.div(column, shape.lineElements);
    linear = b.add(b.add(b.mul(panel, shape.rows * shape.lineElements),
                         b.mul(row, shape.lineElements)),
                   b.rem(column, shape.lineElements));
  } else {
    linear = b.add(b.mul(row, shape.rowElements), column);
  }
  Value swizzled =
      b.bitXor(linear, getMask(b.div(linear, shape.lineElements)));
  result[rank - 2] = b.div(swizzled, shape.rowElements);
  result[rank - 1] = b.rem(swizzled, shape.rowElements);
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

std::optional<int64_t> tile::getSwizzledRowShift(MemRefType type,
                                                 int64_t shift) {
  SwizzleShape shape = getShape(type);
  // A row more moves the linear position by one row (rows up to a line) or
  // by one line (panelled rows: a panel's rows are lines).
  int64_t moved =
      shift * (shape.isPanelled() ? shape.lineElements : shape.rowElements);
  if (moved % (8 * shape.lineElements) != 0 || moved % shape.rowElements != 0)
    return std::nullopt;
  return moved / shape.rowElements;
}
