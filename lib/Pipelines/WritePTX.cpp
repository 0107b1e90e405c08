//===- WritePTX.cpp - Write the PTX of gpu.binary ops to a file -----------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Pipelines/Passes.h"
#include "tile/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"

#define DEBUG_TYPE "tile-write-ptx"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEWRITEPTX
#include "tile/Pipelines/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

SmallVector<KernelPTX> tile::getKernelPTX(ModuleOp module) {
  // The kernels each binary holds, from the launchers.
  llvm::StringMap<llvm::SetVector<StringRef>> kernelsOf;
  module.walk([&](gpu::LaunchFuncOp launch) {
    kernelsOf[launch.getKernelModuleName().getValue()].insert(
        launch.getKernelName().getValue());
  });
  SmallVector<KernelPTX> kernels;
  for (auto binary : module.getOps<gpu::BinaryOp>()) {
    for (Attribute attr : binary.getObjects()) {
      auto object = dyn_cast<gpu::ObjectAttr>(attr);
      if (!object || object.getFormat() != gpu::CompilationTarget::Assembly)
        continue;
      // Named after its kernel when it holds exactly one.
      auto it = kernelsOf.find(binary.getName());
      StringRef name = it != kernelsOf.end() && it->second.size() == 1
                           ? it->second.front()
                           : binary.getName();
      KernelLaunchInfo launch =
          getLaunchInfo(module, name).value_or(KernelLaunchInfo());
      kernels.push_back(
          {name.str(), object.getObject().getValue().str(), std::move(launch)});
      break;
    }
  }
  return kernels;
}

std::optional<KernelLaunchInfo> tile::getLaunchInfo(ModuleOp module,
                                                    StringRef kernel) {
  auto launcher = module.lookupSymbol<func::FuncOp>(kernel);
  if (!launcher || !launcher->hasAttr(kLauncherAttr))
    return std::nullopt;
  KernelLaunchInfo info;
  launcher.walk([&](gpu::LaunchFuncOp launch) {
    gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
    std::array<Value, 3> extents = {block.x, block.y, block.z};
    for (auto [index, extent] : llvm::enumerate(extents))
      if (std::optional<int64_t> value = getConstantIntValue(extent))
        info.block[index] = *value;
  });
  if (auto bytes =
          launcher->getAttrOfType<IntegerAttr>(kDynamicSharedMemoryAttr))
    info.dynamicSharedBytes = bytes.getInt();
  if (auto maps = launcher->getAttrOfType<ArrayAttr>(kTensorMapsAttr))
    for (auto map : maps.getAsRange<DictionaryAttr>()) {
      TensorMapInfo &tensorMap = info.tensorMaps.emplace_back();
      tensorMap.argument = map.getAs<IntegerAttr>("argument").getInt();
      llvm::append_range(tensorMap.box,
                         map.getAs<DenseI64ArrayAttr>("box").asArrayRef());
      tensorMap.swizzle = map.getAs<IntegerAttr>("swizzle").getInt();
      tensorMap.roundTF32 = static_cast<bool>(map.get("tf32"));
    }
  return info;
}

std::optional<std::string> tile::getPTX(ModuleOp module, StringRef kernel) {
  for (KernelPTX &entry : getKernelPTX(module))
    if (entry.kernel == kernel)
      return std::move(entry.ptx);
  return std::nullopt;
}

/// `path` with `.kernel` inserted before its extension; characters of the
/// kernel's name that do not belong in a file name become `_`.
static std::string getKernelPath(StringRef path, StringRef kernel) {
  std::string name = kernel.str();
  for (char &c : name)
    if (!llvm::isAlnum(c) && c != '_' && c != '.' && c != '$' && c != '-')
      c = '_';
  StringRef extension = llvm::sys::path::extension(path);
  return (path.drop_back(extension.size()) + "." + name + extension).str();
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
    llvm::StringSet<> names;
    for (const KernelPTX &kernel : kernels) {
      if (!names.insert(kernel.kernel).second) {
        emitError(getOperation().getLoc())
            << "two gpu.binary ops hold a kernel named '" << kernel.kernel
            << "': their PTX would go to the same place";
        return signalPassFailure();
      }
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
      return emitError(getOperation().getLoc())
             << "cannot write PTX to '" << path << "': " << message;
    file->os() << ptx;
    file->keep();
    return success();
  }
};

} // namespace
