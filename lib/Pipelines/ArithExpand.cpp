//===- ArithExpand.cpp - arith-expand's patterns, where they apply -------===//
//
// arith-expand rewrites the arith ops the LLVM conversion lacks (signed
// floor and ceiling divisions, min/max, NaN-propagating maxima ...) as a
// dialect conversion over every op of the module. After tile-lower-affine
// a kernel holds a handful of them among thousands of ops (attention: one
// ceildivui and one maxsi among ~10k), so its patterns are applied to those
// ops only; none, nothing runs.
//
//===----------------------------------------------------------------------===//

#include "tile/Pipelines/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEARITHEXPAND
#include "tile/Pipelines/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

namespace {
struct TileArithExpand : tile::impl::TileArithExpandBase<TileArithExpand> {
  /// Those of arith-expand: a nested pipeline cannot load dialects.
  void getDependentDialects(DialectRegistry &registry) const override {
    arith::createArithExpandOpsPass()->getDependentDialects(registry);
  }

  LogicalResult initialize(MLIRContext *context) override {
    RewritePatternSet set(context);
    arith::populateArithExpandOpsPatterns(set);
    patterns = FrozenRewritePatternSet(std::move(set));
    expandAny = !patterns.getMatchAnyOpNativePatterns().empty();
    for (const auto &entry : patterns.getOpSpecificNativePatterns())
      roots.insert(entry.first);
    // Float extensions and truncations are rewritten only for the types
    // the pass's options name (bf16, f8E8M0, f4E2M1; none here), and every
    // kernel converting an accumulator to f16 has them.
    roots.erase(OperationName(arith::ExtFOp::getOperationName(), context));
    roots.erase(OperationName(arith::TruncFOp::getOperationName(), context));
    return success();
  }

  void runOnOperation() override {
    if (expandAny) {
      OpPassManager pipeline(getOperation()->getName());
      pipeline.addPass(arith::createArithExpandOpsPass());
      if (failed(runPipeline(pipeline, getOperation())))
        signalPassFailure();
      return;
    }
    // The patterns on the ops they are rooted at, and nothing else.
    SmallVector<Operation *> found;
    getOperation()->walk([&](Operation *op) {
      if (roots.contains(op->getName()))
        found.push_back(op);
    });
    if (found.empty())
      return;
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    (void)applyOpPatternsGreedily(found, patterns, config);
    // arith-expand's conversion fails on an op its patterns leave (a
    // scaling_truncf of a scale type it cannot convert): so does this.
    getOperation()->walk([&](Operation *op) {
      if (roots.contains(op->getName())) {
        op->emitError("tile-arith-expand: no rewrite of this op to ops the "
                      "LLVM conversion has");
        signalPassFailure();
      }
    });
  }

  FrozenRewritePatternSet patterns;
  /// The ops arith-expand's patterns are rooted at, and always rewrites.
  DenseSet<OperationName> roots;
  bool expandAny = false;
};
} // namespace
