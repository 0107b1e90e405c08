//===- main.cpp - Compile tile kernels to PTX through the C++ API ---------===//
//
// Usage: tile-embed KERNELS.mlir
// Prints the number of kernels compiled, then each kernel's launch info
// (block, dynamic shared memory, the tensor maps to pass after its
// arguments: docs/KernelABI.md) and its PTX.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "tile/InitAll.h"
#include "tile/Pipelines/Pipelines.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    llvm::errs() << "usage: tile-embed KERNELS.mlir\n";
    return 2;
  }
  mlir::DialectRegistry registry;
  mlir::tile::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(argv[1], &context);
  if (!module)
    return 1;

  mlir::tile::TileToPTXOptions options;
  options.chip = "sm_90a";
  llvm::FailureOr<llvm::SmallVector<mlir::tile::KernelPTX>> kernels =
      mlir::tile::compileToPTX(*module, options);
  if (llvm::failed(kernels))
    return 1;
  llvm::outs() << "compiled " << kernels->size() << " kernel(s)\n";
  for (const mlir::tile::KernelPTX &kernel : *kernels) {
    const mlir::tile::KernelLaunchInfo &launch = kernel.launch;
    llvm::outs() << "// kernel " << kernel.kernel << ": block "
                 << launch.block[0] << "x" << launch.block[1] << "x"
                 << launch.block[2] << ", " << launch.dynamicSharedBytes
                 << " bytes of dynamic shared memory\n";
    for (const mlir::tile::TensorMapInfo &map : launch.tensorMaps) {
      llvm::outs() << "// tensor map of argument " << map.argument << ": box ";
      llvm::interleave(map.box, llvm::outs(), "x");
      llvm::outs() << ", swizzle " << map.swizzle
                   << (map.roundTF32 ? ", f32 rounded to tf32" : "") << "\n";
    }
    llvm::outs() << kernel.ptx;
  }
  return 0;
}
