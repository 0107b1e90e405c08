//===- CopyOutTma.cpp - A fragment out to global memory through TMA -------===//
//
// The TMA-store epilogue (docs/TensorCores.md): on sm_90a, the copy of an
// MMA accumulator out to a kernel argument of 16-bit floats goes, 64
// columns at a time, through 128-byte-swizzled shared tiles:
//
//   the issuing thread waits for earlier TMA stores to have read the tiles
//   barrier (the fragment's threads)
//   for each chunk c of 64 columns (tile c % 2):
//     [c >= 2: the issuing thread waits for the store of chunk c - 2 to
//      have read tile c % 2; barrier]
//     each warp: stmatrix.x4 of 4 register pairs (converted to f16x2 or
//       bf16x2) per instruction, the 8x8 blocks the accumulator layout
//       gives it, at their swizzled rows
//     fence.proxy.async.shared::cta; barrier
//     the issuing thread: tile.tma_store of the tile at column c * 64
//   the issuing thread waits for the stores to have read the tiles
//
// TMA clips the box at the tensor's edges, so no bounds test remains, and
// the per-lane shuffles of the direct copy out (getLaneExchange) are gone.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/FragmentLowering.h"
#include "tile/Dialect/Tile/Transforms/StagedBuffers.h"

#include "tile/Dialect/Tile/IR/Limits.h"
#include "tile/Dialect/Tile/IR/Swizzle.h"
#include "tile/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;

/// Columns per chunk: one 128-byte swizzle span of 16-bit elements, so
/// that a chunk is one TMA box.
static constexpr int64_t kChunkColumns = 64;
/// Shared tiles the chunks rotate through (fewer for fewer chunks).
static constexpr int64_t kStagingTiles = 2;

/// The shared tiles a copy of `columns` columns rotates through.
static int64_t getStagingTiles(int64_t columns) {
  return std::min(columns / kChunkColumns, kStagingTiles);
}
/// The named barrier the fragment's threads meet at (0 is the block's).
static constexpr int64_t kEpilogueBarrier = 1;
/// Register pairs per stmatrix (.x4).
static constexpr int64_t kPairsPerStore = 4;

/// A shared tile of one chunk of a copy of `rows` rows into `element`s.
static MemRefType getStagingType(MLIRContext *context, int64_t rows,
                                 Type element) {
  return MemRefType::get(
      {rows, kChunkColumns}, element, MemRefLayoutAttrInterface(),
      gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup));
}

std::optional<std::string>
tile::whyNotCopyOutThroughTma(CopyOp copy, const FragmentRegisters &fragment,
                              int64_t threads) {
  Value memory = copy.getTarget();
  auto type = cast<MemRefType>(memory.getType());
  auto fragmentType = cast<MemRefType>(copy.getSource().getType());
  Type element = type.getElementType();
  if (!element.isF16() && !element.isBF16())
    return std::string("the target's elements are not f16 or bf16");
  if (!fragmentType.getElementType().isF32() &&
      fragmentType.getElementType() != element)
    return std::string("the fragment's elements are not f32");
  LayoutAttr layout = fragment.layout;
  if (layout.isReplicated())
    return std::string("the fragment is replicated");
  if (type.getRank() != 2)
    return std::string("the target is not 2-D");
  // A memref argument of the kernel or a subview of one that keeps the
  // tile's two dimensions whole (TMA clips the box at the argument's
  // edges, which must then be the view's).
  std::string why;
  FailureOr<TmaSource> target = getTmaSource(memory, why);
  if (failed(target))
    return "the target is not a memref argument of the kernel or a subview "
           "of one that TMA can address (" +
           why + ")";
  BlockArgument argument = target->argument;
  auto argumentType = cast<MemRefType>(argument.getType());
  int64_t inner = argumentType.getShape().back();
  int64_t multiple = ShapedType::isDynamic(inner)
                         ? getDeclaredMultiple(argument).value_or(1)
                         : inner;
  if (multiple * 2 % 16 != 0)
    return std::string("the target's rows are not known to be multiples of "
                       "16 bytes (tile.multiple_of = 8)");
  ArrayRef<int64_t> shape = fragmentType.getShape();
  if (shape[1] % kChunkColumns != 0 || shape[0] % 8 != 0 || shape[0] > 256)
    return std::string("the fragment is not a multiple of 64 columns and 8 "
                       "rows, with at most 256 rows");
  if (threads != fragment.layout.getThreads())
    return std::string("the threads that run the copy are not the "
                       "fragment's");
  std::optional<MatrixBlocks> blocks = getMatrixBlocks(fragment.layout);
  if (!blocks || blocks->pairs % kPairsPerStore != 0)
    return std::string("the layout is not one of 8x8 blocks per register "
                       "pair (stmatrix)");
  for (int64_t pair = 0; pair < blocks->pairs; pair += kPairsPerStore)
    for (int64_t k = 1; k < kPairsPerStore; ++k)
      if (blocks->columns[pair + k] / kChunkColumns !=
          blocks->columns[pair] / kChunkColumns)
        return std::string("four consecutive register pairs span two "
                           "chunks of 64 columns");
  auto kernel = copy->getParentOfType<KernelOp>();
  MemRefType staging =
      getStagingType(copy.getContext(), shape[0], element);
  int64_t stagingBytes =
      getStagingTiles(shape[1]) * staging.getNumElements() * 2;
  // A kSwizzleAtomBytes of slack for the tiles' alignment.
  if (kernel.getStaticSharedMemoryBytes() + stagingBytes + kSwizzleAtomBytes >
      kMaxSharedMemoryBytes)
    return std::string("the shared tiles it needs do not fit beside the "
                       "kernel's");
  if (std::optional<std::string> error =
          getTmaTileError(argumentType, staging, kSwizzleBytes))
    return error;
  return std::nullopt;
}

void tile::copyOutThroughTma(OpBuilder &builder, CopyOp copy,
                             const FragmentRegisters &fragment, Value thread,
                             int64_t threads) {
  MLIRContext *context = builder.getContext();
  Location loc = copy.getLoc();
  Value memory = copy.getTarget();
  Type element = cast<MemRefType>(memory.getType()).getElementType();
  std::string why;
  FailureOr<TmaSource> tmaTarget = getTmaSource(memory, why);
  assert(succeeded(tmaTarget) && "a copy whyNotCopyOutThroughTma rejects");
  const TmaSource &target = *tmaTarget;
  auto fragmentType = cast<MemRefType>(copy.getSource().getType());
  int64_t rows = fragmentType.getShape()[0];
  int64_t chunks = fragmentType.getShape()[1] / kChunkColumns;
  LayoutAttr layout = fragment.layout;
  MatrixBlocks blocks = *getMatrixBlocks(layout);
  auto i32 = builder.getI32Type();
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, value);
  };
  auto constantI32 = [&](int64_t value) -> Value {
    return arith::ConstantIntOp::create(builder, loc, i32, value);
  };

  // The shared tiles, at the top of the kernel.
  auto kernel = copy->getParentOfType<KernelOp>();
  MemRefType stagingType = getStagingType(context, rows, element);
  SmallVector<Value> tiles;
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(&kernel.getBody().front());
    for (int64_t i = 0; i < getStagingTiles(fragmentType.getShape()[1]); ++i)
      tiles.push_back(
          AllocSharedOp::create(builder, loc, stagingType,
                                builder.getI64IntegerAttr(kSwizzleAtomBytes),
                                builder.getI64IntegerAttr(kSwizzleBytes)));
  }

  Value issuer = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                       thread, constant(0));
  auto asIssuer = [&](function_ref<void()> body) {
    auto branch = scf::IfOp::create(builder, loc, issuer,
                                    /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(branch.thenBlock()->getTerminator());
    body();
  };
  auto waitForReads = [&](int64_t pending) {
    asIssuer([&] {
      NVVM::CpAsyncBulkWaitGroupOp::create(builder, loc,
                                           builder.getI32IntegerAttr(pending),
                                           builder.getUnitAttr());
    });
  };
  auto barrier = [&] {
    NVVM::BarrierOp::create(builder, loc, /*res=*/Type(),
                            constantI32(kEpilogueBarrier), constantI32(threads),
                            /*reductionOp=*/NVVM::BarrierReductionAttr(),
                            /*reductionPredicate=*/Value());
  };

  // Word w (registers 2p, 2p + 1) converted to two elements in an i32.
  Type registerElement =
      cast<MemRefType>(fragment.buffer.getType()).getElementType();
  auto loadPair = [&](int64_t pair) -> Value {
    SmallVector<Value> elements;
    for (int64_t reg = 2 * pair; reg < 2 * pair + 2; ++reg)
      elements.push_back(memref::LoadOp::create(
          builder, loc, fragment.buffer, fragment.indices(builder, loc, reg)));
    Value packed = vector::FromElementsOp::create(
        builder, loc, VectorType::get({2}, registerElement), elements);
    Value converted = convertFloat(builder, loc, packed, element);
    Value word = vector::BitCastOp::create(
        builder, loc, VectorType::get({1}, i32), converted);
    return vector::ExtractOp::create(builder, loc, word, ArrayRef<int64_t>{0});
  };

  // Lane l of a warp gives stmatrix the address of row l % 8 of matrix
  // l / 8: the row that thread 4 * (l % 8) of the warp holds in register
  // pair (first + l / 8). In the layout's map: d0 = the warp's first
  // thread + 4 * (t mod 8), d1 = 2 * first + 2 * ((t floordiv 8) mod 4).
  AffineExpr t = getAffineDimExpr(0, context);
  auto rowAndColumn = [&](int64_t firstPair) {
    AffineExpr source = t.floorDiv(kWarpSize) * kWarpSize + (t % 8) * 4;
    AffineExpr reg = 2 * firstPair + 2 * (t.floorDiv(8) % 4);
    AffineMap map =
        layout.getMap().replace({{getAffineDimExpr(0, context), source},
                                 {getAffineDimExpr(1, context), reg}},
                                /*numResultDims=*/1, /*numResultSyms=*/0);
    SmallVector<Value> coordinates;
    for (AffineExpr result : map.getResults())
      coordinates.push_back(affine::AffineApplyOp::create(
          builder, loc,
          AffineMap::get(1, 0, simplifyAffineExpr(result, 1, 0), context),
          thread));
    return coordinates;
  };
  auto sharedPointer = [&](Value address) -> Value {
    Value wide = arith::IndexCastUIOp::create(builder, loc,
                                              builder.getI64Type(), address);
    return LLVM::IntToPtrOp::create(
        builder, loc, LLVM::LLVMPointerType::get(context, /*addressSpace=*/3),
        wide);
  };
  SmallVector<Value> bases;
  for (Value tile : tiles)
    bases.push_back(
        memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, tile));

  // Earlier stores (the copy in a loop) may still read the tiles.
  waitForReads(0);
  barrier();
  // A copy of the whole target has no offsets.
  SmallVector<Value> offsets(copy.getTargetIndices());
  if (offsets.empty())
    offsets.assign(2, constant(0));
  for (int64_t chunk = 0; chunk < chunks; ++chunk) {
    int64_t slot = chunk % tiles.size();
    if (chunk >= static_cast<int64_t>(tiles.size())) {
      waitForReads(tiles.size() - 1);
      barrier();
    }
    for (int64_t first = 0; first < blocks.pairs; first += kPairsPerStore) {
      if (blocks.columns[first] / kChunkColumns != chunk)
        continue;
      SmallVector<Value> words;
      for (int64_t pair = first; pair < first + kPairsPerStore; ++pair)
        words.push_back(loadPair(pair));
      SmallVector<Value> coordinates = rowAndColumn(first);
      coordinates[1] = arith::SubIOp::create(builder, loc, coordinates[1],
                                             constant(chunk * kChunkColumns));
      SmallVector<Value> physical =
          buildSwizzledIndices(builder, loc, stagingType, coordinates);
      Value offset =
          arith::AddIOp::create(builder, loc,
                                arith::MulIOp::create(builder, loc, physical[0],
                                                      constant(kChunkColumns)),
                                physical[1]);
      Value address = arith::AddIOp::create(
          builder, loc, bases[slot],
          arith::MulIOp::create(builder, loc, offset, constant(2)));
      NVVM::StMatrixOp::create(builder, loc, sharedPointer(address), words,
                               NVVM::MMALayout::row,
                               NVVM::LdStMatrixShapeAttr::get(context, 8, 8),
                               NVVM::LdStMatrixEltType::B16);
    }
    NVVM::FenceProxyOp::create(
        builder, loc,
        NVVM::ProxyKindAttr::get(context, NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(context, NVVM::SharedSpace::shared_cta));
    barrier();
    asIssuer([&] {
      SmallVector<Value> indices(offsets);
      indices[1] = arith::AddIOp::create(builder, loc, indices[1],
                                         constant(chunk * kChunkColumns));
      TmaStoreOp::create(builder, loc, tiles[slot], target.argument,
                         target.buildIndices(builder, loc, indices),
                         builder.getI64IntegerAttr(kSwizzleBytes));
    });
  }
  // The block may exit, or the copy run again, once the stores have read
  // the tiles.
  waitForReads(0);
}
