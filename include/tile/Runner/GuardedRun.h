//===- GuardedRun.h - Run user code on the CPU with checks ------*- C++ -*-===//
//
// User code that tile-run compiles for the CPU (references, kernels on the
// CPU target) may be wrong: a `memref.dim` of a dimension the memref does
// not have, a load out of bounds, an integer division by zero. Such a
// mistake must be a report naming the function, the op and its location,
// never a crash of tile-run. References get MLIR's runtime verification
// (`generate-runtime-verification`), whose failed checks call back into
// tile-run; faults (SIGSEGV, SIGBUS, SIGFPE, SIGILL) are caught around the
// call.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNNER_GUARDEDRUN_H
#define TILE_RUNNER_GUARDEDRUN_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

namespace tile::runner {

/// The runtime function a failed check calls, with its message.
constexpr llvm::StringLiteral kCheckFailedFunction =
    "tile_runtime_check_failed";

/// Adds a check before every `scf.for` of `module` that its step is
/// positive: with a step of zero (or below) the loop would never end and
/// tile-run would wait forever. A failed check reads "FILE:LINE:COL:
/// 'scf.for': step is N, not positive: the loop would never end".
void addLoopStepChecks(mlir::ModuleOp module);

/// Replaces every `cf.assert` of `module` (the checks of
/// `generate-runtime-verification`) by a call of kCheckFailedFunction when
/// the condition is false, with the message "FILE:LINE:COL: OP: WHAT".
void lowerChecksToReports(mlir::ModuleOp module);

/// Calls `function(arguments)`, JIT-compiled user code described by `what`
/// (e.g. "the reference 'f'"), on this thread. A failed check or a fault
/// returns an error that says which, instead of ending the process. A fault
/// on another thread during the call (a CPU-target worker) prints the same
/// message and exits with status 1. JIT-compiled code holds no destructors,
/// so leaving it by a long jump skips nothing.
llvm::Error callGuarded(void (*function)(void **), void **arguments,
                        llvm::StringRef what);

/// While alive, a fault on any thread (a CPU-target worker running a
/// kernel) prints "tile-run: WHAT crashed: SIGNAL, ..." and exits with
/// status 1, instead of a stack dump. Not nested in callGuarded.
class FaultReport {
public:
  explicit FaultReport(llvm::StringRef what);
  ~FaultReport();
  FaultReport(const FaultReport &) = delete;
  FaultReport &operator=(const FaultReport &) = delete;
};

} // namespace tile::runner

/// The symbol of kCheckFailedFunction, for the JIT's symbol map.
extern "C" void tile_runtime_check_failed(const char *message);

#endif // TILE_RUNNER_GUARDEDRUN_H
