//===- ReferenceJIT.h - Run a reference func.func on the CPU ----*- C++ -*-===//

#ifndef TILE_RUNNER_REFERENCEJIT_H
#define TILE_RUNNER_REFERENCEJIT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "tile/Runner/KernelPlan.h"

#include <memory>

namespace tile::runner {

/// Lowers `func` to LLVM, JIT-compiles it with the MLIR ExecutionEngine and
/// calls it with `buffers` (one per buffer argument, in argument order;
/// null for scalars) and the scalars of `arguments`.
llvm::Error runOnCPU(mlir::func::FuncOp func,
                     llvm::ArrayRef<ArgumentPlan> arguments,
                     llvm::ArrayRef<HostBuffer *> buffers);

} // namespace tile::runner

#endif // TILE_RUNNER_REFERENCEJIT_H
