//===- WritePTX.cpp - Write the PTX of gpu.binary ops to a file -----------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"
#include "tile/Pipelines/Pipelines.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"

#define DEBUG_TYPE "tile-write-ptx"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEWRITEPTX
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

SmallVector<KernelPTX> tile::getKernelPTX(ModuleOp module) {
  // The kernel each binary holds, from the launchers.
  llvm::StringMap<std::string> kernelOf;
  module.walk([&](gpu::LaunchFuncOp launch) {
    kernelOf[launch.getKernelModuleName().getValue()] =
        launch.getKernelName().getValue().str();
  });
  SmallVector<KernelPTX> kernels;
  for (auto binary : module.getOps<gpu::BinaryOp>()) {
    for (Attribute attr : binary.getObjects()) {
      auto object = dyn_cast<gpu::ObjectAttr>(attr);
      if (!object || object.getFormat() != gpu::CompilationTarget::Assembly)
        continue;
      auto it = kernelOf.find(binary.getName());
      kernels.push_back({it != kernelOf.end() ? it->second
                                              : binary.getName().str(),
                         object.getObject().getValue().str()});
      break;
    }
  }
  return kernels;
}

std::string tile::getPTX(ModuleOp module, StringRef kernel) {
  for (KernelPTX &entry : getKernelPTX(module))
    if (entry.kernel == kernel)
      return std::move(entry.ptx);
  return "";
}

/// `path` with `.kernel` inserted before its extension.
static std::string getKernelPath(StringRef path, StringRef kernel) {
  StringRef extension = llvm::sys::path::extension(path);
  return (path.drop_back(extension.size()) + "." + kernel + extension).str();
}

/// True when `path` names something other than a regular file that exists
/// (/dev/null, a pipe): every kernel's PTX goes there.
static bool isSpecialFile(StringRef path) {
  llvm::sys::fs::file_status status;
  return !llvm::sys::fs::status(path, status) &&
         llvm::sys::fs::exists(status) &&
         !llvm::sys::fs::is_regular_file(status);
}

namespace {

struct TileWritePTXPass : tile::impl::TileWritePTXBase<TileWritePTXPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<KernelPTX> kernels = getKernelPTX(getOperation());
    if (kernels.empty()) {
      getOperation().emitError("no PTX to write: expected gpu.binary ops "
                               "serialized with format=isa");
      return signalPassFailure();
    }
    if (kernels.size() == 1 || output == "-" || isSpecialFile(output)) {
      std::string all;
      for (const KernelPTX &kernel : kernels) {
        if (kernels.size() > 1)
          all += "// ===== kernel " + kernel.kernel + "\n";
        all += kernel.ptx;
      }
      if (failed(write(output, all)))
        return signalPassFailure();
      return;
    }
    for (const KernelPTX &kernel : kernels)
      if (failed(write(getKernelPath(output, kernel.kernel), kernel.ptx)))
        return signalPassFailure();
  }

  LogicalResult write(StringRef path, StringRef ptx) {
    std::string message;
    std::unique_ptr<llvm::ToolOutputFile> file =
        openOutputFile(path, &message);
    if (!file)
      return getOperation().emitError("cannot write PTX to '")
             << path << "': " << message;
    file->os() << ptx;
    file->keep();
    return success();
  }
};

} // namespace
