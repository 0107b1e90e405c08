//===- LowerTileOps.cpp - Collective ops and loops to thread level --------===//
//
// Rewrites tile loops into scf.for (tile.parallel spread over the block's
// threads, tile.unroll unrolled) and, through CopyLowering, collective
// copies and fills into loops over their elements. See Passes.td for the
// rules.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "tile/Dialect/Tile/Transforms/CopyLowering.h"
#include "tile/Dialect/Tile/Transforms/Distribution.h"
#include "tile/Dialect/Tile/Transforms/LoopUtils.h"


namespace mlir::tile {
#define GEN_PASS_DEF_TILELOWERTILEOPS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

//===----------------------------------------------------------------------===//
// Loops
//===----------------------------------------------------------------------===//

/// Moves the body of a range loop into an scf.for, its iteration arguments
/// and yielded values with it.
template <typename LoopOp>
static scf::ForOp replaceWithScfFor(LoopOp op, PatternRewriter &rewriter) {
  auto loop =
      scf::ForOp::create(rewriter, op.getLoc(), op.getLowerBound(),
                         op.getUpperBound(), op.getStep(), op.getInitArgs());
  Block *body = &op.getBody().front();
  auto yield = cast<YieldOp>(body->getTerminator());
  // An scf.for with iteration arguments has no terminator yet.
  if (Block *target = loop.getBody(); !target->empty())
    rewriter.eraseOp(target->getTerminator());
  rewriter.mergeBlocks(body, loop.getBody(), loop.getBody()->getArguments());
  rewriter.setInsertionPoint(yield);
  rewriter.replaceOpWithNewOp<scf::YieldOp>(yield, yield.getValues());
  loop->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  rewriter.replaceOp(op, loop.getResults());
  return loop;
}

struct SerialLowering : OpRewritePattern<SerialOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SerialOp op,
                                PatternRewriter &rewriter) const override {
    replaceWithScfFor(op, rewriter);
    return success();
  }
};

struct UnrollLowering : OpRewritePattern<UnrollOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(UnrollOp op,
                                PatternRewriter &rewriter) const override {
    scf::ForOp loop = replaceWithScfFor(op, rewriter);
    loop->setAttr(kUnrollAttr, rewriter.getUnitAttr());
    return success();
  }
};

struct PipelinedLowering : OpRewritePattern<PipelinedOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PipelinedOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getStages() > 1)
      op.emitRemark("the ")
          << op.getStages()
          << "-stage loop runs as a serial loop: tile-software-pipeline "
             "did not run before this pass";
    replaceWithScfFor(op, rewriter);
    return success();
  }
};

struct ParallelLowering : OpRewritePattern<ParallelOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ParallelOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ArrayRef<int64_t> extents = op.getExtents();
    int64_t count = 1;
    for (int64_t extent : extents)
      count *= extent;
    OpBuilder::InsertionGuard guard(rewriter);
    Value linear = buildDistributedLoop(rewriter, loc, op, count);
    SmallVector<Value> ivs = buildDelinearize(rewriter, loc, linear, extents);
    Block *body = &op.getBody().front();
    Operation *yield = body->getTerminator();
    rewriter.inlineBlockBefore(body, rewriter.getInsertionBlock(),
                               rewriter.getInsertionPoint(), ivs);
    rewriter.eraseOp(yield);
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

struct TileLowerTileOpsPass
    : tile::impl::TileLowerTileOpsBase<TileLowerTileOpsPass> {
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    RewritePatternSet patterns(&getContext());
    patterns.add<SerialLowering, UnrollLowering, PipelinedLowering,
                 ParallelLowering>(&getContext());
    populateCopyLoweringPatterns(patterns);
    walkAndApplyPatterns(kernel, std::move(patterns));

    // Unroll the loops of tile.unroll, innermost first.
    SmallVector<scf::ForOp> toUnroll;
    kernel.getBody().walk([&](scf::ForOp loop) {
      if (loop->hasAttr(kUnrollAttr))
        toUnroll.push_back(loop);
    });
    for (scf::ForOp loop : toUnroll) {
      loop->removeAttr(kUnrollAttr);
      if (failed(unrollFully(loop)))
        return signalPassFailure();
    }
  }
};

} // namespace
