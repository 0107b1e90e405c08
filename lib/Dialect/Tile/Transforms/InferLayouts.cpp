//===- InferLayouts.cpp - Record the layout of every fragment -------------===//
//
// Runs the layout inference (Analysis/LayoutInference.cpp) and records its
// result in the IR: `layout` on tile.alloc_fragment and tile.parallel,
// `warps` on tile.gemm. On request it shows each layout, as a grid in a
// remark or as an SVG file.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "tile/Dialect/Tile/Analysis/LayoutInference.h"
#include "tile/Dialect/Tile/IR/Swizzle.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#define DEBUG_TYPE "tile-infer-layouts"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEINFERLAYOUTS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

struct TileInferLayouts : tile::impl::TileInferLayoutsBase<TileInferLayouts> {
  using Base::Base;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    if (failed(chooseGemmLowerings(kernel)))
      return signalPassFailure();
    FailureOr<LayoutAssignment> assignment = inferLayouts(kernel);
    if (failed(assignment))
      return signalPassFailure();
    for (auto [op, layout] : assignment->fragments)
      cast<AllocFragmentOp>(op).setLayoutAttr(layout);
    for (auto [op, warps] : assignment->gemmWarps)
      cast<GemmOp>(op).setWarps(ArrayRef<int64_t>{warps.first, warps.second});
    for (auto [op, layout] : assignment->parallels)
      cast<ParallelOp>(op).setLayoutAttr(layout);
    for (AllocSharedOp alloc : assignment->swizzled)
      alloc.setSwizzle(kSwizzleBytes);
    for (AllocSharedOp alloc : assignment->descriptorOperands)
      if (alloc.getEffectiveAlignment() < kSwizzleAtomBytes)
        alloc.setAlignment(kSwizzleAtomBytes);
    convertLayoutsThroughShared(kernel);

    int index = 0;
    for (auto [op, layout] : assignment->fragments) {
      if (print)
        op->emitRemark("fragment layout (thread:register of each element)\n")
            << renderLayoutText(layout);
      if (!svgDir.empty() && failed(writeSVG(op, layout, index)))
        return signalPassFailure();
      ++index;
    }
  }

  /// Writes `gemmLowering` on the gemms that leave the choice to the
  /// pipeline, so that layouts and every later pass agree on it, and checks
  /// that each can run it.
  LogicalResult chooseGemmLowerings(KernelOp kernel) {
    if (gemmLowering.empty())
      return success();
    std::optional<GemmLowering> chosen = symbolizeGemmLowering(gemmLowering);
    if (!chosen || *chosen == GemmLowering::automatic)
      return kernel.emitError("tile-infer-layouts: gemm-lowering must be "
                              "'mma_sync', 'wgmma' or 'scalar', got '")
             << gemmLowering << "'";
    auto attr = GemmLoweringAttr::get(kernel.getContext(), *chosen);
    WalkResult result = kernel.walk([&](GemmOp gemm) {
      if (gemm.getLowering().value_or(GemmLowering::automatic) !=
          GemmLowering::automatic)
        return WalkResult::advance();
      gemm.setLoweringAttr(attr);
      // The op's own checks of the lowering, with a note on where it came
      // from.
      ScopedDiagnosticHandler note(kernel.getContext(), [&](Diagnostic &diag) {
        if (diag.getSeverity() == DiagnosticSeverity::Error)
          diag.attachNote() << "the lowering is the pipeline's gemm-lowering="
                            << gemmLowering
                            << "; give this gemm its own `lowering` to "
                               "choose another";
        return failure();
      });
      return failed(gemm.verify()) ? WalkResult::interrupt()
                                   : WalkResult::advance();
    });
    return failure(result.wasInterrupted());
  }

  /// Replaces each `tile.copy %a to %b {convert_layout}` by a copy of %a
  /// into a shared tile of %b's element type and a copy of that tile into
  /// %b: each thread writes the elements it holds in %a's layout and reads
  /// those it holds in %b's. Barrier insertion, which runs next, places the
  /// barrier between them (and before the next reuse of the tile).
  static void convertLayoutsThroughShared(KernelOp kernel) {
    SmallVector<CopyOp> conversions;
    kernel.getBody().walk([&](CopyOp copy) {
      if (copy.getConvertLayout())
        conversions.push_back(copy);
    });
    Block &entry = kernel.getBody().front();
    for (CopyOp copy : conversions) {
      MemRefType target = copy.getTarget().getType();
      auto sharedType = MemRefType::get(
          target.getShape(), target.getElementType(), AffineMap(),
          gpu::AddressSpaceAttr::get(kernel.getContext(),
                                     gpu::AddressSpace::Workgroup));
      OpBuilder builder(kernel.getContext());
      builder.setInsertionPointToStart(&entry);
      Value scratch =
          AllocSharedOp::create(builder, copy.getLoc(), sharedType,
                                IntegerAttr(), IntegerAttr())
              .getResult();
      builder.setInsertionPoint(copy);
      CopyOp::create(builder, copy.getLoc(), copy.getSource(), ValueRange(),
                     scratch, ValueRange(), DenseI64ArrayAttr(),
                     /*convert_layout=*/false);
      CopyOp::create(builder, copy.getLoc(), scratch, ValueRange(),
                     copy.getTarget(), ValueRange(), DenseI64ArrayAttr(),
                     /*convert_layout=*/false);
      copy.erase();
    }
  }

  LogicalResult writeSVG(Operation *op, LayoutAttr layout, int index) {
    if (std::error_code error = llvm::sys::fs::create_directories(svgDir))
      return op->emitError("cannot create '")
             << svgDir << "' for the layout pictures: " << error.message();
    SmallString<128> path(svgDir);
    llvm::sys::path::append(path, getOperation().getSymName() + "." +
                                      std::to_string(index) + ".svg");
    std::error_code error;
    llvm::raw_fd_ostream os(path, error);
    if (error)
      return op->emitError("cannot write '")
             << path << "': " << error.message();
    std::string title;
    llvm::raw_string_ostream titleStream(title);
    titleStream << getOperation().getSymName() << ": fragment " << index << " "
                << op->getResult(0).getType();
    os << renderLayoutSVG(layout, title);
    return success();
  }
};

} // namespace
