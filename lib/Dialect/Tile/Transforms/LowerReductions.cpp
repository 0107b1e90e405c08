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
// The buffer form (a per-thread register tile reduced in place) combines
// each element by shuffles over the lane bits, then the remaining members of
// a group meet in a shared buffer with one slot per thread and element: each
// member combines a share of the elements (a reduce-scatter) and every
// thread reads all of them back.
//
// f16 and bf16 travel in the low half of a 32-bit shuffle and are combined
// in their own type. Every thread of a group ends with the same bits.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "tile/Dialect/Tile/IR/Limits.h"
#include "tile/Dialect/Tile/IR/MemorySpaces.h"
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

/// Most bytes of the shared buffer through which the buffer form of a
/// reduction meets; larger buffers go through it in chunks.
static constexpr int64_t kBufferScratchBytes = 32 * 1024;

/// Most members of a group whose partials are combined by straight-line
/// code; larger groups (a tree over up to 1024 threads) take a loop.
static constexpr int64_t kMaxUnrolledMembers = 32;

/// How the threads of a reduction's groups meet. In a block whose extents
/// are all powers of two, the reduced bits of the linear thread index below
/// 5 are combined by shuffles, and the reduced bits from 5 up (`warpMask`)
/// select the members that meet in shared memory. In any other block every
/// thread of a group is a member, numbered by its reduced coordinates.
struct ReductionGroups {
  ReductionGroups(PatternRewriter &b, Location loc, ThreadAllReduceOp op)
      : b(b), loc(loc), kernel(op->getParentOfType<KernelOp>()) {
    for (Dim dim : {Dim::x, Dim::y, Dim::z})
      extents.push_back(kernel.getThreadExtent(dim));
    for (Attribute attr : op.getDims())
      reduced[static_cast<int>(cast<DimAttr>(attr).getValue())] = true;
    numThreads = kernel.getNumThreads();
    powerOfTwo = llvm::all_of(extents, llvm::isPowerOf2_64);
    if (powerOfTwo) {
      int64_t reducedMask = 0;
      unsigned bit = 0;
      for (int d = 0; d < 3; ++d) {
        unsigned bits = llvm::Log2_64(extents[d]);
        if (reduced[d])
          reducedMask |= ((int64_t(1) << bits) - 1) << bit;
        bit += bits;
      }
      width = std::min(kWarpSize, numThreads);
      for (int64_t offset = width / 2; offset >= 1; offset /= 2)
        if (reducedMask & offset)
          shuffleOffsets.push_back(offset);
      warpMask = reducedMask & ~(kWarpSize - 1);
      numMembers = int64_t(1) << llvm::popcount(uint64_t(warpMask));
    } else {
      for (int d = 0; d < 3; ++d)
        if (reduced[d])
          numMembers *= extents[d];
    }
  }

  /// `value` combined over the lanes of its group (an xor butterfly).
  Value combineLanes(ReduceKind kind, Value value) {
    for (int64_t offset : shuffleOffsets)
      value = buildReduceCombine(b, loc, kind, value,
                                 buildShuffleXor(b, loc, value, offset, width));
    return value;
  }

  Value linearThread() {
    if (!linear)
      linear = buildLinearThreadId(b, loc, kernel);
    return linear;
  }

  /// The positions of the bits of `warpMask`, lowest first: member bit i is
  /// thread index bit warpBits()[i].
  SmallVector<int64_t> warpBits() const {
    SmallVector<int64_t> bits;
    for (int64_t bit = 0; bit < 63 && (int64_t(1) << bit) <= warpMask; ++bit)
      if (warpMask & (int64_t(1) << bit))
        bits.push_back(bit);
    return bits;
  }

  /// Bit `from` of `value` moved to bit `to`.
  Value moveBit(Value value, int64_t from, int64_t to) {
    Value shifted =
        arith::ShRUIOp::create(b, loc, value, constantIndex(b, loc, from));
    Value one =
        arith::AndIOp::create(b, loc, shifted, constantIndex(b, loc, 1));
    return arith::ShLIOp::create(b, loc, one, constantIndex(b, loc, to));
  }

  /// This thread's number among its group's members.
  Value memberIndex() {
    if (powerOfTwo) {
      Value member = constantIndex(b, loc, 0);
      for (auto [position, bit] : llvm::enumerate(warpBits()))
        member = arith::OrIOp::create(
            b, loc, member, moveBit(linearThread(), bit, position));
      return member;
    }
    Value rank = constantIndex(b, loc, 0);
    for (int d = 2; d >= 0; --d)
      if (reduced[d])
        rank = arith::AddIOp::create(
            b, loc, coordinates()[d],
            arith::MulIOp::create(b, loc, rank,
                                  constantIndex(b, loc, extents[d])));
    return rank;
  }

  /// The linear thread index of member `member` of this thread's group.
  Value memberThread(Value member) {
    if (powerOfTwo) {
      Value thread = arith::AndIOp::create(b, loc, linearThread(),
                                           constantIndex(b, loc, ~warpMask));
      for (auto [position, bit] : llvm::enumerate(warpBits()))
        thread = arith::OrIOp::create(b, loc, thread,
                                      moveBit(member, position, bit));
      return thread;
    }
    SmallVector<Value, 3> coords(coordinates());
    for (int d = 0; d < 3; ++d) {
      if (!reduced[d])
        continue;
      Value extent = constantIndex(b, loc, extents[d]);
      coords[d] = arith::RemUIOp::create(b, loc, member, extent);
      member = arith::DivUIOp::create(b, loc, member, extent);
    }
    Value thread = coords[2];
    for (int d = 1; d >= 0; --d)
      thread = arith::AddIOp::create(
          b, loc, coords[d],
          arith::MulIOp::create(b, loc, thread,
                                constantIndex(b, loc, extents[d])));
    return thread;
  }
  Value memberThread(int64_t member) {
    return memberThread(constantIndex(b, loc, member));
  }

  ArrayRef<Value> coordinates() {
    if (coords.empty())
      for (Dim dim : {Dim::x, Dim::y, Dim::z})
        coords.push_back(static_cast<size_t>(dim) < kernel.getThreads().size()
                             ? ThreadIdOp::create(b, loc, dim).getResult()
                             : constantIndex(b, loc, 0));
    return coords;
  }

  /// A shared buffer of `size` elements at the top of the kernel.
  Value allocateScratch(int64_t size, Type type) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&kernel.getBody().front());
    auto memrefType = MemRefType::get(
        {size}, type, MemRefLayoutAttrInterface(),
        gpu::AddressSpaceAttr::get(b.getContext(),
                                   gpu::AddressSpace::Workgroup));
    return AllocSharedOp::create(b, loc, memrefType, IntegerAttr(),
                                 IntegerAttr());
  }

  PatternRewriter &b;
  Location loc;
  KernelOp kernel;
  SmallVector<int64_t, 3> extents;
  bool reduced[3] = {false, false, false};
  int64_t numThreads = 1;
  bool powerOfTwo = false;
  SmallVector<int64_t> shuffleOffsets;
  int64_t width = kWarpSize;
  int64_t warpMask = 0;
  int64_t numMembers = 1;
  Value linear;
  SmallVector<Value, 3> coords;
};

/// The shared buffer through which the buffer reductions of a kernel meet,
/// one per element type: each reduction ends with a barrier after its last
/// read, so the next one can reuse it. Sized for the largest of them
/// (`largest`, in elements), within kBufferScratchBytes.
struct BufferScratch {
  DenseMap<std::pair<Operation *, Type>, int64_t> largest;
  DenseMap<std::pair<Operation *, Type>, Value> buffers;
};

struct AllReduceLowering : OpRewritePattern<ThreadAllReduceOp> {
  AllReduceLowering(MLIRContext *context, BufferScratch &scratch,
                    bool &passFailed)
      : OpRewritePattern(context), scratch(scratch), passFailed(passFailed) {}

  LogicalResult matchAndRewrite(ThreadAllReduceOp op,
                                PatternRewriter &rewriter) const override {
    ReductionGroups groups(rewriter, op.getLoc(), op);
    if (op.getBuffer()) {
      if (failed(lowerBuffer(rewriter, op, groups))) {
        passFailed = true;
        return failure();
      }
      rewriter.eraseOp(op);
      return success();
    }
    Value result = groups.powerOfTwo ? lowerPowerOfTwo(rewriter, op, groups)
                                     : lowerTree(rewriter, op, groups);
    rewriter.replaceOp(op, result);
    return success();
  }

  static Value lowerPowerOfTwo(PatternRewriter &b, ThreadAllReduceOp op,
                               ReductionGroups &groups) {
    Location loc = op.getLoc();
    // Lanes first: an xor butterfly over the reduced lane bits.
    Value value = groups.combineLanes(op.getKind(), op.getValue());
    if (groups.warpMask == 0)
      return value;

    // Then warps: partials through shared memory, combined in a fixed order
    // so that every thread of a group computes the same bits.
    Value slots = groups.allocateScratch(groups.numThreads, value.getType());
    Value linear = groups.linearThread();
    memref::StoreOp::create(b, loc, value, slots, linear);
    createCompilerBarrier(b, loc, "tile-lower-reductions");
    Value accumulated = buildCombineWarpPartials(
        b, loc, op.getKind(), slots, /*first=*/0, linear, groups.warpMask);
    // The slots may be written again (a loop): wait for every reader.
    createCompilerBarrier(b, loc, "tile-lower-reductions");
    return accumulated;
  }

  static Value lowerTree(PatternRewriter &b, ThreadAllReduceOp op,
                         ReductionGroups &groups) {
    Location loc = op.getLoc();
    Value slots =
        groups.allocateScratch(groups.numThreads, op.getValue().getType());
    // The thread's index within its group (reduced dims, x fastest).
    int64_t groupSize = groups.numMembers;
    Value rank = groups.memberIndex();
    Value own = groups.memberThread(rank);
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
        Value theirs =
            memref::LoadOp::create(b, loc, slots, groups.memberThread(partner));
        memref::StoreOp::create(
            b, loc, buildReduceCombine(b, loc, op.getKind(), mine, theirs),
            slots, own);
      }
      createCompilerBarrier(b, loc, "tile-lower-reductions");
    }
    Value result =
        memref::LoadOp::create(b, loc, slots, groups.memberThread(0));
    createCompilerBarrier(b, loc, "tile-lower-reductions");
    return result;
  }

  /// The buffer form. Lanes combine each element by shuffles; the members
  /// that remain meet in a shared buffer holding, for a chunk of elements,
  /// one slot per thread and element (element-major, so that a warp's
  /// accesses fall in distinct banks). Per chunk: every thread stores its
  /// elements; member m combines elements m, m + M, ... over the M members
  /// in a fixed order and stores the result in member 0's slot; every
  /// thread reads the results back. A barrier follows each step.
  LogicalResult lowerBuffer(PatternRewriter &b, ThreadAllReduceOp op,
                            ReductionGroups &groups) const {
    Location loc = op.getLoc();
    TypedValue<MemRefType> buffer = op.getBuffer();
    MemRefType bufferType = buffer.getType();
    Type elementType = bufferType.getElementType();
    int64_t numElements = bufferType.getNumElements();
    ArrayRef<int64_t> shape = bufferType.getShape();
    auto indicesOf = [&](int64_t element) {
      SmallVector<Value> indices(shape.size());
      for (int64_t d = shape.size() - 1; d >= 0; --d) {
        indices[d] = constantIndex(b, loc, element % shape[d]);
        element /= shape[d];
      }
      return indices;
    };

    auto combineLanes = [&] {
      if (groups.shuffleOffsets.empty())
        return;
      for (int64_t e = 0; e < numElements; ++e) {
        SmallVector<Value> indices = indicesOf(e);
        Value value = memref::LoadOp::create(b, loc, buffer, indices);
        memref::StoreOp::create(b, loc,
                                groups.combineLanes(op.getKind(), value),
                                buffer, indices);
      }
    };
    if (groups.numMembers == 1) {
      combineLanes();
      return success();
    }

    int64_t threads = groups.numThreads;
    int64_t elementBytes = getBufferElementBytes(elementType);
    std::pair<Operation *, Type> key = {groups.kernel, elementType};
    Value &shared = scratch.buffers[key];
    if (!shared) {
      // Within what the kernel leaves of the block's shared memory.
      int64_t budget = std::min(
          kBufferScratchBytes,
          kMaxSharedMemoryBytes - groups.kernel.getStaticSharedMemoryBytes());
      int64_t elements = std::min(budget / (threads * elementBytes),
                                  scratch.largest.lookup(key));
      if (elements < 1)
        return op.emitOpError("needs ")
               << threads * elementBytes
               << " bytes of shared memory to combine its buffer (one "
                  "element per thread), but the kernel leaves "
               << std::max<int64_t>(budget, 0) << " of the "
               << kMaxSharedMemoryBytes << " a block may use";
      shared = groups.allocateScratch(elements * threads, elementType);
    }
    Value scratchBuffer = shared;
    combineLanes();
    int64_t chunk = std::min(
        cast<MemRefType>(scratchBuffer.getType()).getNumElements() / threads,
        numElements);
    Value linear = groups.linearThread();
    Value member = groups.memberIndex();
    // The threads of this thread's group, in member order; a group of more
    // than kMaxUnrolledMembers is combined by a loop.
    SmallVector<Value> members;
    bool unrolled = groups.numMembers <= kMaxUnrolledMembers;
    for (int64_t k = 0, e = unrolled ? groups.numMembers : 1; k < e; ++k)
      members.push_back(groups.memberThread(k));
    auto slot = [&](Value element, Value thread) {
      return arith::AddIOp::create(
                 b, loc,
                 arith::MulIOp::create(b, loc, element,
                                       constantIndex(b, loc, threads)),
                 thread)
          .getResult();
    };
    for (int64_t first = 0; first < numElements; first += chunk) {
      int64_t count = std::min(chunk, numElements - first);
      for (int64_t e = 0; e < count; ++e) {
        Value value =
            memref::LoadOp::create(b, loc, buffer, indicesOf(first + e));
        memref::StoreOp::create(
            b, loc, value, scratchBuffer,
            slot(constantIndex(b, loc, e), linear));
      }
      createCompilerBarrier(b, loc, "tile-lower-reductions");
      auto loop = scf::ForOp::create(
          b, loc, member, constantIndex(b, loc, count),
          constantIndex(b, loc, groups.numMembers));
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(loop.getBody()->getTerminator());
        Value element = loop.getInductionVar();
        Value combined;
        for (Value thread : members) {
          Value partial =
              memref::LoadOp::create(b, loc, scratchBuffer, slot(element, thread));
          combined = combined ? buildReduceCombine(b, loc, op.getKind(),
                                                   combined, partial)
                              : partial;
        }
        if (!unrolled) {
          auto others = scf::ForOp::create(
              b, loc, constantIndex(b, loc, 1),
              constantIndex(b, loc, groups.numMembers),
              constantIndex(b, loc, 1), ValueRange{combined},
              // `b` itself builds the body (ForOp::build passes the
              // builder it was given, set inside the loop).
              [&](OpBuilder &, Location, Value k, ValueRange acc) {
                Value thread = groups.memberThread(k);
                Value partial =
                    memref::LoadOp::create(b, loc, scratchBuffer, slot(element, thread));
                scf::YieldOp::create(b, loc,
                                     buildReduceCombine(b, loc, op.getKind(),
                                                        acc.front(), partial));
              });
          combined = others.getResult(0);
        }
        memref::StoreOp::create(b, loc, combined, scratchBuffer,
                                slot(element, members.front()));
      }
      createCompilerBarrier(b, loc, "tile-lower-reductions");
      for (int64_t e = 0; e < count; ++e) {
        Value value = memref::LoadOp::create(
            b, loc, scratchBuffer,
            slot(constantIndex(b, loc, e), members.front()));
        memref::StoreOp::create(b, loc, value, buffer, indicesOf(first + e));
      }
      // The slots are written again by the next chunk or a later
      // reduction: wait for every reader.
      createCompilerBarrier(b, loc, "tile-lower-reductions");
    }
    return success();
  }

  BufferScratch &scratch;
  bool &passFailed;
};

struct TileLowerReductionsPass
    : tile::impl::TileLowerReductionsBase<TileLowerReductionsPass> {
  void runOnOperation() override {
    BufferScratch scratch;
    getOperation()->walk([&](ThreadAllReduceOp op) {
      if (TypedValue<MemRefType> buffer = op.getBuffer()) {
        int64_t &largest = scratch.largest[{
            op->getParentOfType<KernelOp>(),
            buffer.getType().getElementType()}];
        largest = std::max(largest, buffer.getType().getNumElements());
      }
    });
    bool failed = false;
    RewritePatternSet patterns(&getContext());
    patterns.add<AllReduceLowering>(&getContext(), scratch, failed);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
    if (failed)
      signalPassFailure();
  }
};

} // namespace
