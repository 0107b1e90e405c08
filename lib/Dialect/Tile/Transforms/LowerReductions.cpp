//===- LowerReductions.cpp - tile.thread_allreduce to shuffles and smem ---===//
//
// Two lowerings, chosen per op (docs/Reductions.md explains them):
//
// - every block extent a power of two: the linear thread index splits into
//   bit fields of x, y and z. Reduced bits below 5 are lane bits: an xor
//   butterfly of warp shuffles combines them. Reduced bits from 5 up select
//   warps: each thread stores its warp's partial in shared memory, and after
//   a barrier combines the partials of its group's warps in a fixed order.
// - any other shape: each thread stores its value, then a tree over the
//   group's reduction index halves the active range per step, with a barrier
//   between steps; every thread reads the group's result.
//
// f16 and bf16 travel in the low half of a 32-bit shuffle and are combined
// in their own type. Every thread of a group ends with the same bits.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "tile/Dialect/Tile/Transforms/Distribution.h"
#include "tile/Dialect/Tile/Transforms/ReductionBuilders.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-lower-reductions"

namespace mlir::tile {
#define GEN_PASS_DEF_TILELOWERREDUCTIONS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

static constexpr int64_t kWarpSize = 32;

Value tile::buildReduceCombine(OpBuilder &b, Location loc, ReduceKind kind,
                               Value lhs, Value rhs) {
  bool isFloat = isa<FloatType>(lhs.getType());
  switch (kind) {
  case ReduceKind::add:
    return isFloat ? arith::AddFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::AddIOp::create(b, loc, lhs, rhs).getResult();
  case ReduceKind::mul:
    return isFloat ? arith::MulFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::MulIOp::create(b, loc, lhs, rhs).getResult();
  case ReduceKind::max:
    return isFloat ? arith::MaximumFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::MaxSIOp::create(b, loc, lhs, rhs).getResult();
  case ReduceKind::min:
    return isFloat ? arith::MinimumFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::MinSIOp::create(b, loc, lhs, rhs).getResult();
  case ReduceKind::and_:
    return arith::AndIOp::create(b, loc, lhs, rhs);
  case ReduceKind::or_:
    return arith::OrIOp::create(b, loc, lhs, rhs);
  case ReduceKind::xor_:
    return arith::XOrIOp::create(b, loc, lhs, rhs);
  }
  llvm_unreachable("unknown reduction");
}

Value tile::buildShuffleXor(OpBuilder &b, Location loc, Value value,
                            int64_t offset, int64_t width) {
  Type type = value.getType();
  if (type.getIntOrFloatBitWidth() == 32)
    return gpu::ShuffleOp::create(b, loc, value, offset, width,
                                  gpu::ShuffleMode::XOR)
        .getShuffleResult();
  Type i16 = b.getI16Type(), i32 = b.getI32Type();
  Value bits = arith::BitcastOp::create(b, loc, i16, value);
  Value wide = arith::ExtUIOp::create(b, loc, i32, bits);
  Value moved = gpu::ShuffleOp::create(b, loc, wide, offset, width,
                                       gpu::ShuffleMode::XOR)
                    .getShuffleResult();
  Value narrow = arith::TruncIOp::create(b, loc, i16, moved);
  return arith::BitcastOp::create(b, loc, type, narrow);
}

static Value constantIndex(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

Value tile::buildCombineWarpPartials(OpBuilder &b, Location loc,
                                     ReduceKind kind, Value slots,
                                     int64_t first, Value thread,
                                     int64_t warpBits) {
  Value base =
      arith::AndIOp::create(b, loc, thread, constantIndex(b, loc, ~warpBits));
  SmallVector<int64_t> bits;
  for (int64_t bit = 1; bit > 0 && bit <= warpBits; bit <<= 1)
    if (warpBits & bit)
      bits.push_back(bit);
  Value accumulated;
  for (int64_t k = 0, e = int64_t(1) << bits.size(); k < e; ++k) {
    int64_t offset = 0;
    for (auto [i, bit] : llvm::enumerate(bits))
      if (k & (int64_t(1) << i))
        offset |= bit;
    Value member =
        arith::OrIOp::create(b, loc, base, constantIndex(b, loc, offset));
    Value slot = first ? arith::AddIOp::create(b, loc, member,
                                               constantIndex(b, loc, first))
                             .getResult()
                       : member;
    Value partial = memref::LoadOp::create(b, loc, slots, slot);
    accumulated = accumulated
                      ? buildReduceCombine(b, loc, kind, accumulated, partial)
                      : partial;
  }
  return accumulated;
}

namespace {

struct AllReduceLowering : OpRewritePattern<ThreadAllReduceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ThreadAllReduceOp op,
                                PatternRewriter &rewriter) const override {
    auto kernel = op->getParentOfType<KernelOp>();
    SmallVector<int64_t, 3> extents;
    bool reduced[3] = {false, false, false};
    for (Dim dim : {Dim::x, Dim::y, Dim::z})
      extents.push_back(kernel.getThreadExtent(dim));
    for (Attribute attr : op.getDims())
      reduced[static_cast<int>(cast<DimAttr>(attr).getValue())] = true;

    Location loc = op.getLoc();
    Value result;
    if (llvm::all_of(extents, llvm::isPowerOf2_64))
      result = lowerPowerOfTwo(rewriter, loc, op, kernel, extents, reduced);
    else
      result = lowerTree(rewriter, loc, op, kernel, extents, reduced);
    rewriter.replaceOp(op, result);
    return success();
  }

  /// A shared buffer with one slot per thread, at the top of the kernel.
  static Value allocateSlots(OpBuilder &b, Location loc, KernelOp kernel,
                             Type type) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&kernel.getBody().front());
    auto memrefType = MemRefType::get(
        {kernel.getNumThreads()}, type, MemRefLayoutAttrInterface(),
        gpu::AddressSpaceAttr::get(b.getContext(),
                                   gpu::AddressSpace::Workgroup));
    return AllocSharedOp::create(b, loc, memrefType, IntegerAttr(),
                                 IntegerAttr());
  }

  static Value lowerPowerOfTwo(PatternRewriter &b, Location loc,
                               ThreadAllReduceOp op, KernelOp kernel,
                               ArrayRef<int64_t> extents,
                               const bool reduced[3]) {
    // Bit fields of the linear thread index.
    int64_t reducedMask = 0;
    unsigned bit = 0;
    for (int d = 0; d < 3; ++d) {
      unsigned bits = llvm::Log2_64(extents[d]);
      if (reduced[d])
        reducedMask |= ((int64_t(1) << bits) - 1) << bit;
      bit += bits;
    }
    int64_t numThreads = kernel.getNumThreads();
    int64_t width = std::min(kWarpSize, numThreads);
    Value value = op.getValue();
    // Lanes first: an xor butterfly over the reduced lane bits.
    for (int64_t offset = width / 2; offset >= 1; offset /= 2)
      if (reducedMask & offset)
        value =
            buildReduceCombine(b, loc, op.getKind(), value,
                               buildShuffleXor(b, loc, value, offset, width));
    int64_t warpMask = reducedMask & ~(kWarpSize - 1);
    if (warpMask == 0)
      return value;

    // Then warps: partials through shared memory, combined in a fixed order
    // so that every thread of a group computes the same bits.
    Value slots = allocateSlots(b, loc, kernel, value.getType());
    Value linear = buildLinearThreadId(b, loc, kernel);
    memref::StoreOp::create(b, loc, value, slots, linear);
    createCompilerBarrier(b, loc, "tile-lower-reductions");
    Value accumulated = buildCombineWarpPartials(b, loc, op.getKind(), slots,
                                                 /*first=*/0, linear, warpMask);
    // The slots may be written again (a loop): wait for every reader.
    createCompilerBarrier(b, loc, "tile-lower-reductions");
    return accumulated;
  }

  static Value lowerTree(PatternRewriter &b, Location loc,
                         ThreadAllReduceOp op, KernelOp kernel,
                         ArrayRef<int64_t> extents, const bool reduced[3]) {
    Value slots = allocateSlots(b, loc, kernel, op.getValue().getType());
    SmallVector<Value, 3> coords;
    for (Dim dim : {Dim::x, Dim::y, Dim::z})
      coords.push_back(static_cast<size_t>(dim) < kernel.getThreads().size()
                           ? ThreadIdOp::create(b, loc, dim).getResult()
                           : constantIndex(b, loc, 0));
    // The thread's index within its group (reduced dims, x fastest) and the
    // slot of the group member with index `r`.
    int64_t groupSize = 1;
    Value rank = constantIndex(b, loc, 0);
    for (int d = 2; d >= 0; --d) {
      if (!reduced[d])
        continue;
      rank = arith::AddIOp::create(
          b, loc, coords[d],
          arith::MulIOp::create(b, loc, rank,
                                constantIndex(b, loc, extents[d])));
      groupSize *= extents[d];
    }
    auto slotOf = [&](Value r) {
      SmallVector<Value, 3> member(coords);
      for (int d = 0; d < 3; ++d) {
        if (!reduced[d])
          continue;
        Value extent = constantIndex(b, loc, extents[d]);
        member[d] = arith::RemUIOp::create(b, loc, r, extent);
        r = arith::DivUIOp::create(b, loc, r, extent);
      }
      Value slot = member[2];
      slot = arith::AddIOp::create(
          b, loc, member[1],
          arith::MulIOp::create(b, loc, slot, constantIndex(b, loc, extents[1])));
      return arith::AddIOp::create(
                 b, loc, member[0],
                 arith::MulIOp::create(b, loc, slot,
                                       constantIndex(b, loc, extents[0])))
          .getResult();
    };
    Value own = slotOf(rank);
    memref::StoreOp::create(b, loc, op.getValue(), slots, own);
    createCompilerBarrier(b, loc, "tile-lower-reductions");
    for (int64_t stride = llvm::PowerOf2Ceil(groupSize) / 2; stride >= 1;
         stride /= 2) {
      Value partner = arith::AddIOp::create(b, loc, rank,
                                            constantIndex(b, loc, stride));
      Value active = arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, rank,
                                constantIndex(b, loc, stride)),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, partner,
                                constantIndex(b, loc, groupSize)));
      auto step = scf::IfOp::create(b, loc, active, /*withElseRegion=*/false);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(step.thenBlock()->getTerminator());
        Value mine = memref::LoadOp::create(b, loc, slots, own);
        Value theirs = memref::LoadOp::create(b, loc, slots, slotOf(partner));
        memref::StoreOp::create(
            b, loc, buildReduceCombine(b, loc, op.getKind(), mine, theirs),
            slots, own);
      }
      createCompilerBarrier(b, loc, "tile-lower-reductions");
    }
    Value result =
        memref::LoadOp::create(b, loc, slots, slotOf(constantIndex(b, loc, 0)));
    createCompilerBarrier(b, loc, "tile-lower-reductions");
    return result;
  }
};

struct TileLowerReductionsPass
    : tile::impl::TileLowerReductionsBase<TileLowerReductionsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<AllReduceLowering>(&getContext());
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace
