//===- CudaDriver.cpp - The CUDA driver API, loaded at run time -----------===//

#include "tile/Runtime/CudaDriver.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <dlfcn.h>
#include <utility>
#include <vector>

using namespace tile::runtime;

namespace tile::runtime {

/// The driver entry points used, resolved with dlsym. Types are the ABI's:
/// handles are pointers, device pointers 64-bit integers, results ints.
struct DriverApi {
  using Result = int;
  void *library = nullptr;
  Result (*cuInit)(unsigned);
  Result (*cuDeviceGetCount)(int *);
  Result (*cuDeviceGet)(int *, int);
  Result (*cuDeviceGetName)(char *, int, int);
  Result (*cuDevicePrimaryCtxRetain)(void **, int);
  Result (*cuDevicePrimaryCtxRelease)(int);
  Result (*cuCtxSetCurrent)(void *);
  Result (*cuCtxSynchronize)();
  Result (*cuModuleLoadDataEx)(void **, const void *, unsigned, int *,
                               void **);
  Result (*cuModuleUnload)(void *);
  Result (*cuModuleGetFunction)(void **, void *, const char *);
  Result (*cuFuncSetAttribute)(void *, int, int);
  Result (*cuMemAlloc)(uint64_t *, size_t);
  Result (*cuMemFree)(uint64_t);
  Result (*cuMemcpyHtoD)(uint64_t, const void *, size_t);
  Result (*cuMemcpyDtoH)(void *, uint64_t, size_t);
  Result (*cuMemsetD8)(uint64_t, unsigned char, size_t);
  Result (*cuLaunchKernel)(void *, unsigned, unsigned, unsigned, unsigned,
                           unsigned, unsigned, unsigned, void *, void **,
                           void **);
  Result (*cuEventCreate)(void **, unsigned);
  Result (*cuEventRecord)(void *, void *);
  Result (*cuEventSynchronize)(void *);
  Result (*cuEventElapsedTime)(float *, void *, void *);
  Result (*cuEventDestroy)(void *);
  /// Absent before CUDA 12 (no TMA): null, and a clear error when used.
  Result (*cuTensorMapEncodeTiled)(void *, int, uint32_t, void *,
                                   const uint64_t *, const uint64_t *,
                                   const uint32_t *, const uint32_t *, int, int,
                                   int, int) = nullptr;
  Result (*cuGetErrorName)(Result, const char **);
  Result (*cuGetErrorString)(Result, const char **);

  /// Describes a driver result: "CUDA_ERROR_X (text)".
  std::string describe(Result result) const {
    const char *name = nullptr, *text = nullptr;
    cuGetErrorName(result, &name);
    cuGetErrorString(result, &text);
    return llvm::formatv("{0} ({1})", name ? name : "unknown CUDA error",
                         text ? text : "no description")
        .str();
  }
};

} // namespace tile::runtime

/// CUDA constants used here (from cuda.h).
enum : int {
  kJitErrorLogBuffer = 5,
  kJitErrorLogBufferSize = 6,
  kFuncAttributeMaxDynamicSharedBytes = 8,
};
static constexpr uint32_t kDefaultSharedLimit = 48 * 1024;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Opens libcuda.so.1 and resolves every entry point.
static llvm::Expected<std::unique_ptr<DriverApi>> loadDriver() {
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library)
    return makeError(
        llvm::Twine("no CUDA driver: libcuda.so.1 cannot be loaded (") +
        dlerror() + "); this machine has no NVIDIA GPU driver");
  auto api = std::make_unique<DriverApi>();
  api->library = library;
  llvm::Error missing = llvm::Error::success();
  auto resolve = [&](auto &entry, const char *name) {
    entry = reinterpret_cast<std::remove_reference_t<decltype(entry)>>(
        dlsym(library, name));
    if (!entry && !missing)
      missing = makeError(llvm::Twine("the CUDA driver lacks ") + name);
  };
  resolve(api->cuInit, "cuInit");
  resolve(api->cuDeviceGetCount, "cuDeviceGetCount");
  resolve(api->cuDeviceGet, "cuDeviceGet");
  resolve(api->cuDeviceGetName, "cuDeviceGetName");
  resolve(api->cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  resolve(api->cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
  resolve(api->cuCtxSetCurrent, "cuCtxSetCurrent");
  resolve(api->cuCtxSynchronize, "cuCtxSynchronize");
  resolve(api->cuModuleLoadDataEx, "cuModuleLoadDataEx");
  resolve(api->cuModuleUnload, "cuModuleUnload");
  resolve(api->cuModuleGetFunction, "cuModuleGetFunction");
  resolve(api->cuFuncSetAttribute, "cuFuncSetAttribute");
  resolve(api->cuMemAlloc, "cuMemAlloc_v2");
  resolve(api->cuMemFree, "cuMemFree_v2");
  resolve(api->cuMemcpyHtoD, "cuMemcpyHtoD_v2");
  resolve(api->cuMemcpyDtoH, "cuMemcpyDtoH_v2");
  resolve(api->cuMemsetD8, "cuMemsetD8_v2");
  resolve(api->cuLaunchKernel, "cuLaunchKernel");
  resolve(api->cuEventCreate, "cuEventCreate");
  resolve(api->cuEventRecord, "cuEventRecord");
  resolve(api->cuEventSynchronize, "cuEventSynchronize");
  // CUDA 12.8 added a _v2 with the same signature; older drivers lack it.
  if (dlsym(library, "cuEventElapsedTime_v2"))
    resolve(api->cuEventElapsedTime, "cuEventElapsedTime_v2");
  else
    resolve(api->cuEventElapsedTime, "cuEventElapsedTime");
  resolve(api->cuEventDestroy, "cuEventDestroy_v2");
  api->cuTensorMapEncodeTiled =
      reinterpret_cast<decltype(api->cuTensorMapEncodeTiled)>(
          dlsym(library, "cuTensorMapEncodeTiled"));
  resolve(api->cuGetErrorName, "cuGetErrorName");
  resolve(api->cuGetErrorString, "cuGetErrorString");
  if (missing)
    return std::move(missing);
  return std::move(api);
}

//===----------------------------------------------------------------------===//
// DeviceBuffer, Module
//===----------------------------------------------------------------------===//

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept {
  std::swap(api, other.api);
  std::swap(address, other.address);
  std::swap(bytes, other.bytes);
  return *this;
}

DeviceBuffer::~DeviceBuffer() {
  if (api && address)
    api->cuMemFree(address);
}

Module::~Module() {
  if (handle)
    api->cuModuleUnload(handle);
}

llvm::Expected<void *> Module::getFunction(llvm::StringRef name) const {
  void *function = nullptr;
  if (int result =
          api->cuModuleGetFunction(&function, handle, name.str().c_str()))
    return makeError("kernel '" + name + "' is not in the PTX: " +
                     api->describe(result));
  return function;
}

//===----------------------------------------------------------------------===//
// Device
//===----------------------------------------------------------------------===//

llvm::Error Device::check(int result, llvm::StringRef what) const {
  if (result == 0)
    return llvm::Error::success();
  return makeError(what + ": " + api->describe(result));
}

llvm::Expected<std::unique_ptr<Device>> Device::open(int ordinal) {
  llvm::Expected<std::unique_ptr<DriverApi>> api = loadDriver();
  if (!api)
    return api.takeError();
  std::unique_ptr<Device> device(new Device());
  device->api = std::move(*api);
  DriverApi &cu = *device->api;
  if (int result = cu.cuInit(0))
    return makeError("no usable GPU: cuInit failed: " + cu.describe(result));
  int count = 0;
  if (llvm::Error error =
          device->check(cu.cuDeviceGetCount(&count), "cuDeviceGetCount"))
    return std::move(error);
  if (ordinal >= count)
    return makeError(llvm::formatv("no GPU {0}: the driver sees {1} device(s)",
                                   ordinal, count));
  if (llvm::Error error = device->check(
          cu.cuDeviceGet(&device->device, ordinal), "cuDeviceGet"))
    return std::move(error);
  char name[256] = {0};
  cu.cuDeviceGetName(name, sizeof(name), device->device);
  device->name = name;
  if (llvm::Error error = device->check(
          cu.cuDevicePrimaryCtxRetain(&device->context, device->device),
          "cuDevicePrimaryCtxRetain"))
    return std::move(error);
  if (llvm::Error error = device->check(cu.cuCtxSetCurrent(device->context),
                                        "cuCtxSetCurrent"))
    return std::move(error);
  return std::move(device);
}

Device::~Device() {
  if (api && context)
    api->cuDevicePrimaryCtxRelease(device);
  // The driver library stays loaded: buffers may outlive the device object
  // during static destruction.
}

llvm::Expected<Module> Device::loadPTX(llvm::StringRef ptx) const {
  std::string text = ptx.str();
  char log[8192] = {0};
  int options[] = {kJitErrorLogBuffer, kJitErrorLogBufferSize};
  void *values[] = {log, reinterpret_cast<void *>(sizeof(log))};
  void *handle = nullptr;
  if (int result = api->cuModuleLoadDataEx(&handle, text.c_str(), 2, options,
                                           values))
    return makeError("the driver rejected the PTX: " + api->describe(result) +
                     (log[0] ? llvm::Twine("\n") + log : llvm::Twine()));
  return Module(api.get(), handle);
}

llvm::Expected<DeviceBuffer> Device::allocate(size_t bytes) const {
  uint64_t address = 0;
  if (llvm::Error error =
          check(api->cuMemAlloc(&address, std::max<size_t>(bytes, 1)),
                llvm::formatv("allocating {0} bytes", bytes).str()))
    return std::move(error);
  return DeviceBuffer(api.get(), address, bytes);
}

llvm::Error Device::copyToDevice(const DeviceBuffer &dst, const void *src,
                                 size_t bytes) const {
  return check(api->cuMemcpyHtoD(dst.getAddress(), src, bytes),
               "copying to the device");
}

llvm::Error Device::copyToHost(void *dst, const DeviceBuffer &src,
                               size_t bytes) const {
  return check(api->cuMemcpyDtoH(dst, src.getAddress(), bytes),
               "copying to the host");
}

llvm::Error Device::fill(const DeviceBuffer &dst, uint8_t byte) const {
  return check(api->cuMemsetD8(dst.getAddress(), byte, dst.getBytes()),
               "filling device memory");
}

llvm::Error Device::synchronize(llvm::StringRef what) const {
  return check(api->cuCtxSynchronize(), what);
}

llvm::Error Device::launch(void *function, llvm::StringRef kernelName,
                           const LaunchConfig &config,
                           llvm::ArrayRef<void *> parameters,
                           bool synchronize) const {
  if (config.dynamicSharedBytes > kDefaultSharedLimit)
    if (llvm::Error error =
            check(api->cuFuncSetAttribute(function,
                                          kFuncAttributeMaxDynamicSharedBytes,
                                          config.dynamicSharedBytes),
                  "kernel '" + kernelName.str() + "': raising the dynamic "
                  "shared memory limit"))
      return error;
  std::vector<void *> params(parameters.begin(), parameters.end());
  if (llvm::Error error = check(
          api->cuLaunchKernel(function, config.grid[0], config.grid[1],
                              config.grid[2], config.block[0], config.block[1],
                              config.block[2], config.dynamicSharedBytes,
                              nullptr, params.data(), nullptr),
          "launching kernel '" + kernelName.str() + "'"))
    return error;
  if (!synchronize)
    return llvm::Error::success();
  return check(api->cuCtxSynchronize(),
               "kernel '" + kernelName.str() + "' failed");
}

llvm::Expected<float> Device::timeLaunch(void *function,
                                         llvm::StringRef kernelName,
                                         const LaunchConfig &config,
                                         llvm::ArrayRef<void *> parameters) const {
  void *start = nullptr, *stop = nullptr;
  llvm::scope_exit cleanup([&] {
    if (start)
      api->cuEventDestroy(start);
    if (stop)
      api->cuEventDestroy(stop);
  });
  if (llvm::Error error = check(api->cuEventCreate(&start, 0), "cuEventCreate"))
    return std::move(error);
  if (llvm::Error error = check(api->cuEventCreate(&stop, 0), "cuEventCreate"))
    return std::move(error);
  if (llvm::Error error =
          check(api->cuEventRecord(start, nullptr), "cuEventRecord"))
    return std::move(error);
  if (llvm::Error error = launch(function, kernelName, config, parameters,
                                 /*synchronize=*/false))
    return std::move(error);
  if (llvm::Error error =
          check(api->cuEventRecord(stop, nullptr), "cuEventRecord"))
    return std::move(error);
  if (llvm::Error error = check(api->cuEventSynchronize(stop),
                                "kernel '" + kernelName.str() + "' failed"))
    return std::move(error);
  float milliseconds = 0;
  if (llvm::Error error =
          check(api->cuEventElapsedTime(&milliseconds, start, stop),
                "cuEventElapsedTime"))
    return std::move(error);
  return milliseconds;
}

//===----------------------------------------------------------------------===//
// Tensor maps
//===----------------------------------------------------------------------===//

/// CUtensorMap enumerators used here (from cuda.h).
enum : int {
  kTensorMapDataTypeUint8 = 0,
  kTensorMapDataTypeUint16 = 1,
  kTensorMapDataTypeUint32 = 2,
  kTensorMapDataTypeUint64 = 4,
  kTensorMapDataTypeTFloat32 = 11,
  kTensorMapInterleaveNone = 0,
  kTensorMapL2Promotion256B = 3,
  kTensorMapFloatOobFillNone = 0,
};

TensorMapArrays
tile::runtime::getTensorMapArrays(const TiledTensorMapSpec &spec) {
  TensorMapArrays arrays;
  arrays.dims.assign(spec.shape.rbegin(), spec.shape.rend());
  arrays.box.assign(spec.box.rbegin(), spec.box.rend());
  arrays.elementStrides.assign(spec.shape.size(), 1);
  uint64_t stride = spec.elementBytes;
  for (size_t d = 0; d + 1 < arrays.dims.size(); ++d) {
    stride *= arrays.dims[d];
    arrays.strides.push_back(stride);
  }
  // A rank-1 map: null was CUDA_ERROR_INVALID_VALUE (H200, driver
  // 580.159.04); the row's bytes, rounded up to 16, as a stride.
  if (arrays.strides.empty())
    arrays.strides.push_back(
        llvm::alignTo(stride * (arrays.dims.empty() ? 1 : arrays.dims[0]), 16));
  return arrays;
}

llvm::Expected<TensorMap>
Device::encodeTiledTensorMap(const TiledTensorMapSpec &spec) const {
  if (!api->cuTensorMapEncodeTiled)
    return makeError("the CUDA driver lacks cuTensorMapEncodeTiled (TMA "
                     "needs CUDA 12 and an sm_90 GPU)");
  size_t rank = spec.shape.size();
  if (rank < 1 || rank > 5 || spec.box.size() != rank)
    return makeError(llvm::formatv("a tensor map of rank {0} with a box of "
                                   "rank {1}: TMA maps ranks 1 to 5",
                                   rank, spec.box.size()));
  int dataType;
  switch (spec.elementBytes) {
  case 1:
    dataType = kTensorMapDataTypeUint8;
    break;
  case 2:
    dataType = kTensorMapDataTypeUint16;
    break;
  case 4:
    dataType = kTensorMapDataTypeUint32;
    break;
  case 8:
    dataType = kTensorMapDataTypeUint64;
    break;
  default:
    return makeError(
        llvm::formatv("a tensor map of {0}-byte elements", spec.elementBytes));
  }
  if (spec.roundTF32) {
    if (spec.elementBytes != 4)
      return makeError(llvm::formatv("a tensor map rounding {0}-byte elements "
                                     "to tf32: it rounds f32",
                                     spec.elementBytes));
    dataType = kTensorMapDataTypeTFloat32;
  }
  int swizzle;
  switch (spec.swizzleBytes) {
  case 0:
    swizzle = 0;
    break;
  case 32:
    swizzle = 1;
    break;
  case 64:
    swizzle = 2;
    break;
  case 128:
    swizzle = 3;
    break;
  default:
    return makeError(
        llvm::formatv("a tensor map swizzled by {0} bytes", spec.swizzleBytes));
  }
  TensorMapArrays arrays = getTensorMapArrays(spec);
  TensorMap map;
  if (int result = api->cuTensorMapEncodeTiled(
          map.words, dataType, static_cast<uint32_t>(rank),
          reinterpret_cast<void *>(spec.address), arrays.dims.data(),
          arrays.strides.data(), arrays.box.data(),
          arrays.elementStrides.data(), kTensorMapInterleaveNone, swizzle,
          kTensorMapL2Promotion256B, kTensorMapFloatOobFillNone)) {
    std::string shape, boxText;
    for (uint64_t extent : spec.shape)
      shape += (shape.empty() ? "" : "x") + std::to_string(extent);
    for (uint32_t extent : spec.box)
      boxText += (boxText.empty() ? "" : "x") + std::to_string(extent);
    return makeError(llvm::formatv(
        "cuTensorMapEncodeTiled failed for a {0} tensor of {1}-byte elements "
        "at {2:x} (box {3}, swizzle {4} bytes): {5}; TMA needs a 16-byte "
        "aligned address and rows of multiples of 16 bytes",
        shape, spec.elementBytes, spec.address, boxText, spec.swizzleBytes,
        api->describe(result)));
  }
  return map;
}
