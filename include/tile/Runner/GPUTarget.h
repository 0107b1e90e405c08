//===- GPUTarget.h - Run tile kernels on the GPU ----------------*- C++ -*-===//
//
// tile-run's GPU target: the kernels are compiled with compileToPTX, which
// also gives each kernel's launch metadata (dynamic shared memory, tensor
// maps), loaded through the CUDA driver, and launched on device copies of
// the host buffers (the parameters laid out as docs/KernelABI.md says).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNNER_GPUTARGET_H
#define TILE_RUNNER_GPUTARGET_H

#include "mlir/IR/BuiltinOps.h"
#include "tile/Pipelines/Pipelines.h"
#include "tile/Runner/Target.h"
#include "tile/Runtime/CudaDriver.h"
#include "llvm/ADT/StringMap.h"

#include <map>
#include <memory>
#include <optional>

namespace tile::runner {

/// The kernels of one module, compiled to PTX and loaded on one GPU.
class GPUTarget : public Target {
public:
  ~GPUTarget() override;

  /// Lowers `module` (tile kernels) in place with the tile-to-ptx pipeline
  /// and loads every kernel's PTX on `device`. A kernel named in
  /// `replacementPTX` loads that PTX instead of its own (experiments on
  /// edited PTX: the launch still follows the kernel, so the entry must
  /// keep its name and parameters).
  static llvm::Expected<std::unique_ptr<GPUTarget>>
  compile(mlir::ModuleOp module, const mlir::tile::TileToPTXOptions &options,
          std::unique_ptr<runtime::Device> device,
          const llvm::StringMap<std::string> &replacementPTX = {});

  static bool classof(const Target *target) {
    return target->getKind() == Kind::GPU;
  }

  /// Copies `buffers` to the device, launches, waits, copies the written
  /// buffers back. A fault is an error naming the kernel.
  llvm::Error run(const KernelPlan &plan, llvm::ArrayRef<HostBuffer *> buffers,
                  RuntimeFindings &findings) const override;

  /// Times the kernel the BENCH.md way on device copies of `buffers`:
  /// `warmup` untimed launches, then `repetitions` launches timed with CUDA
  /// events, each after 256 MB are written (the L2 cache flushed). Returns
  /// microseconds, one sample per timed launch.
  llvm::Expected<std::vector<double>> time(const KernelPlan &plan,
                                           llvm::ArrayRef<HostBuffer *> buffers,
                                           unsigned warmup,
                                           unsigned repetitions) const;

  /// The PTX of kernel `name`, if the module had such a kernel.
  std::optional<llvm::StringRef> getPTX(llvm::StringRef name) const;

private:
  struct LoadedKernel;
  struct Launch;

  GPUTarget();
  llvm::Expected<Launch> prepare(const KernelPlan &plan,
                                 llvm::ArrayRef<HostBuffer *> buffers) const;

  std::unique_ptr<runtime::Device> device;
  std::map<std::string, std::unique_ptr<LoadedKernel>, std::less<>> kernels;
};

} // namespace tile::runner

#endif // TILE_RUNNER_GPUTARGET_H
