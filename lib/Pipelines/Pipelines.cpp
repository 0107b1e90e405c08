//===- Pipelines.cpp - The tile-to-ptx pipeline and its C++ API -----------===//

#include "tile/Pipelines/Pipelines.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"
#include "tile/Conversion/Passes.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"
#include "tile/Pipelines/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"

using namespace mlir;
using namespace mlir::tile;

/// The CUDA toolkit whose libdevice gets linked: the option (an error later
/// when it has no libdevice), else $CUDA_HOME or /usr/local/cuda when it has
/// one. Empty when none is found.
static std::string findCudaPath(const TileToPTXOptions &options) {
  if (!options.cudaPath.empty())
    return options.cudaPath;
  auto hasLibDevice = [](const std::string &root) {
    return llvm::sys::fs::exists(root + "/nvvm/libdevice/libdevice.10.bc");
  };
  if (std::optional<std::string> home = llvm::sys::Process::GetEnv("CUDA_HOME"))
    if (hasLibDevice(*home))
      return *home;
  if (hasLibDevice("/usr/local/cuda"))
    return "/usr/local/cuda";
  return "";
}

void tile::buildTileToPTXPipeline(OpPassManager &pm,
                                  const TileToPTXOptions &options) {
  buildTileToGPUPipeline(pm, options);
  buildGPUToPTXPipeline(pm, options);
}

/// Whether `chip` (sm_XY, sm_XYa) has the Tensor Memory Accelerator.
static bool chipHasTma(StringRef chip) {
  unsigned version = 0;
  return chip.consume_front("sm_") &&
         !chip.take_while(llvm::isDigit).getAsInteger(10, version) &&
         version >= 90;
}

void tile::configureForCPUTarget(TileToPTXOptions &options) {
  options.gemmLowering = "scalar";
  options.chip = kCPUChip.str();
}

void tile::buildTileToGPUPipeline(OpPassManager &pm,
                                  const TileToPTXOptions &options) {
  // Tile level, per kernel.
  OpPassManager &kernelPm = pm.nest<KernelOp>();
  TileInferLayoutsOptions inference;
  inference.gemmLowering = options.gemmLowering;
  kernelPm.addPass(createTileInferLayouts(inference));
  TileSoftwarePipelineOptions pipelining;
  // The CPU target runs TMA pipelines as sm_90a does (the copies by the
  // issuing thread, tile-emulate-tma), so that its race check sees their
  // mbarriers, transaction counts and MMAs left in flight.
  bool cpu = options.chip == kCPUChip;
  pipelining.tma = options.tma && (chipHasTma(options.chip) || cpu);
  kernelPm.addPass(createTileSoftwarePipeline(pipelining));
  kernelPm.addPass(createTileInsertBarriers());
  TileLowerWarpSpecializeOptions specialization;
  specialization.tma = pipelining.tma;
  specialization.testReleaseEarly = options.testReleaseEarly;
  specialization.testSkipResidentWait = options.testSkipResidentWait;
  kernelPm.addPass(createTileLowerWarpSpecialize(specialization));
  // Before the waits are scheduled: they are placed per block, and a
  // peeled iteration's gemms are in the loop's block, not in a branch.
  kernelPm.addPass(createTilePeelGuardedGemms());
  if (cpu) {
    kernelPm.addPass(createTileEmulateTma());
  } else {
    TileScheduleWgmmaWaitsOptions waits;
    waits.gemmLowering = options.gemmLowering;
    waits.chip = options.chip;
    kernelPm.addPass(createTileScheduleWgmmaWaits(waits));
  }
  TileLowerFragmentsOptions fragments;
  fragments.gemmLowering = options.gemmLowering;
  fragments.chip = options.chip;
  fragments.tma =
      options.tma && options.tmaStores && chipHasTma(options.chip);
  kernelPm.addPass(createTileLowerFragments(fragments));
  kernelPm.addPass(createTileLowerTileOps());
  kernelPm.addPass(createTileVectorize());
  kernelPm.addPass(createTileLowerReductions());
  kernelPm.addPass(createTileLowerAtomics());
  // Before canonicalize, on purpose: the unrolled accumulator accesses
  // already have constant indices, the fragments that vectorized loops write
  // do not yet. Forwarding those too changes LLVM's schedule of the TVM
  // conv2d: 130 registers instead of 125, 7 blocks per SM instead of 8, 15%
  // slower on an H200 (docs/Pipeline.md).
  kernelPm.addPass(createTileForwardLocalStores());
  kernelPm.addPass(createTileApplySwizzles());
  GreedyRewriteConfig kernelCanonicalize;
  kernelCanonicalize.setRegionSimplificationLevel(
      GreedySimplifyRegionLevel::Disabled);
  kernelPm.addPass(createCanonicalizerPass(kernelCanonicalize));
  kernelPm.addPass(createCSEPass());

  pm.addPass(createTileToGPU());
}

void tile::buildGPUToPTXPipeline(OpPassManager &pm,
                                 const TileToPTXOptions &options) {
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));

  OpPassManager &gpuPm = pm.nest<gpu::GPUModuleOp>();
  // The index maps of thread ids and loop counters without upstream's sign
  // tests; upstream's lower-affine for what remains (affine.for, min, max).
  gpuPm.addPass(createTileLowerAffine());
  // Before arith-expand, which would expand maximumf / minimumf.
  gpuPm.addPass(createTileMathToIntrinsics());
  gpuPm.addPass(createTileArithExpand());
  gpuPm.addPass(createTileExpandViewsAndTransfers());
  gpuPm.addPass(createTileLowerAffine());
  gpuPm.addPass(createTileArithExpand());
  // The index arithmetic that lower-affine and arith-expand write out
  // repeats across the affine.apply ops it came from: merged here, the
  // LLVM-dialect conversion converts each op once (gemm/wgmma.mlir 1350 ->
  // 1284 M instructions, PTX byte-identical).
  gpuPm.addPass(createCSEPass());
  SCFToControlFlowPassOptions toCF;
  toCF.allowPatternRollback = false;
  gpuPm.addPass(createSCFToControlFlowPass(toCF));
  // Fragments' registers as SSA values before the conversions: their loads
  // and stores at constant indices were most of a tensor-core kernel's ops
  // from here to LLVM's first SROA (docs/Pipeline.md, compile time).
  if (options.promoteRegisters)
    gpuPm.addPass(createTilePromoteRegisters());
  gpuPm.addPass(createConvertNVGPUToNVVMPass());
  ConvertGpuOpsToNVVMOpsOptions toNVVM;
  toNVVM.indexBitwidth = 64;
  toNVVM.allowPatternRollback = false;
  gpuPm.addPass(createConvertGpuOpsToNVVMOps(toNVVM));
  gpuPm.addPass(createConvertNVVMToLLVMPass());
  // No canonicalize or CSE of the LLVM dialect here: LLVM's first passes do
  // the same, and the PTX of every example kernel was byte-identical
  // without them (attention 23 M, a warp-specialized GEMM 11 M instructions
  // less; docs/Pipeline.md, compile time).
  gpuPm.addPass(createTileLLVMArrayAllocas());
  pm.addPass(createReconcileUnrealizedCastsPass());

  TileSerializeToPTXOptions serialize;
  serialize.toolkitPath = findCudaPath(options);
  serialize.skipLLVMPasses = options.skipLLVMPasses;
  serialize.llvmPasses = options.llvmPasses;
  pm.addPass(createTileSerializeToPTX(serialize));
  if (!options.ptxOutput.empty()) {
    TileWritePTXOptions write;
    write.output = options.ptxOutput;
    pm.addPass(createTileWritePTX(write));
  }
}

void tile::registerTileToPTXPipeline() {
  PassPipelineRegistration<TileToPTXOptions>(
      "tile-to-ptx",
      "Lower tile kernels to PTX: tile passes, tile-to-gpu, NVVM, "
      "PTX per kernel (compiled in parallel)",
      buildTileToPTXPipeline);
}

void tile::buildGPUToHostPipeline(OpPassManager &pm,
                                  const TileToHostOptions &options) {
  TileGPUToHostOptions host;
  host.raceCheck = options.raceCheck;
  host.testSkipBarrier = options.testSkipBarrier;
  host.testSkipBarrierKernel = options.testSkipBarrierKernel;
  pm.addPass(createTileGPUToHost(host));
  buildHostToLLVMPipeline(pm);
}

void tile::buildHostToLLVMPipeline(OpPassManager &pm) {
  pm.addPass(createLowerAffinePass());
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void tile::registerTileToHostPipeline() {
  PassPipelineRegistration<TileToHostOptions>(
      "tile-to-host",
      "Lower tile kernels for the CPU target: tile passes, tile-to-gpu, then "
      "one host function per kernel that runs one thread, in the LLVM dialect",
      [](OpPassManager &pm, const TileToHostOptions &options) {
        TileToPTXOptions gpuOptions;
        configureForCPUTarget(gpuOptions);
        buildTileToGPUPipeline(pm, gpuOptions);
        buildGPUToHostPipeline(pm, options);
      });
}

FailureOr<SmallVector<KernelPTX>>
tile::compileToPTX(ModuleOp module, const TileToPTXOptions &options) {
  PassManager pm(module->getName());
  // The input is verified once, not the IR after every pass: that was a
  // fifth of the compile time of tensor-core kernels (the kernel checks
  // rerun the thread-uniformity analysis each time). tile-opt verifies
  // after each pass, for debugging the passes.
  if (failed(verify(module)))
    return failure();
  pm.enableVerifier(false);
  buildTileToPTXPipeline(pm, options);
  if (failed(pm.run(module)))
    return failure();
  SmallVector<KernelPTX> kernels = getKernelPTX(module);
  if (kernels.empty()) {
    module.emitError("the module holds no kernel: no PTX was produced");
    return failure();
  }
  return kernels;
}
