//===- ApplySwizzles.cpp - Logical to physical indices of swizzled tiles --===//
//
// Rewrites every access to a `swizzle = 128` shared buffer from logical
// indices to the physical position (IR/Swizzle.h). It runs after
// vectorization, so that it sees the final accesses (vector loads and
// stores of up to 16 bytes, cp.async, ldmatrix), none of which crosses a
// 16-byte chunk; every analysis before it reasons on logical indices. The
// stages of a swizzled buffer in a rolled pipeline (views marked
// `tile.swizzle`) are rewritten the same way.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "tile/Dialect/Tile/Analysis/IndexAnalysis.h"
#include "tile/Dialect/Tile/IR/Swizzle.h"
#include "llvm/ADT/TypeSwitch.h"

#define DEBUG_TYPE "tile-apply-swizzles"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEAPPLYSWIZZLES
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

/// The smallest row shift that keeps the swizzle of `type`
/// (getSwizzledRowShift), at most the rows of 8 lines.
static std::optional<int64_t> getRowPeriod(MemRefType type) {
  for (int64_t rows = 1; rows <= 8 * kSwizzleBytes; rows *= 2)
    if (getSwizzledRowShift(type, rows))
      return rows;
  return std::nullopt;
}

/// Splits a row index `x + c` (arith.addi of a constant c >= 0, x provably
/// not negative) into `x + c mod p` and the physical rows that the rest of
/// c, a multiple of the period p that keeps the swizzle, moves it by; else
/// (row, 0).
static std::pair<Value, int64_t> splitRowShift(OpBuilder &builder, Location loc,
                                               MemRefType type, Value row) {
  auto add = row.getDefiningOp<arith::AddIOp>();
  std::optional<int64_t> period = getRowPeriod(type);
  if (!add || !period)
    return {row, 0};
  for (auto [x, c] : {std::pair(add.getLhs(), add.getRhs()),
                      std::pair(add.getRhs(), add.getLhs())}) {
    std::optional<int64_t> constant = getConstantIntValue(c);
    if (!constant || *constant < *period)
      continue;
    std::optional<IndexRange> range = getIndexRange(x);
    if (!range || range->lower < 0)
      continue;
    int64_t rest = *constant % *period;
    int64_t physical = *getSwizzledRowShift(type, *constant - rest);
    if (rest != 0)
      x = arith::AddIOp::create(
          builder, loc, x, arith::ConstantIndexOp::create(builder, loc, rest));
    return {x, physical};
  }
  return {row, 0};
}

/// Rewrites the indices `operands` (of `op`, addressing `type`) in place.
/// On an access marked tile.share_swizzle_rows, a row `x + c` is swizzled
/// as row `x + c mod p`, then moved by the rows the rest of c moves it (p:
/// the period of the swizzle in rows): the accesses of rows x, x + p, x +
/// 2p, ... share x's swizzle arithmetic (a tf32 wgmma gemm's B^T
/// registers, rows q + k0 and q + k0 + 4 for each K step k0; the ldmatrix
/// operands of an f16/bf16 mma.sync gemm, 2-3% faster on the H200). Not done
/// for every access: the same on the portable tf32 GEMM's mma.sync operands
/// (gemm/tf32.mlir, 146 -> 124 registers) ran 8% slower on the H200, ptxas
/// then scheduling its loads closer to their MMAs.
static void swizzle(Operation *op, MemRefType type,
                    MutableOperandRange operands) {
  OpBuilder builder(op);
  Location loc = op->getLoc();
  SmallVector<Value> indices = llvm::to_vector(ValueRange(operands));
  size_t rowDim = indices.size() - 2;
  auto [row, shift] = op->hasAttr(kShareSwizzleRowsAttr)
                          ? splitRowShift(builder, loc, type, indices[rowDim])
                          : std::pair(indices[rowDim], int64_t(0));
  indices[rowDim] = row;
  SmallVector<Value> physical =
      buildSwizzledIndices(builder, loc, type, indices);
  if (shift != 0)
    physical[rowDim] = arith::AddIOp::create(
        builder, loc, physical[rowDim],
        arith::ConstantIndexOp::create(builder, loc, shift));
  operands.assign(physical);
}

/// Rewrites the access `user` makes to the swizzled `buffer`; fails on a
/// use that is not an access the rewrite knows.
static LogicalResult rewriteUse(Operation *user, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  return llvm::TypeSwitch<Operation *, LogicalResult>(user)
      .Case([&](memref::LoadOp op) {
        swizzle(op, type, op.getIndicesMutable());
        return success();
      })
      .Case([&](memref::StoreOp op) {
        if (op.getValueToStore() == buffer)
          return failure();
        swizzle(op, type, op.getIndicesMutable());
        return success();
      })
      .Case([&](vector::LoadOp op) {
        swizzle(op, type, op.getIndicesMutable());
        return success();
      })
      .Case([&](vector::StoreOp op) {
        swizzle(op, type, op.getIndicesMutable());
        return success();
      })
      .Case([&](nvgpu::LdMatrixOp op) {
        swizzle(op, type, op.getIndicesMutable());
        return success();
      })
      .Case([&](memref::ExtractAlignedPointerAsIndexOp) {
        // The buffer's start, which swizzling does not move: the base of
        // wgmma descriptors, whose lowering addresses the physical layout.
        return success();
      })
      .Case([&](TmaLoadOp op) {
        // TMA writes the whole tile in the swizzled layout itself.
        return success(op.getTarget() == buffer && op.getSwizzle() != 0);
      })
      .Case([&](TmaStoreOp op) {
        // And reads it so.
        return success(op.getSource() == buffer && op.getSwizzle() != 0);
      })
      .Case([&](nvgpu::DeviceAsyncCopyOp op) {
        if (op.getDst() != buffer)
          return failure();
        swizzle(op, type, op.getDstIndicesMutable());
        return success();
      })
      .Default([](Operation *) { return failure(); });
}

namespace {

struct TileApplySwizzles
    : tile::impl::TileApplySwizzlesBase<TileApplySwizzles> {
  void runOnOperation() override {
    SmallVector<Value> buffers;
    getOperation().getBody().walk([&](Operation *op) {
      if (auto alloc = dyn_cast<AllocSharedOp>(op); alloc && alloc.isSwizzled())
        buffers.push_back(alloc.getResult());
      if (isa<memref::ViewOp>(op) && op->hasAttr(kSwizzledViewAttr))
        buffers.push_back(op->getResult(0));
    });
    // A select of swizzled buffers (a tile chosen at run time) is one too:
    // its uses are rewritten as theirs.
    for (size_t i = 0; i < buffers.size(); ++i)
      for (Operation *user : buffers[i].getUsers())
        if (auto select = dyn_cast<arith::SelectOp>(user);
            select && llvm::is_contained(buffers, select.getTrueValue()) &&
            llvm::is_contained(buffers, select.getFalseValue()) &&
            !llvm::is_contained(buffers, select.getResult()))
          buffers.push_back(select.getResult());
    for (Value buffer : buffers) {
      for (Operation *user : llvm::to_vector(buffer.getUsers())) {
        if (auto select = dyn_cast<arith::SelectOp>(user);
            select && llvm::is_contained(buffers, select.getResult()))
          continue;
        if (succeeded(rewriteUse(user, buffer)))
          continue;
        user->emitError("'")
            << user->getName()
            << "' uses a swizzled shared buffer in a way whose addresses "
               "cannot be swizzled (only loads, stores, vector loads and "
               "stores, cp.async, ldmatrix and wgmma descriptors of the "
               "buffer itself can); "
               "give the buffer swizzle = 0";
        return signalPassFailure();
      }
    }
  }
};

} // namespace
