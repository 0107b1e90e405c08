//===- ExpandViewsAndTransfers.cpp - Upstream expansions, where needed ----===//
//
// expand-strided-metadata and convert-vector-to-scf apply their patterns
// with the greedy driver over the whole module, which folds every op and
// simplifies every region on the way. Most kernels have nothing for either
// at this point of the pipeline, so each runs only when an op it rewrites
// is present: convert-vector-to-scf as a nested pipeline, unchanged, and
// expand-strided-metadata's patterns on the ops they are rooted at (and
// those they create) only.
//
//===----------------------------------------------------------------------===//

#include "tile/Pipelines/Passes.h"

#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEEXPANDVIEWSANDTRANSFERS
#include "tile/Pipelines/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

namespace {
struct TileExpandViewsAndTransfers
    : tile::impl::TileExpandViewsAndTransfersBase<TileExpandViewsAndTransfers> {
  /// Those of the passes it runs: a nested pipeline cannot load dialects.
  void getDependentDialects(DialectRegistry &registry) const override {
    memref::createExpandStridedMetadataPass()->getDependentDialects(registry);
    createConvertVectorToSCFPass()->getDependentDialects(registry);
  }

  LogicalResult initialize(MLIRContext *context) override {
    // The ops expand-strided-metadata's patterns are rooted at.
    RewritePatternSet patterns(context);
    memref::populateExpandStridedMetadataPatterns(patterns);
    expandPatterns = FrozenRewritePatternSet(std::move(patterns));
    expandAny = !expandPatterns.getMatchAnyOpNativePatterns().empty();
    for (const auto &entry : expandPatterns.getOpSpecificNativePatterns())
      patternRoots.insert(entry.first);
    // Its pattern on extract_aligned_pointer_as_index applies only when
    // the source is a subview or a reinterpret_cast, themselves roots; the
    // op is in every kernel that uses TMA or shared memory by address, so
    // it alone does not call for the expansion.
    expandRoots = patternRoots;
    expandRoots.erase(OperationName(
        memref::ExtractAlignedPointerAsIndexOp::getOperationName(), context));
    return success();
  }

  void runOnOperation() override {
    bool expand = expandAny, transfers = false;
    getOperation()->walk([&](Operation *op) {
      expand |= expandRoots.contains(op->getName());
      transfers |= isa<vector::TransferReadOp, vector::TransferWriteOp,
                       vector::GatherOp, vector::ScatterOp>(op);
      return expand && transfers ? WalkResult::interrupt()
                                 : WalkResult::advance();
    });
    if (!expand && !transfers)
      return;
    if (expand && failed(expandStridedMetadata()))
      return signalPassFailure();
    if (!transfers)
      return;
    OpPassManager pipeline(getOperation()->getName());
    pipeline.addPass(createConvertVectorToSCFPass());
    if (failed(runPipeline(pipeline, getOperation())))
      signalPassFailure();
  }

  /// expand-strided-metadata's patterns, applied only to the ops they are
  /// rooted at and to the ops they create, not the whole module: on an
  /// attention kernel (a few subviews among ~10k ops) the pass's folding
  /// of every op was 4% of the compile.
  LogicalResult expandStridedMetadata() {
    if (expandAny) {
      OpPassManager pipeline(getOperation()->getName());
      pipeline.addPass(memref::createExpandStridedMetadataPass());
      return runPipeline(pipeline, getOperation());
    }
    SmallVector<Operation *> roots;
    getOperation()->walk([&](Operation *op) {
      if (patternRoots.contains(op->getName()))
        roots.push_back(op);
    });
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    // Not converging within the driver's iteration limit is not an error
    // of the input, as the upstream pass ignores it too.
    (void)applyOpPatternsGreedily(roots, expandPatterns, config);
    return success();
  }

  FrozenRewritePatternSet expandPatterns;
  /// The ops expandPatterns are rooted at, and those of them that call for
  /// the expansion.
  DenseSet<OperationName> patternRoots, expandRoots;
  bool expandAny = false;
};
} // namespace
