//===- ExpandViewsAndTransfers.cpp - Upstream expansions, where needed ----===//
//
// expand-strided-metadata and convert-vector-to-scf apply their patterns
// with the greedy driver over the whole module, which folds every op and
// simplifies every region on the way. Most kernels have nothing for either
// at this point of the pipeline, so the two passes run only when an op
// they rewrite is present, as a nested pipeline, unchanged.
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
    FrozenRewritePatternSet frozen(std::move(patterns));
    expandAny = !frozen.getMatchAnyOpNativePatterns().empty();
    for (const auto &entry : frozen.getOpSpecificNativePatterns())
      expandRoots.insert(entry.first);
    // Its pattern on extract_aligned_pointer_as_index applies only when
    // the source is a subview or a reinterpret_cast, themselves roots; the
    // op is in every kernel that uses TMA or shared memory by address.
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
    OpPassManager pipeline(getOperation()->getName());
    if (expand)
      pipeline.addPass(memref::createExpandStridedMetadataPass());
    if (transfers)
      pipeline.addPass(createConvertVectorToSCFPass());
    if (failed(runPipeline(pipeline, getOperation())))
      signalPassFailure();
  }

  DenseSet<OperationName> expandRoots;
  bool expandAny = false;
};
} // namespace
