//===- PTXSerializer.h - One gpu.module to PTX ------------------*- C++ -*-===//
//
// Upstream's NVVM serialization (translation to LLVM IR, libdevice, the
// NVPTX backend) with the LLVM IR pipeline chosen by the caller, as text in
// LLVM's pass-pipeline syntax, instead of the O-level default pipeline.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_PIPELINES_PTXSERIALIZER_H
#define TILE_LIB_PIPELINES_PTXSERIALIZER_H

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::tile {

/// A lean LLVM IR pipeline (`llvm-passes=lean`; docs/Pipeline.md, "The
/// LLVM pipeline"): one round of O3's function simplification, loop
/// rotation, unrolling and SLP vectorization, at about 40% of O3's time on
/// the tensor-core kernels. Not the default: it changes the PTX of most
/// kernels, which the GPU has to judge first.
extern const char *const kLeanLLVMPasses;

/// Compiles `module` to PTX for `target`. `llvmPasses` is the LLVM IR
/// pipeline (`opt -passes=` syntax, or `lean` for kLeanLLVMPasses); empty
/// runs the target's O-level default pipeline, as upstream does, except
/// the IR passes named (as opt names them) in `skippedPasses`; the
/// backend's are skipped through the gate `options` sets on the module's
/// context. libdevice is linked only when the module calls a function it
/// does not define. Errors are reported on the module; nullopt then.
std::optional<SmallVector<char, 0>>
serializeToPTX(gpu::GPUModuleOp module, NVVM::NVVMTargetAttr target,
               const gpu::TargetOptions &options, StringRef llvmPasses,
               const llvm::StringSet<> &skippedPasses);

} // namespace mlir::tile

#endif // TILE_LIB_PIPELINES_PTXSERIALIZER_H
