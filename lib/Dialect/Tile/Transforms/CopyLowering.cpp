//===- CopyLowering.cpp - tile.copy, tile.fill, tile.clear to threads -----===//
//
// Patterns of tile-lower-tile-ops that spread a copy or a fill over the
// block's threads: chunks of up to 16 bytes per thread and access, bounds
// tested per chunk (once when a chunk is provably wholly inside or outside),
// cp.async for pipelined copies (zero-filling what lies outside), constant
// indices for per-thread buffers so that they stay in registers.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/CopyLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "tile/Dialect/Tile/Analysis/IndexAnalysis.h"
#include "tile/Dialect/Tile/IR/Limits.h"
#include "tile/Dialect/Tile/Transforms/Distribution.h"
#include "tile/Dialect/Tile/Transforms/LoopUtils.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-lower-tile-ops"

using namespace mlir;
using namespace mlir::tile;

/// Widest vector access, in bytes.
static constexpr int64_t kMaxVectorBytes = 16;
/// Per-thread copies of at most this many chunks are unrolled.
static constexpr int64_t kMaxUnrolledChunks = 64;

/// Returns the number of elements of a chunk: the largest power of two whose
/// bytes fit a vector access and that divides the innermost extent.
static int64_t getChunkElements(Type elementType, int64_t innermostExtent) {
  if (!elementType.isIntOrIndexOrFloat() || elementType.isIndex())
    return 1;
  int64_t bytes = llvm::divideCeil(elementType.getIntOrFloatBitWidth(), 8);
  int64_t elements = std::max<int64_t>(1, kMaxVectorBytes / bytes);
  while (elements > 1 && innermostExtent % elements != 0)
    elements /= 2;
  return elements;
}

/// Returns true when the tile of `shape` at `offsets` lies inside `type` for
/// every value the offsets can take.
static bool isProvablyInBounds(MemRefType type, ValueRange offsets,
                               ArrayRef<int64_t> shape) {
  for (auto [dim, offset] : llvm::enumerate(offsets)) {
    if (type.isDynamicDim(dim))
      return false;
    std::optional<IndexRange> range = getIndexRange(offset);
    if (!range || range->lower < 0 ||
        range->upper + shape[dim] > type.getDimSize(dim))
      return false;
  }
  return true;
}

/// Returns `offsets[d] + indices[d]`, or `indices` when there are no offsets.
static SmallVector<Value> addOffsets(OpBuilder &builder, Location loc,
                                     ValueRange offsets, ValueRange indices) {
  if (offsets.empty())
    return llvm::to_vector(indices);
  SmallVector<Value> sums;
  for (auto [offset, index] : llvm::zip(offsets, indices))
    sums.push_back(arith::AddIOp::create(builder, loc, offset, index));
  return sums;
}

/// Returns `a && b`, or the one of them that is set.
static Value andConditions(OpBuilder &builder, Location loc, Value a,
                           Value b) {
  if (!a || !b)
    return a ? a : b;
  return arith::AndIOp::create(builder, loc, a, b);
}

/// Returns the condition that the tile of `extents` at `indices` lies inside
/// `memref`.
static Value buildInBounds(OpBuilder &builder, Location loc, Value memref,
                           ValueRange indices, ArrayRef<int64_t> extents) {
  Value inBounds;
  for (auto [dim, index] : llvm::enumerate(indices)) {
    Value size = memref::DimOp::create(builder, loc, memref, dim);
    // `index < size` also rejects indices that wrapped below zero (whose
    // end may wrap back into range).
    inBounds = andConditions(
        builder, loc, inBounds,
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult, index,
                              size));
    if (extents[dim] > 1) {
      Value end = arith::AddIOp::create(
          builder, loc, index,
          arith::ConstantIndexOp::create(builder, loc, extents[dim]));
      inBounds = andConditions(
          builder, loc, inBounds,
          arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ule, end,
                                size));
    }
  }
  return inBounds;
}

/// Returns the condition that `indices`, and the `extent - 1` elements after
/// the last one along the innermost dimension, lie inside `memref`.
static Value buildInBounds(OpBuilder &builder, Location loc, Value memref,
                           ValueRange indices, int64_t innermostExtent) {
  SmallVector<int64_t> extents(indices.size(), 1);
  extents.back() = innermostExtent;
  return buildInBounds(builder, loc, memref, indices, extents);
}

/// Replaces the innermost index by `index + offset`.
static SmallVector<Value> shiftInnermost(OpBuilder &builder, Location loc,
                                         ValueRange indices, Value offset) {
  SmallVector<Value> shifted(indices);
  shifted.back() = arith::AddIOp::create(builder, loc, shifted.back(), offset);
  return shifted;
}

namespace {

//===----------------------------------------------------------------------===//
// Copies and fills
//===----------------------------------------------------------------------===//

struct CopyLowering : OpRewritePattern<CopyOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(CopyOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MemRefType sourceType = op.getSource().getType();
    MemRefType targetType = op.getTarget().getType();
    SmallVector<int64_t> shape = op.getTileShape();
    int64_t chunk = getChunkElements(sourceType.getElementType(), shape.back());
    SmallVector<int64_t> chunks(shape);
    chunks.back() /= chunk;
    int64_t count = 1;
    for (int64_t extent : chunks)
      count *= extent;

    bool checkSource =
        !op.getSourceIndices().empty() &&
        !isProvablyInBounds(sourceType, op.getSourceIndices(), shape);
    bool checkTarget =
        !op.getTargetIndices().empty() &&
        !isProvablyInBounds(targetType, op.getTargetIndices(), shape);
    LLVM_DEBUG(llvm::dbgs() << "copy " << op << ": " << count << " chunks of "
                            << chunk << ", bounds tests: " << checkSource
                            << checkTarget << "\n");

    if (!checkSource && !checkTarget) {
      buildChunks(rewriter, loc, op, chunks, chunk, count,
                  /*checkSource=*/false, /*checkTarget=*/false);
    } else if (checkSource && !checkTarget &&
               succeeded(buildZeroFillingAsyncChunks(rewriter, loc, op, chunks,
                                                     chunk, count))) {
      // Done: one cp.async per chunk, zero-filled past the bounds.
    } else if (!op.isCollective() && count > 1) {
      // A thread's tile that may cross a bound usually does not: when the
      // whole tile is inside, its chunks copy without tests, in one straight
      // run that does not cut the code computing them into pieces. (A
      // collective copy has few chunks per thread; testing each costs less
      // than a second copy of the code.)
      Value inside;
      if (checkSource)
        inside = buildInBounds(rewriter, loc, op.getSource(),
                               op.getSourceIndices(), shape);
      if (checkTarget)
        inside = andConditions(rewriter, loc, inside,
                               buildInBounds(rewriter, loc, op.getTarget(),
                                             op.getTargetIndices(), shape));
      auto branch = scf::IfOp::create(rewriter, loc, inside,
                                      /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPoint(branch.thenBlock()->getTerminator());
        buildChunks(rewriter, loc, op, chunks, chunk, count,
                    /*checkSource=*/false, /*checkTarget=*/false);
        rewriter.setInsertionPoint(branch.elseBlock()->getTerminator());
        buildChunks(rewriter, loc, op, chunks, chunk, count, checkSource,
                    checkTarget);
      }
    } else {
      buildChunks(rewriter, loc, op, chunks, chunk, count, checkSource,
                  checkTarget);
    }
    rewriter.eraseOp(op);
    return success();
  }

  /// The source and target indices where chunk `linear` (of `chunks` per
  /// dimension, `chunk` elements each) starts.
  static std::pair<SmallVector<Value>, SmallVector<Value>>
  buildChunkStarts(PatternRewriter &rewriter, Location loc, CopyOp op,
                   Value linear, ArrayRef<int64_t> chunks, int64_t chunk) {
    SmallVector<Value> indices =
        buildDelinearize(rewriter, loc, linear, chunks);
    if (chunk > 1)
      indices.back() = arith::MulIOp::create(
          rewriter, loc, indices.back(),
          arith::ConstantIndexOp::create(rewriter, loc, chunk));
    return {addOffsets(rewriter, loc, op.getSourceIndices(), indices),
            addOffsets(rewriter, loc, op.getTargetIndices(), indices)};
  }

  /// Copies the `count` chunks of `chunk` elements (`chunks` per dimension)
  /// of `op`: spread over the block for a collective copy, unrolled in the
  /// thread otherwise; each chunk tested against the bounds asked for.
  static void buildChunks(PatternRewriter &rewriter, Location loc, CopyOp op,
                          ArrayRef<int64_t> chunks, int64_t chunk,
                          int64_t count, bool checkSource, bool checkTarget) {
    OpBuilder::InsertionGuard guard(rewriter);
    Value linear;
    if (op.isCollective()) {
      linear = buildDistributedLoop(rewriter, loc, op, count);
    } else {
      // A per-thread buffer stays in registers only with constant indices:
      // unroll the chunks of small per-thread copies.
      linear = buildSerialLoop(rewriter, loc, count);
      if (count <= kMaxUnrolledChunks)
        linear.getParentBlock()->getParentOp()->setAttr(
            kUnrollAttr, rewriter.getUnitAttr());
    }
    auto [sourceIndices, targetIndices] =
        buildChunkStarts(rewriter, loc, op, linear, chunks, chunk);

    if (!checkSource && !checkTarget) {
      buildChunkCopy(rewriter, loc, op, sourceIndices, targetIndices, chunk);
    } else if (chunk > 1 && !(checkSource && checkTarget) &&
               isWholeChunk(checkSource ? op.getSource() : op.getTarget(),
                            checkSource ? sourceIndices : targetIndices,
                            chunk)) {
      // The chunk is inside the checked operand or wholly outside it: no
      // element-wise copy. Outside the source, it reads as zeros; outside
      // the target, nothing is written.
      Value inBounds =
          checkSource
              ? buildInBounds(rewriter, loc, op.getSource(), sourceIndices,
                              chunk)
              : buildInBounds(rewriter, loc, op.getTarget(), targetIndices,
                              chunk);
      auto branch = scf::IfOp::create(rewriter, loc, inBounds,
                                      /*withElseRegion=*/checkSource);
      rewriter.setInsertionPoint(branch.thenBlock()->getTerminator());
      buildChunkCopy(rewriter, loc, op, sourceIndices, targetIndices, chunk);
      if (checkSource) {
        rewriter.setInsertionPoint(branch.elseBlock()->getTerminator());
        buildChunkZeros(rewriter, loc, op, targetIndices, chunk);
      }
    } else {
      Value inBounds;
      if (checkSource)
        inBounds = buildInBounds(rewriter, loc, op.getSource(), sourceIndices,
                                 chunk);
      if (checkTarget)
        inBounds = andConditions(rewriter, loc, inBounds,
                                 buildInBounds(rewriter, loc, op.getTarget(),
                                               targetIndices, chunk));
      auto branch = scf::IfOp::create(rewriter, loc, inBounds,
                                      /*withElseRegion=*/true);
      rewriter.setInsertionPoint(branch.thenBlock()->getTerminator());
      buildChunkCopy(rewriter, loc, op, sourceIndices, targetIndices, chunk);
      rewriter.setInsertionPoint(branch.elseBlock()->getTerminator());
      buildGuardedElementCopy(rewriter, loc, op, sourceIndices, targetIndices,
                              chunk, checkSource, checkTarget);
    }
  }

  /// An asynchronous copy (`tile.async`: a pipelined copy) from a global
  /// tile that may cross the source's bounds into shared memory: one
  /// cp.async per chunk, whose `src-size` operand counts the chunk's
  /// elements inside the source; the hardware zero-fills the rest. No
  /// branch and no element-wise copy. Fails, having built nothing, unless
  /// every chunk is 4, 8 or 16 bytes aligned to its size at both ends.
  static LogicalResult
  buildZeroFillingAsyncChunks(PatternRewriter &rewriter, Location loc,
                              CopyOp op, ArrayRef<int64_t> chunks,
                              int64_t chunk, int64_t count) {
    Value source = op.getSource(), target = op.getTarget();
    auto sourceType = cast<MemRefType>(source.getType());
    Type elementType = sourceType.getElementType();
    if (!op->hasAttr(kAsyncAttr) || !op.isCollective() ||
        !isGlobalBuffer(source) ||
        getMemorySpace(op.getTarget().getType()) != MemorySpace::Shared ||
        elementType != op.getTarget().getType().getElementType() ||
        !elementType.isIntOrFloat() ||
        elementType.getIntOrFloatBitWidth() % 8 != 0)
      return failure();
    int64_t bytes = chunk * elementType.getIntOrFloatBitWidth() / 8;
    if (bytes != 4 && bytes != 8 && bytes != 16)
      return failure();

    // Chunk c of a dimension starts at offset + c (* chunk, innermost).
    auto divisors = [&](ValueRange offsets) {
      SmallVector<int64_t> result;
      for (size_t dim = 0; dim < chunks.size(); ++dim) {
        bool innermost = dim + 1 == chunks.size();
        int64_t step = innermost ? chunk : 1;
        int64_t divisor = chunks[dim] > 1 ? step : int64_t(1) << 30;
        if (!offsets.empty())
          divisor = std::min(divisor, getKnownDivisor(offsets[dim]));
        result.push_back(divisor);
      }
      return result;
    };
    if (getKnownAccessAlignment(source, divisors(op.getSourceIndices())) <
            bytes ||
        getKnownAccessAlignment(target, divisors(op.getTargetIndices())) <
            bytes)
      return failure();

    OpBuilder::InsertionGuard guard(rewriter);
    Value linear = buildDistributedLoop(rewriter, loc, op, count);
    auto [sourceIndices, targetIndices] =
        buildChunkStarts(rewriter, loc, op, linear, chunks, chunk);

    // The chunk's elements inside the source: 0 when a row index is out of
    // bounds, else min(size - column, chunk) along the innermost dimension
    // (the whole chunk when chunks cannot straddle the row's end).
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value chunkSize = arith::ConstantIndexOp::create(rewriter, loc, chunk);
    Value rowsInside;
    for (size_t dim = 0; dim + 1 < sourceIndices.size(); ++dim)
      rowsInside = andConditions(
          rewriter, loc, rowsInside,
          arith::CmpIOp::create(
              rewriter, loc, arith::CmpIPredicate::ult, sourceIndices[dim],
              memref::DimOp::create(rewriter, loc, source, dim)));
    Value column = sourceIndices.back();
    Value width = memref::DimOp::create(rewriter, loc, source,
                                        sourceIndices.size() - 1);
    Value inside = andConditions(
        rewriter, loc, rowsInside,
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                              column, width));
    Value inRow =
        isWholeChunk(source, sourceIndices, chunk)
            ? chunkSize
            : arith::MinUIOp::create(
                  rewriter, loc,
                  arith::SubIOp::create(rewriter, loc, width, column),
                  chunkSize)
                  .getResult();
    Value valid = arith::SelectOp::create(rewriter, loc, inside, inRow, zero);
    // Outside the source the address is not clamped: cp.async with a
    // source size of 0 reads nothing (CUTLASS's cp_async_zfill, Triton's
    // masked cp.async do the same; compute-sanitizer's memcheck is clean on
    // examples/gemm/mma_sync.mlir at shapes cut by the bounds). Unclamped,
    // the address stays an affine function of the loop, which LLVM
    // strength-reduces.
    nvgpu::DeviceAsyncCopyOp::create(
        rewriter, loc, target, targetIndices, source, sourceIndices,
        rewriter.getIndexAttr(chunk), valid,
        bytes == 16 ? rewriter.getUnitAttr() : UnitAttr());
    return success();
  }

  /// True when a chunk of `chunk` elements at `indices` of `memref` is
  /// either wholly inside it or wholly outside: the chunk starts at a
  /// multiple of `chunk` along the innermost dimension, whose size is one
  /// too (static, or a declared `tile.multiple_of`).
  static bool isWholeChunk(Value memref, ValueRange indices, int64_t chunk) {
    auto type = cast<MemRefType>(memref.getType());
    int64_t size = type.getShape().back();
    if (ShapedType::isDynamic(size)) {
      std::optional<int64_t> multiple = getDeclaredMultiple(memref);
      if (!multiple)
        return false;
      size = *multiple;
    }
    return size % chunk == 0 && getKnownDivisor(indices.back()) % chunk == 0;
  }

  /// A `tile.vectorized` loop over the `chunk` elements of a chunk.
  static VectorizedOp buildChunkLoop(PatternRewriter &rewriter, Location loc,
                                     int64_t chunk) {
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value size = arith::ConstantIndexOp::create(rewriter, loc, chunk);
    return VectorizedOp::create(rewriter, loc, zero, size, one);
  }

  /// Writes zeros to the `chunk` consecutive elements of the target at
  /// `targetIndices` (a `tile.vectorized` loop).
  static void buildChunkZeros(PatternRewriter &rewriter, Location loc,
                              CopyOp op, ValueRange targetIndices,
                              int64_t chunk) {
    VectorizedOp loop = buildChunkLoop(rewriter, loc, chunk);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(loop.getBody().front().getTerminator());
    Type elementType = op.getTarget().getType().getElementType();
    Value value = arith::ConstantOp::create(rewriter, loc,
                                            rewriter.getZeroAttr(elementType));
    memref::StoreOp::create(
        rewriter, loc, value, op.getTarget(),
        shiftInnermost(rewriter, loc, targetIndices, loop.getInductionVar()));
  }

  /// Copies `chunk` consecutive elements with a `tile.vectorized` loop.
  static void buildChunkCopy(PatternRewriter &rewriter, Location loc,
                             CopyOp op, ValueRange sourceIndices,
                             ValueRange targetIndices, int64_t chunk) {
    VectorizedOp loop = buildChunkLoop(rewriter, loc, chunk);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(loop.getBody().front().getTerminator());
    Value element = loop.getInductionVar();
    Value value = memref::LoadOp::create(
        rewriter, loc, op.getSource(),
        shiftInnermost(rewriter, loc, sourceIndices, element));
    auto store = memref::StoreOp::create(
        rewriter, loc, value, op.getTarget(),
        shiftInnermost(rewriter, loc, targetIndices, element));
    // An asynchronous copy (tile-software-pipeline): tile-vectorize makes
    // the vector copy a cp.async.
    if (UnitAttr async = op->getAttrOfType<UnitAttr>(kAsyncAttr))
      store->setAttr(kAsyncAttr, async);
  }

  /// Copies a chunk that may cross a bound element by element: source
  /// elements outside the source read as zero, target elements outside the
  /// target are skipped.
  static void buildGuardedElementCopy(PatternRewriter &rewriter, Location loc,
                                      CopyOp op, ValueRange sourceIndices,
                                      ValueRange targetIndices, int64_t chunk,
                                      bool checkSource, bool checkTarget) {
    OpBuilder::InsertionGuard guard(rewriter);
    Value element = buildSerialLoop(rewriter, loc, chunk);
    SmallVector<Value> source =
        shiftInnermost(rewriter, loc, sourceIndices, element);
    SmallVector<Value> target =
        shiftInnermost(rewriter, loc, targetIndices, element);
    Type elementType = op.getSource().getType().getElementType();
    Value value;
    if (checkSource) {
      Value inside =
          buildInBounds(rewriter, loc, op.getSource(), source, /*extent=*/1);
      auto read = scf::IfOp::create(rewriter, loc, elementType, inside,
                                    /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard branchGuard(rewriter);
        rewriter.setInsertionPointToStart(read.thenBlock());
        scf::YieldOp::create(
            rewriter, loc,
            memref::LoadOp::create(rewriter, loc, op.getSource(), source)
                .getResult());
        rewriter.setInsertionPointToStart(read.elseBlock());
        scf::YieldOp::create(
            rewriter, loc,
            arith::ConstantOp::create(rewriter, loc,
                                      rewriter.getZeroAttr(elementType))
                .getResult());
      }
      value = read.getResult(0);
    } else {
      value = memref::LoadOp::create(rewriter, loc, op.getSource(), source);
    }
    if (checkTarget) {
      Value inside =
          buildInBounds(rewriter, loc, op.getTarget(), target, /*extent=*/1);
      auto write = scf::IfOp::create(rewriter, loc, inside,
                                     /*withElseRegion=*/false);
      rewriter.setInsertionPoint(write.thenBlock()->getTerminator());
    }
    memref::StoreOp::create(rewriter, loc, value, op.getTarget(), target);
  }
};

/// Writes `value` to every element of `buffer`: spread over the block for
/// shared or global memory, with constant indices in a small per-thread
/// buffer, by a loop in a large one.
static void lowerFill(Operation *op, Value buffer, Value value,
                      bool collective, PatternRewriter &rewriter) {
  Location loc = op->getLoc();
  auto type = cast<MemRefType>(buffer.getType());
  ArrayRef<int64_t> shape = type.getShape();
  OpBuilder::InsertionGuard guard(rewriter);
  if (!collective && type.getNumElements() > kMaxUnrolledFillElements) {
    // Too large for registers: a loop over the elements.
    Value linear = buildSerialLoop(rewriter, loc, type.getNumElements());
    memref::StoreOp::create(rewriter, loc, value, buffer,
                            buildDelinearize(rewriter, loc, linear, shape));
    return;
  }
  if (!collective) {
    // Per-thread buffers live in registers only with constant indices.
    SmallVector<int64_t> strides = computeStrides(shape);
    for (int64_t linear = 0, e = type.getNumElements(); linear < e; ++linear) {
      SmallVector<Value> indices;
      for (int64_t index : delinearize(linear, strides))
        indices.push_back(arith::ConstantIndexOp::create(rewriter, loc, index));
      memref::StoreOp::create(rewriter, loc, value, buffer, indices);
    }
    return;
  }
  int64_t chunk = getChunkElements(type.getElementType(), shape.back());
  SmallVector<int64_t> chunks(shape);
  chunks.back() /= chunk;
  int64_t count = type.getNumElements() / chunk;
  Value linear = buildDistributedLoop(rewriter, loc, op, count);
  SmallVector<Value> indices = buildDelinearize(rewriter, loc, linear, chunks);
  if (chunk > 1)
    indices.back() = arith::MulIOp::create(
        rewriter, loc, indices.back(),
        arith::ConstantIndexOp::create(rewriter, loc, chunk));
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value size = arith::ConstantIndexOp::create(rewriter, loc, chunk);
  auto loop = VectorizedOp::create(rewriter, loc, zero, size, one);
  rewriter.setInsertionPoint(loop.getBody().front().getTerminator());
  memref::StoreOp::create(
      rewriter, loc, value, buffer,
      shiftInnermost(rewriter, loc, indices, loop.getInductionVar()));
}

struct FillLowering : OpRewritePattern<FillOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FillOp op,
                                PatternRewriter &rewriter) const override {
    lowerFill(op, op.getBuffer(), op.getValue(), op.isCollective(), rewriter);
    rewriter.eraseOp(op);
    return success();
  }
};

struct ClearLowering : OpRewritePattern<ClearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ClearOp op,
                                PatternRewriter &rewriter) const override {
    Type elementType = op.getBuffer().getType().getElementType();
    Value zero = arith::ConstantOp::create(rewriter, op.getLoc(),
                                           rewriter.getZeroAttr(elementType));
    lowerFill(op, op.getBuffer(), zero, op.isCollective(), rewriter);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void tile::populateCopyLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<CopyLowering, FillLowering, ClearLowering>(
      patterns.getContext());
}
