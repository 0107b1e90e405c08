//===- Target.h - Where tile-run runs kernels -------------------*- C++ -*-===//
//
// A target compiles a module of tile kernels once, with the pipeline, and
// then runs any of its kernels on host buffers: the GPU through the CUDA
// driver (GPUTarget.h) or the CPU, one fiber per GPU thread (CPUTarget.h).
// tile-run checks and reports the same way on both.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNNER_TARGET_H
#define TILE_RUNNER_TARGET_H

#include "tile/Runner/KernelPlan.h"
#include "tile/Runner/Report.h"
#include "llvm/Support/Error.h"

#include <string>

namespace tile::runner {

class Target {
public:
  enum class Kind { GPU, CPU };

  virtual ~Target();

  Kind getKind() const { return kind; }
  /// "GPU" or "CPU": where a kernel run as a reference ran.
  llvm::StringRef getKindName() const {
    return kind == Kind::GPU ? "GPU" : "CPU";
  }

  /// The device, for the report: "NVIDIA H200", "CPU (2 worker threads)".
  const std::string &getDeviceName() const { return deviceName; }
  /// Milliseconds the compilation took: the pipeline up to PTX (GPU; the
  /// driver's JIT of the PTX is not counted) or up to host code
  /// JIT-compiled (CPU).
  double getCompileMs() const { return compileMs; }

  /// Runs kernel `plan.kernel` once with the plan's grid, block and scalar
  /// values on `buffers` (one per argument of the plan, null for scalars):
  /// the kernel reads them, and what it writes is copied back into them.
  /// What the target finds besides (on the CPU: races, out-of-bounds
  /// accesses, deadlocks) is added to `findings`.
  virtual llvm::Error run(const KernelPlan &plan,
                          llvm::ArrayRef<HostBuffer *> buffers,
                          RuntimeFindings &findings) const = 0;

protected:
  explicit Target(Kind kind) : kind(kind) {}

  const Kind kind;
  std::string deviceName;
  double compileMs = 0;
};

} // namespace tile::runner

#endif // TILE_RUNNER_TARGET_H
