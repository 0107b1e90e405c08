//===- GPUTarget.cpp - Run tile kernels on the GPU ------------------------===//

#include "tile/Runner/GPUTarget.h"

#include "tile/Dialect/Tile/IR/TileOps.h"

#include <chrono>

using namespace mlir;

namespace tile::runner {

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// 256 MB, larger than any L2 cache: written before every timed run.
static constexpr size_t kFlushBytes = size_t(256) << 20;

/// One kernel's PTX, loaded.
struct GPUTarget::LoadedKernel {
  std::string ptx;
  mlir::tile::KernelLaunchInfo launch;
  runtime::Module module;
  void *function = nullptr;
};

/// The device side of one launch: the kernel, buffers and the parameter
/// array.
struct GPUTarget::Launch {
  llvm::StringRef name;
  void *function = nullptr;
  /// One per buffer argument, in order, then one per tensor map.
  std::vector<runtime::DeviceBuffer> buffers;
  std::vector<uint64_t> storage;
  std::vector<void *> parameters;
  runtime::LaunchConfig config;
};

GPUTarget::GPUTarget() : Target(Kind::GPU) {}
GPUTarget::~GPUTarget() = default;

llvm::Expected<std::unique_ptr<GPUTarget>>
GPUTarget::compile(ModuleOp module, const mlir::tile::TileToPTXOptions &options,
                   std::unique_ptr<runtime::Device> device,
                   const llvm::StringMap<std::string> &replacementPTX) {
  auto start = std::chrono::steady_clock::now();
  FailureOr<SmallVector<mlir::tile::KernelPTX>> compiled =
      mlir::tile::compileToPTX(module, options);
  if (failed(compiled))
    return makeError("compilation failed");
  std::unique_ptr<GPUTarget> target(new GPUTarget());
  target->compileMs = std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - start)
                          .count();
  for (mlir::tile::KernelPTX &kernel : *compiled) {
    auto replacement = replacementPTX.find(kernel.kernel);
    if (replacement != replacementPTX.end())
      kernel.ptx = replacement->second;
    llvm::Expected<runtime::Module> loaded = device->loadPTX(kernel.ptx);
    if (!loaded)
      return loaded.takeError();
    llvm::Expected<void *> function = loaded->getFunction(kernel.kernel);
    if (!function)
      return function.takeError();
    auto entry = std::make_unique<LoadedKernel>(
        LoadedKernel{std::move(kernel.ptx), std::move(kernel.launch),
                     std::move(*loaded), *function});
    target->kernels[kernel.kernel] = std::move(entry);
  }
  target->deviceName = device->getName();
  target->device = std::move(device);
  return std::move(target);
}

std::optional<llvm::StringRef> GPUTarget::getPTX(llvm::StringRef name) const {
  auto it = kernels.find(name);
  if (it == kernels.end())
    return std::nullopt;
  return llvm::StringRef(it->second->ptx);
}

/// Finds the plan's kernel, allocates and fills device buffers from
/// `buffers` and lays out the kernel parameters (memref descriptors
/// expanded, then the tensor maps: docs/KernelABI.md).
llvm::Expected<GPUTarget::Launch>
GPUTarget::prepare(const KernelPlan &plan,
                   llvm::ArrayRef<HostBuffer *> buffers) const {
  llvm::StringRef name = mlir::tile::KernelOp(plan.kernel).getSymName();
  auto found = kernels.find(name);
  if (found == kernels.end())
    return makeError("no PTX was produced for kernel '" + name + "'");
  const mlir::tile::KernelLaunchInfo &info = found->second->launch;
  Launch launch;
  launch.name = name;
  launch.function = found->second->function;
  size_t slots = info.tensorMaps.size();
  for (const ArgumentPlan &argument : plan.arguments)
    slots += argument.isBuffer ? 3 + 2 * argument.shape.size() : 1;
  // The parameters point into `storage`: it must not reallocate.
  launch.storage.reserve(slots);
  std::vector<uint64_t> addresses(plan.arguments.size(), 0);
  for (auto [index, argument] : llvm::enumerate(plan.arguments)) {
    if (!argument.isBuffer) {
      launch.storage.push_back(argument.getScalarBits());
      launch.parameters.push_back(&launch.storage.back());
      continue;
    }
    const HostBuffer &host = *buffers[index];
    llvm::Expected<runtime::DeviceBuffer> buffer =
        device->allocate(host.getBytes());
    if (!buffer)
      return buffer.takeError();
    if (llvm::Error error =
            device->copyToDevice(*buffer, host.getData(), host.getBytes()))
      return std::move(error);
    uint64_t address = buffer->getAddress();
    addresses[index] = address;
    launch.buffers.push_back(std::move(*buffer));
    std::vector<uint64_t> descriptor = {address, address, 0};
    for (int64_t size : argument.shape)
      descriptor.push_back(size);
    std::vector<uint64_t> strides(argument.shape.size());
    uint64_t stride = 1;
    for (int d = static_cast<int>(argument.shape.size()) - 1; d >= 0; --d) {
      strides[d] = stride;
      stride *= argument.shape[d];
    }
    descriptor.insert(descriptor.end(), strides.begin(), strides.end());
    for (uint64_t field : descriptor) {
      launch.storage.push_back(field);
      launch.parameters.push_back(&launch.storage.back());
    }
  }
  // Tensor maps: encoded over the argument's buffer, copied to the device
  // (the kernel fences them for the tensor-map proxy), passed by address.
  for (const mlir::tile::TensorMapInfo &tensorMap : info.tensorMaps) {
    const ArgumentPlan &argument = plan.arguments[tensorMap.argument];
    runtime::TiledTensorMapSpec spec;
    spec.address = addresses[tensorMap.argument];
    spec.elementBytes = static_cast<unsigned>(getElementBytes(argument.kind));
    spec.shape.assign(argument.shape.begin(), argument.shape.end());
    for (int64_t extent : tensorMap.box)
      spec.box.push_back(static_cast<uint32_t>(extent));
    spec.swizzleBytes = static_cast<unsigned>(tensorMap.swizzle);
    spec.roundTF32 = tensorMap.roundTF32;
    llvm::Expected<runtime::TensorMap> map = device->encodeTiledTensorMap(spec);
    if (!map)
      return makeError("the tensor map of argument '" + argument.name +
                       "': " + llvm::toString(map.takeError()));
    llvm::Expected<runtime::DeviceBuffer> buffer =
        device->allocate(sizeof(map->words));
    if (!buffer)
      return buffer.takeError();
    if (llvm::Error error =
            device->copyToDevice(*buffer, map->words, sizeof(map->words)))
      return std::move(error);
    launch.storage.push_back(buffer->getAddress());
    launch.parameters.push_back(&launch.storage.back());
    launch.buffers.push_back(std::move(*buffer));
  }
  for (int d = 0; d < 3; ++d) {
    launch.config.grid[d] = static_cast<uint32_t>(plan.grid[d]);
    launch.config.block[d] = static_cast<uint32_t>(plan.block[d]);
  }
  launch.config.dynamicSharedBytes =
      static_cast<uint32_t>(info.dynamicSharedBytes);
  return std::move(launch);
}

llvm::Error GPUTarget::run(const KernelPlan &plan,
                           llvm::ArrayRef<HostBuffer *> buffers,
                           RuntimeFindings &) const {
  llvm::Expected<Launch> launch = prepare(plan, buffers);
  if (!launch)
    return launch.takeError();
  if (llvm::Error error = device->launch(launch->function, launch->name,
                                         launch->config, launch->parameters))
    return error;
  // The device buffers of the buffer arguments come first, in order.
  size_t next = 0;
  for (auto [index, argument] : llvm::enumerate(plan.arguments)) {
    if (!argument.isBuffer)
      continue;
    const runtime::DeviceBuffer &buffer = launch->buffers[next++];
    if (argument.written)
      if (llvm::Error error = device->copyToHost(
              buffers[index]->getData(), buffer, buffers[index]->getBytes()))
        return error;
  }
  return llvm::Error::success();
}

llvm::Expected<std::vector<double>>
GPUTarget::time(const KernelPlan &plan, llvm::ArrayRef<HostBuffer *> buffers,
                unsigned warmup, unsigned repetitions) const {
  llvm::Expected<Launch> launch = prepare(plan, buffers);
  if (!launch)
    return launch.takeError();
  llvm::Expected<runtime::DeviceBuffer> flush = device->allocate(kFlushBytes);
  if (!flush)
    return flush.takeError();
  void *function = launch->function;
  llvm::StringRef name = launch->name;
  for (unsigned i = 0; i < warmup; ++i)
    if (llvm::Error error =
            device->launch(function, name, launch->config, launch->parameters))
      return std::move(error);
  std::vector<double> samples;
  for (unsigned i = 0; i < repetitions; ++i) {
    if (llvm::Error error = device->fill(*flush, static_cast<uint8_t>(i)))
      return std::move(error);
    llvm::Expected<float> milliseconds =
        device->timeLaunch(function, name, launch->config, launch->parameters);
    if (!milliseconds)
      return milliseconds.takeError();
    samples.push_back(*milliseconds * 1e3);
  }
  return samples;
}

} // namespace tile::runner
