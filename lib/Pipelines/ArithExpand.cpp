//===- ArithExpand.cpp - arith-expand, where an op needs it ---------------===//
//
// arith-expand rewrites the arith ops the LLVM conversion lacks (signed
// floor and ceiling divisions, NaN-propagating maxima ...) as a dialect
// conversion over every op of the module. After tile-lower-affine most
// kernels hold none of them; the pass runs, unchanged, only when one of
// its patterns' roots is present.
//
//===----------------------------------------------------------------------===//

#include "tile/Pipelines/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"

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
    RewritePatternSet patterns(context);
    arith::populateArithExpandOpsPatterns(patterns);
    FrozenRewritePatternSet frozen(std::move(patterns));
    expandAny = !frozen.getMatchAnyOpNativePatterns().empty();
    for (const auto &entry : frozen.getOpSpecificNativePatterns())
      roots.insert(entry.first);
    // Float extensions and truncations are rewritten only for the types
    // the pass's options name (bf16, f8E8M0, f4E2M1; none here), and every
    // kernel converting an accumulator to f16 has them.
    roots.erase(OperationName(arith::ExtFOp::getOperationName(), context));
    roots.erase(OperationName(arith::TruncFOp::getOperationName(), context));
    return success();
  }

  void runOnOperation() override {
    bool present = expandAny;
    if (!present)
      getOperation()->walk([&](Operation *op) {
        present = roots.contains(op->getName());
        return present ? WalkResult::interrupt() : WalkResult::advance();
      });
    if (!present)
      return;
    OpPassManager pipeline(getOperation()->getName());
    pipeline.addPass(arith::createArithExpandOpsPass());
    if (failed(runPipeline(pipeline, getOperation())))
      signalPassFailure();
  }

  /// The ops arith-expand's patterns are rooted at.
  DenseSet<OperationName> roots;
  bool expandAny = false;
};
} // namespace
