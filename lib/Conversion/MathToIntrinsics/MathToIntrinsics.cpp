//===- MathToIntrinsics.cpp - math.fma to llvm.intr.fma -------------------===//
//
// convert-gpu-to-nvvm lowers math ops to libdevice calls ahead of the generic
// LLVM lowering, even those NVPTX has an instruction for: every `math.fma`
// becomes a call to `__nv_fmaf`, so libdevice gets parsed, linked and
// inlined for a kernel that needs none of it (conv2d's 512 FMAs per step
// spent a third of their compile time there), and f16 fma is done in f32
// and rounded twice. fma is exactly rounded, so the intrinsic and the
// libdevice function agree bit for bit on f32 and f64.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEMATHTOINTRINSICS
#include "tile/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

namespace {

/// Replaces `SourceOp` by the LLVM intrinsic op `IntrinsicOp` with the same
/// operands and result type.
template <typename SourceOp, typename IntrinsicOp>
struct ToIntrinsic : OpRewritePattern<SourceOp> {
  using OpRewritePattern<SourceOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(SourceOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<IntrinsicOp>(op, op.getType(),
                                             op->getOperands());
    return success();
  }
};

struct TileMathToIntrinsics
    : tile::impl::TileMathToIntrinsicsBase<TileMathToIntrinsics> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // Only fma: convert-gpu-to-nvvm declares llvm.intr.fabs, ceil, floor
    // and the like illegal (it wants them through libdevice) and has no
    // pattern to lower them.
    patterns.add<ToIntrinsic<math::FmaOp, LLVM::FMAOp>>(&getContext());
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace
