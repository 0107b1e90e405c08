//===- LowerAtomics.cpp - tile.atomic_add to hardware atomics -------------===//
//
// Scalar atomics become memref.atomic_rmw (atom.add.f32 / .noftz.f16 /
// .noftz.bf16 / .u32 in PTX). Packed f16x2 / bf16x2 atomics have no upstream
// op that reaches the hardware instruction (LLVM expands vector atomicrmw
// into a compare-and-swap loop), so they become the PTX instruction itself:
// `atom.add.noftz.f16x2` (or `red` when the old value is unused) on the
// generic address of the element.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

#define DEBUG_TYPE "tile-lower-atomics"

namespace mlir::tile {
#define GEN_PASS_DEF_TILELOWERATOMICS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

/// LLVM address space of a memref's memory space (0: generic).
static unsigned getLLVMAddressSpace(MemRefType type) {
  Attribute space = type.getMemorySpace();
  if (!space)
    return 0;
  return getMemorySpace(type) == MemorySpace::Shared ? 3 : 1;
}

/// Returns the generic address of `memref[indices]`.
static Value buildElementAddress(OpBuilder &builder, Location loc,
                                 Value memref, ValueRange indices) {
  auto type = cast<MemRefType>(memref.getType());
  auto metadata =
      memref::ExtractStridedMetadataOp::create(builder, loc, memref);
  Value elements = metadata.getOffset();
  for (auto [index, stride] : llvm::zip(indices, metadata.getStrides()))
    elements = arith::AddIOp::create(
        builder, loc, elements,
        arith::MulIOp::create(builder, loc, index, stride));
  int64_t bytes = llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  Value offset = arith::MulIOp::create(
      builder, loc, elements, arith::ConstantIndexOp::create(builder, loc, bytes));
  Value base =
      memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, memref);
  Value address = arith::IndexCastOp::create(
      builder, loc, builder.getI64Type(),
      arith::AddIOp::create(builder, loc, base, offset));
  MLIRContext *context = builder.getContext();
  unsigned space = getLLVMAddressSpace(type);
  Value pointer = LLVM::IntToPtrOp::create(
      builder, loc, LLVM::LLVMPointerType::get(context, space), address);
  if (space != 0)
    pointer = LLVM::AddrSpaceCastOp::create(
        builder, loc, LLVM::LLVMPointerType::get(context), pointer);
  return pointer;
}

namespace {

struct AtomicAddLowering : OpRewritePattern<AtomicAddOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AtomicAddOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type valueType = op.getValue().getType();
    auto vectorType = dyn_cast<VectorType>(valueType);
    if (!vectorType) {
      auto kind = isa<FloatType>(valueType) ? arith::AtomicRMWKind::addf
                                            : arith::AtomicRMWKind::addi;
      Value old = memref::AtomicRMWOp::create(rewriter, loc, kind,
                                              op.getValue(), op.getMemref(),
                                              op.getIndices());
      if (op.getOld())
        rewriter.replaceOp(op, old);
      else
        rewriter.eraseOp(op);
      return success();
    }

    // Packed: the two halves travel as one 32-bit register.
    Type i32 = rewriter.getI32Type();
    StringRef suffix =
        vectorType.getElementType().isF16() ? "f16x2" : "bf16x2";
    Value pointer = buildElementAddress(rewriter, loc, op.getMemref(),
                                        op.getIndices());
    Value bits = vector::ExtractOp::create(
        rewriter, loc,
        vector::BitCastOp::create(rewriter, loc, VectorType::get({1}, i32),
                                  op.getValue()),
        ArrayRef<int64_t>{0});
    MLIRContext *context = rewriter.getContext();
    auto asmDialect = LLVM::AsmDialectAttr::get(context, LLVM::AsmDialect::AD_ATT);
    if (!op.getOld()) {
      LLVM::InlineAsmOp::create(
          rewriter, loc, TypeRange(), ValueRange{pointer, bits},
          rewriter.getStringAttr(("red.add.noftz." + suffix + " [$0], $1;").str()),
          rewriter.getStringAttr("l,r"), rewriter.getUnitAttr(),
          /*is_align_stack=*/UnitAttr(), LLVM::TailCallKindAttr(), asmDialect,
          /*operand_attrs=*/ArrayAttr());
      rewriter.eraseOp(op);
      return success();
    }
    auto atomic = LLVM::InlineAsmOp::create(
        rewriter, loc, TypeRange{i32}, ValueRange{pointer, bits},
        rewriter.getStringAttr(
            ("atom.add.noftz." + suffix + " $0, [$1], $2;").str()),
        rewriter.getStringAttr("=r,l,r"), rewriter.getUnitAttr(),
        /*is_align_stack=*/UnitAttr(), LLVM::TailCallKindAttr(), asmDialect,
        /*operand_attrs=*/ArrayAttr());
    Value old = vector::BitCastOp::create(
        rewriter, loc, vectorType,
        vector::FromElementsOp::create(rewriter, loc, VectorType::get({1}, i32),
                                       atomic.getResult(0)));
    rewriter.replaceOp(op, old);
    return success();
  }
};

struct TileLowerAtomicsPass
    : tile::impl::TileLowerAtomicsBase<TileLowerAtomicsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<AtomicAddLowering>(&getContext());
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace
