//===- CPUTarget.h - Run tile kernels on the CPU ----------------*- C++ -*-===//
//
// tile-run's CPU target (docs/CPUTarget.md): the output of the tile-to-gpu
// half of the pipeline is lowered with buildGPUToHostPipeline, JIT-compiled
// for the host, and every kernel is run by the CPU runtime with one fiber
// per GPU thread.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNNER_CPUTARGET_H
#define TILE_RUNNER_CPUTARGET_H

#include "mlir/IR/BuiltinOps.h"
#include "tile/Runner/KernelPlan.h"
#include "tile/Runtime/CPURuntime.h"
#include "llvm/ADT/StringMap.h"

#include <memory>

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace tile::runner {

/// How CPUProgram::compile lowers the kernels.
struct CPUCompileOptions {
  /// Report workgroup-memory accesses to the race detector.
  bool raceCheck = false;
  /// Testing the race check: remove block barrier `skipBarrier` (from 0, in
  /// program order) of kernel `skipBarrierKernel`; -1 removes none.
  int skipBarrier = -1;
  std::string skipBarrierKernel;
};

/// The kernels of one module, compiled for the host.
class CPUProgram {
public:
  ~CPUProgram();

  /// Lowers `module` (the output of buildTileToGPUPipeline) in place for the
  /// CPU target and JIT-compiles it.
  static llvm::Expected<std::unique_ptr<CPUProgram>>
  compile(mlir::ModuleOp module, const CPUCompileOptions &options);

  /// Runs kernel `name` with the grid, block and scalars of `plan` on
  /// `buffers` (one per argument, null for scalars), in place. `workers`:
  /// OS threads running blocks, 0 for one per core; `maxBlocks`: run only
  /// the first blocks, 0 for all.
  llvm::Expected<cpu::LaunchResult>
  launch(llvm::StringRef name, const KernelPlan &plan,
         llvm::ArrayRef<HostBuffer *> buffers, unsigned workers,
         int64_t maxBlocks = 0) const;

  bool isRaceChecked() const { return raceCheck; }

private:
  CPUProgram() = default;

  std::unique_ptr<mlir::ExecutionEngine> engine;
  bool raceCheck = false;
  /// Site descriptions of the runtime calls (tile.cpu.sites).
  std::vector<std::string> sites;
  /// Arena size of each kernel (tile.cpu.shared_bytes).
  llvm::StringMap<int64_t> sharedBytes;
};

} // namespace tile::runner

#endif // TILE_RUNNER_CPUTARGET_H
