//===- CPUTarget.h - Run tile kernels on the CPU ----------------*- C++ -*-===//
//
// tile-run's CPU target (docs/CPUTarget.md): the kernels are lowered with
// the tile-to-gpu half of the pipeline (every tile.gemm as scalar FMAs),
// then buildGPUToHostPipeline, JIT-compiled for the host, and every kernel
// is run by the CPU runtime with one fiber per GPU thread.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNNER_CPUTARGET_H
#define TILE_RUNNER_CPUTARGET_H

#include "mlir/IR/BuiltinOps.h"
#include "tile/Runner/Target.h"
#include "tile/Runtime/CPURuntime.h"
#include "llvm/ADT/StringMap.h"

#include <memory>

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace tile::runner {

/// How the CPU target compiles and runs the kernels.
struct CPUTargetOptions {
  /// Report workgroup-memory accesses to the race detector.
  bool raceCheck = false;
  /// Testing the race check: remove block barrier `skipBarrier` (from 0, in
  /// program order) of kernel `skipBarrierKernel`; -1 removes none.
  int skipBarrier = -1;
  /// Testing the race check: warp-specialized consumers release each stage
  /// before the MMAs that read it retire.
  bool releaseEarly = false;
  /// Testing the race check: warp-specialized consumers do not wait for the
  /// resident tiles' TMA copies.
  bool skipResidentWait = false;
  std::string skipBarrierKernel;
  /// OS threads running blocks; 0 for one per core.
  unsigned workers = 0;
  /// Run only the first `maxBlocks` blocks of each grid; 0 for all.
  int64_t maxBlocks = 0;
};

/// The kernels of one module, compiled for the host.
class CPUTarget : public Target {
public:
  ~CPUTarget() override;

  /// Lowers `module` (tile kernels) in place for the CPU target and
  /// JIT-compiles it.
  static llvm::Expected<std::unique_ptr<CPUTarget>>
  compile(mlir::ModuleOp module, const CPUTargetOptions &options);

  static bool classof(const Target *target) {
    return target->getKind() == Kind::CPU;
  }

  /// Runs the kernel under a fault guard: a crash in it is reported with
  /// its name (GuardedRun.h).
  llvm::Error run(const KernelPlan &plan, llvm::ArrayRef<HostBuffer *> buffers,
                  RuntimeFindings &findings) const override;

private:
  CPUTarget();

  std::unique_ptr<mlir::ExecutionEngine> engine;
  CPUTargetOptions options;
  /// Site descriptions of the runtime calls (tile.cpu.sites).
  std::vector<std::string> sites;
  /// Arena size of each kernel (tile.cpu.shared_bytes).
  llvm::StringMap<int64_t> sharedBytes;
};

} // namespace tile::runner

#endif // TILE_RUNNER_CPUTARGET_H
