//===- GPUToHost.cpp - Run each GPU thread as a host function -------------===//
//
// The CPU target's lowering (docs/CPUTarget.md): every kernel gpu.func
// becomes a func.func that executes one GPU thread, called by the CPU
// runtime once per thread (each a fiber). The pass drives the three steps
// of HostLowering.h per kernel: instrumentation (bounds checks, race
// reports), workgroup memory placement, thread-level ops to runtime calls.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Passes.h"

#include "HostLowering.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "tile/Dialect/Tile/IR/TileOps.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-gpu-to-host"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEGPUTOHOST
#include "tile/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::host;

/// The race check's own test: removes one block barrier of one kernel, as
/// if barrier insertion had missed it, and says which.
static LogicalResult skipTestBarrier(gpu::GPUFuncOp func, int skipBarrier,
                                     StringRef skipBarrierKernel) {
  if (skipBarrier < 0 || func.getName() != skipBarrierKernel)
    return success();
  SmallVector<gpu::BarrierOp> barriers;
  func.walk([&](gpu::BarrierOp barrier) { barriers.push_back(barrier); });
  if (static_cast<size_t>(skipBarrier) >= barriers.size())
    return func.emitError("test-skip-barrier=")
           << skipBarrier << ": kernel '" << func.getName() << "' has "
           << barriers.size() << " block barriers";
  gpu::BarrierOp barrier = barriers[skipBarrier];
  auto pass = barrier->getAttrOfType<StringAttr>(kInsertedByAttr);
  barrier.emitRemark("test-skip-barrier=")
      << skipBarrier << ": removed this barrier of " << barriers.size()
      << " (placed by " << (pass ? pass.getValue() : "the kernel author")
      << ")";
  barrier.erase();
  return success();
}

/// Lowers every kernel of `module` for the CPU target.
static LogicalResult lowerToHost(ModuleOp module, bool raceCheck,
                                 int skipBarrier, StringRef skipBarrierKernel) {
  SiteTable sites(module.getContext());
  // The launchers go first: the runtime launches the thread functions, which
  // take their names.
  for (auto launcher :
       llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (launcher->hasAttr(kLauncherAttr))
      launcher.erase();
  SmallVector<gpu::GPUModuleOp> gpuModules(module.getOps<gpu::GPUModuleOp>());
  for (gpu::GPUModuleOp gpuModule : gpuModules) {
    SmallVector<gpu::GPUFuncOp> funcs(gpuModule.getOps<gpu::GPUFuncOp>());
    for (gpu::GPUFuncOp gpuFunc : funcs) {
      if (!gpuFunc.isKernel())
        return gpuFunc.emitOpError(
            "is not a kernel; the CPU target only runs kernels");
      // Inline PTX (e.g. a packed f16x2 atomic) has no host meaning; the
      // host JIT would abort on it.
      WalkResult inlineAsm = gpuFunc.walk([](LLVM::InlineAsmOp op) {
        op.emitOpError("is inline PTX, which the CPU target cannot run (")
            << op.getAsmString() << ")";
        return WalkResult::interrupt();
      });
      if (inlineAsm.wasInterrupted() ||
          failed(skipTestBarrier(gpuFunc, skipBarrier, skipBarrierKernel)) ||
          failed(lowerAsyncCopies(gpuFunc)))
        return failure();
      instrumentViews(gpuFunc, sites);
      instrumentAccesses(gpuFunc, sites, raceCheck);
      FailureOr<func::FuncOp> func = moveToHost(module, gpuFunc);
      if (failed(func) ||
          failed(placeWorkgroupMemory(gpuModule, gpuFunc, *func, sites)))
        return failure();
      if (auto reference = gpuFunc->getAttr(kReferenceAttr))
        (*func)->setAttr(kReferenceAttr, reference);
      if (failed(lowerThreadOps(*func, sites)))
        return failure();
      LLVM_DEBUG(llvm::dbgs() << "lowered " << gpuFunc.getName() << "\n");
    }
    gpuModule.erase();
  }
  module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
  module->setAttr(kCPUSitesAttr, sites.getAttr());
  return success();
}

namespace {
struct TileGPUToHostPass
    : public mlir::tile::impl::TileGPUToHostBase<TileGPUToHostPass> {
  using TileGPUToHostBase::TileGPUToHostBase;

  void runOnOperation() override {
    if (failed(lowerToHost(getOperation(), raceCheck, testSkipBarrier,
                           testSkipBarrierKernel)))
      signalPassFailure();
  }
};
} // namespace
