//===- Pipelines.h - The tile-to-ptx pipeline and its C++ API ---*- C++ -*-===//

#ifndef TILE_PIPELINES_PIPELINES_H
#define TILE_PIPELINES_PIPELINES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "tile/Pipelines/Passes.h"

#include <array>
#include <optional>
#include <string>

namespace mlir::tile {

/// Options of the `tile-to-ptx` pipeline.
struct TileToPTXOptions : public PassPipelineOptions<TileToPTXOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("Target GPU architecture"),
                           llvm::cl::init("sm_90a")};
  Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features (the PTX ISA version, e.g. +ptx86)"),
      llvm::cl::init("+ptx86")};
  Option<unsigned> optLevel{*this, "opt-level",
                            llvm::cl::desc("LLVM optimization level (0-3)"),
                            llvm::cl::init(3)};
  Option<std::string> llvmPasses{
      *this, "llvm-passes",
      llvm::cl::desc("LLVM IR pipeline, in opt's -passes syntax, or 'lean' "
                     "(empty: each kernel's llvm_passes, else the opt-level's "
                     "default pipeline)"),
      llvm::cl::init("")};
  Option<std::string> cudaPath{
      *this, "cuda-path",
      llvm::cl::desc("CUDA toolkit whose libdevice is linked when math "
                     "functions need it (default: $CUDA_HOME, else "
                     "/usr/local/cuda)"),
      llvm::cl::init("")};
  Option<std::string> gemmLowering{
      *this, "gemm-lowering",
      llvm::cl::desc("Instructions of tile.gemm ops that do not choose: "
                     "mma_sync (tensor cores, sm_80 and later), wgmma "
                     "(warp-group tensor cores, sm_90a) or scalar (FMAs; "
                     "what the CPU target runs)"),
      llvm::cl::init("mma_sync")};
  Option<bool> tma{
      *this, "tma",
      llvm::cl::desc("Copy the tiles of rolled pipelines with the Tensor "
                     "Memory Accelerator where the chip has one (sm_90 and "
                     "later) and the copy allows it"),
      llvm::cl::init(true)};
  Option<bool> tmaStores{
      *this, "tma-stores",
      llvm::cl::desc("With tma: copy MMA accumulators out to kernel "
                     "arguments through shared tiles and TMA stores where "
                     "the layout and the target allow it"),
      llvm::cl::init(true)};
  Option<bool> promoteRegisters{
      *this, "promote-registers",
      llvm::cl::desc("Promote per-thread buffers accessed at constant "
                     "indices (fragment registers) to SSA values before the "
                     "LLVM conversion (tile-promote-registers)"),
      llvm::cl::init(true)};
  Option<bool> testReleaseEarly{
      *this, "test-release-early",
      llvm::cl::desc("Testing the race check: warp-specialized consumers "
                     "release each stage before the MMAs reading it retire"),
      llvm::cl::init(false)};
  Option<bool> testSkipResidentWait{
      *this, "test-skip-resident-wait",
      llvm::cl::desc("Testing the race check: warp-specialized consumers do "
                     "not wait for the resident tiles' TMA copies"),
      llvm::cl::init(false)};
  Option<std::string> skipLLVMPasses{
      *this, "skip-llvm-passes",
      llvm::cl::desc("Comma-separated LLVM passes not to run, by their opt "
                     "or llc names (default: those that cost compile time "
                     "and give nothing here; 'default' in the list stands "
                     "for it; empty: run all)"),
      llvm::cl::init(kDefaultSkippedLLVMPasses)};
  Option<std::string> ptxOutput{
      *this, "ptx-output",
      llvm::cl::desc("Also write the PTX to this file ('-': standard output); "
                     "with several kernels, one file each: out.ptx becomes "
                     "out.KERNEL.ptx"),
      llvm::cl::init("")};
};

/// Adds the passes that lower a module of tile kernels to a gpu.binary
/// holding PTX, and a host launcher per kernel: the two halves below.
void buildTileToPTXPipeline(OpPassManager &pm,
                            const TileToPTXOptions &options);

/// Sets `options` for the CPU target, which runs no tensor-core
/// instructions: every tile.gemm lowers to scalar FMAs (in the layout it
/// asked for).
void configureForCPUTarget(TileToPTXOptions &options);

/// The first half: tile passes and tile-to-gpu (gpu.func per kernel).
void buildTileToGPUPipeline(OpPassManager &pm,
                            const TileToPTXOptions &options);

/// The second half: NVVM lowering and serialization to PTX.
void buildGPUToPTXPipeline(OpPassManager &pm, const TileToPTXOptions &options);

/// Registers `tile-to-ptx` with the pass registry.
void registerTileToPTXPipeline();

/// Options of the CPU target's pipeline (docs/CPUTarget.md).
struct TileToHostOptions : public PassPipelineOptions<TileToHostOptions> {
  Option<bool> raceCheck{
      *this, "race-check",
      llvm::cl::desc("Report workgroup-memory accesses to the CPU runtime's "
                     "race detector"),
      llvm::cl::init(false)};
  Option<int> testSkipBarrier{
      *this, "test-skip-barrier",
      llvm::cl::desc("Testing the race check: remove the N-th block barrier "
                     "of kernel test-skip-barrier-kernel"),
      llvm::cl::init(-1)};
  Option<std::string> testSkipBarrierKernel{
      *this, "test-skip-barrier-kernel",
      llvm::cl::desc("The kernel whose barrier test-skip-barrier removes"),
      llvm::cl::init("")};
};

/// Adds the standard lowering of host code (func, scf, memref, vector,
/// arith, math) to the LLVM dialect: the CPU target's and the references'.
void buildHostToLLVMPipeline(OpPassManager &pm);

/// Adds the passes that lower the output of buildTileToGPUPipeline for the
/// CPU target: each kernel becomes a host function running one thread
/// (tile-gpu-to-host), then the LLVM dialect for the host.
void buildGPUToHostPipeline(OpPassManager &pm, const TileToHostOptions &options);

/// Registers `tile-to-host` (tile passes, tile-to-gpu, then the above) with
/// the pass registry.
void registerTileToHostPipeline();

/// A tensor map that a kernel's TMA copies read (docs/KernelABI.md): the
/// launcher encodes one over the buffer of memref argument `argument` and
/// passes its device address after the kernel's own parameters.
struct TensorMapInfo {
  unsigned argument = 0;
  /// Box extents, outermost first.
  SmallVector<int64_t> box;
  /// Bytes: 0 or 128.
  int64_t swizzle = 0;
  /// The copies round f32 elements to tf32 (data type TFLOAT32) rather
  /// than copy their bits.
  bool roundTF32 = false;
};

/// What launching a kernel takes beyond its arguments.
struct KernelLaunchInfo {
  /// Threads per block, x, y, z.
  std::array<int64_t, 3> block = {1, 1, 1};
  /// Bytes of dynamic shared memory to launch with (0: none).
  int64_t dynamicSharedBytes = 0;
  /// The tensor-map parameters, in order.
  SmallVector<TensorMapInfo> tensorMaps;
};

/// The launch info of `kernel` from its host launcher (made by tile-to-gpu;
/// still there after the whole pipeline), if it has one.
std::optional<KernelLaunchInfo> getLaunchInfo(ModuleOp module,
                                              StringRef kernel);

/// The PTX of one kernel: one gpu.binary, compiled from the kernel's own
/// gpu.module.
struct KernelPTX {
  /// The kernel (the binary's name unless launchers name exactly one
  /// kernel in it).
  std::string kernel;
  std::string ptx;
  /// How to launch it (default when no launcher names the kernel).
  KernelLaunchInfo launch;
};

/// Returns the PTX of every gpu.binary of `module`, in order.
SmallVector<KernelPTX> getKernelPTX(ModuleOp module);

/// Returns the PTX of the gpu.binary that holds `kernel`, if one does.
std::optional<std::string> getPTX(ModuleOp module, StringRef kernel);

/// Lowers `module` in place with the pipeline and returns the PTX of each of
/// its kernels. Diagnostics go to the context's handler.
FailureOr<SmallVector<KernelPTX>> compileToPTX(ModuleOp module,
                                               const TileToPTXOptions &options);

} // namespace mlir::tile

#endif // TILE_PIPELINES_PIPELINES_H
