//===- MathToIntrinsics.cpp - Ops NVPTX has one instruction for -----------===//
//
// convert-gpu-to-nvvm lowers math ops to libdevice calls ahead of the generic
// LLVM lowering, even those NVPTX has an instruction for: every `math.fma`
// becomes a call to `__nv_fmaf`, so libdevice gets parsed, linked and
// inlined for a kernel that needs none of it (conv2d's 512 FMAs per step
// spent a third of their compile time there), and f16 fma is done in f32
// and rounded twice. fma is exactly rounded, so the intrinsic and the
// libdevice function agree bit for bit on f32 and f64.
//
// arith.maximumf / minimumf (NaN-propagating, -0 < +0) become
// llvm.intr.maximum / minimum, which NVPTX emits as one `max.NaN` /
// `min.NaN` on sm_80 and later (and expands before); arith-expand, which
// the pipeline runs after this pass, would turn each into a compare, a NaN
// test and two selects (a row maximum of attention's 64 scores per thread:
// 4 instructions per element instead of 1).
//
// f32 math.exp2 and math.log2 with fastmath<afn> become ex2.approx.ftz.f32
// and lg2.approx.ftz.f32 (below).
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
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

/// f32 `math.exp2` that allows approximate functions (`fastmath<afn>`)
/// becomes ex2.approx.ftz.f32: one MUFU.EX2. Without `afn` it goes through
/// libdevice's exp2f, ex2.approx.f32 without .ftz, which sm_90 runs as the
/// MUFU.EX2 between a test for results below 2^-126 and two multiplies
/// that keep them subnormal. With .ftz such results are zero; the relative
/// error of the others is the same (docs/Attention.md).
struct Exp2ToApproxFtz : OpRewritePattern<math::Exp2Op> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::Exp2Op op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().isF32() ||
        !arith::bitEnumContainsAll(op.getFastmath(),
                                   arith::FastMathFlags::afn))
      return failure();
    rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(
        op, op.getType(),
        rewriter.getStringAttr("llvm.nvvm.ex2.approx.ftz.f32"),
        op.getOperand());
    return success();
  }
};

/// f32 `math.log2` that allows approximate functions (`fastmath<afn>`)
/// becomes lg2.approx.ftz.f32: one MUFU.LG2. Without `afn` it goes through
/// libdevice's log2f, which loads and links libdevice into the kernel's
/// module (3 ms of an attention kernel's compile, for the one log2 of its
/// log-sum-exp). Error measured on the H200 over every positive normal
/// float (scripts/approx-error.cu, docs/Attention.md); inputs below 2^-126
/// are flushed to zero, so their log2 is -inf.
struct Log2ToApproxFtz : OpRewritePattern<math::Log2Op> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::Log2Op op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().isF32() ||
        !arith::bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::afn))
      return failure();
    rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(
        op, op.getType(), rewriter.getStringAttr("llvm.nvvm.lg2.approx.ftz.f"),
        op.getOperand());
    return success();
  }
};

struct TileMathToIntrinsics
    : tile::impl::TileMathToIntrinsicsBase<TileMathToIntrinsics> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // Not fabs, ceil, floor and the like: convert-gpu-to-nvvm declares
    // those intrinsics illegal (it wants them through libdevice) and has
    // no pattern to lower them.
    patterns.add<ToIntrinsic<math::FmaOp, LLVM::FMAOp>,
                 ToIntrinsic<arith::MaximumFOp, LLVM::MaximumOp>,
                 ToIntrinsic<arith::MinimumFOp, LLVM::MinimumOp>,
                 Exp2ToApproxFtz, Log2ToApproxFtz>(&getContext());
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace
