//===- CudaDriver.h - The CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// A thin layer over the CUDA driver API. libcuda.so.1 is opened with dlopen
// on first use, so programs that link this library build and start on
// machines without a GPU and report that clearly. Every call returns an
// llvm::Error whose message names what failed (and the kernel, for
// launches). No MLIR here.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_CUDADRIVER_H
#define TILE_RUNTIME_CUDADRIVER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tile::runtime {

struct DriverApi;

/// A device allocation, freed on destruction.
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  DeviceBuffer(const DriverApi *api, uint64_t address, size_t bytes)
      : api(api), address(address), bytes(bytes) {}
  DeviceBuffer(DeviceBuffer &&other) noexcept { *this = std::move(other); }
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer();

  uint64_t getAddress() const { return address; }
  size_t getBytes() const { return bytes; }

private:
  const DriverApi *api = nullptr;
  uint64_t address = 0;
  size_t bytes = 0;
};

/// A loaded PTX module.
class Module {
public:
  Module(const DriverApi *api, void *handle) : api(api), handle(handle) {}
  Module(Module &&other) noexcept
      : api(other.api), handle(std::exchange(other.handle, nullptr)) {}
  Module(const Module &) = delete;
  ~Module();

  /// Returns the kernel named `name`.
  llvm::Expected<void *> getFunction(llvm::StringRef name) const;

private:
  const DriverApi *api;
  void *handle;
};

/// Launch geometry of one kernel.
struct LaunchConfig {
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  uint32_t dynamicSharedBytes = 0;
};

/// A tiled tensor map for the Tensor Memory Accelerator: what
/// cuTensorMapEncodeTiled takes, dimensions outermost first. The tensor is
/// dense and row-major; elements outside it read as zero.
struct TiledTensorMapSpec {
  uint64_t address = 0;
  unsigned elementBytes = 0;
  std::vector<uint64_t> shape;
  std::vector<uint32_t> box;
  /// 0, 32, 64 or 128.
  unsigned swizzleBytes = 0;
  /// 4-byte f32 elements rounded to tf32 on the way to shared memory (to
  /// nearest, ties to even: data type TFLOAT32) rather than copied as bits.
  bool roundTF32 = false;
};

/// The arrays cuTensorMapEncodeTiled takes for a spec, innermost dimension
/// first: the extents, the byte strides of all but the innermost dimension,
/// the box and the element strides (all 1). `strides` is never empty: a
/// rank-1 map has no stride, but the driver rejects a null array
/// (CUDA_ERROR_INVALID_VALUE), so it gets one the driver does not read.
struct TensorMapArrays {
  std::vector<uint64_t> dims;
  std::vector<uint64_t> strides;
  std::vector<uint32_t> box;
  std::vector<uint32_t> elementStrides;
};
TensorMapArrays getTensorMapArrays(const TiledTensorMapSpec &spec);

/// An encoded tensor map (CUtensorMap): 128 bytes, 64-byte aligned.
struct alignas(64) TensorMap {
  uint64_t words[16] = {};
};

/// The primary context of one device.
class Device {
public:
  /// Loads the driver and opens device `ordinal`. Fails with a message that
  /// says whether the driver or the device is missing.
  static llvm::Expected<std::unique_ptr<Device>> open(int ordinal = 0);
  ~Device();

  std::string getName() const { return name; }

  /// JIT-compiles `ptx` for the device; the message holds ptxas' log.
  llvm::Expected<Module> loadPTX(llvm::StringRef ptx) const;
  llvm::Expected<DeviceBuffer> allocate(size_t bytes) const;
  llvm::Error copyToDevice(const DeviceBuffer &dst, const void *src,
                           size_t bytes) const;
  llvm::Error copyToHost(void *dst, const DeviceBuffer &src,
                         size_t bytes) const;
  llvm::Error fill(const DeviceBuffer &dst, uint8_t byte) const;
  /// Encodes a tensor map; the message says what the driver refused.
  llvm::Expected<TensorMap>
  encodeTiledTensorMap(const TiledTensorMapSpec &spec) const;

  /// Launches `function` with one pointer per parameter, and waits for it
  /// when `synchronize`. Errors name `kernelName`.
  llvm::Error launch(void *function, llvm::StringRef kernelName,
                     const LaunchConfig &config,
                     llvm::ArrayRef<void *> parameters,
                     bool synchronize = true) const;

  /// Times `launch` with CUDA events: returns milliseconds.
  llvm::Expected<float> timeLaunch(void *function, llvm::StringRef kernelName,
                                   const LaunchConfig &config,
                                   llvm::ArrayRef<void *> parameters) const;

  llvm::Error synchronize(llvm::StringRef what) const;

private:
  Device() = default;
  llvm::Error check(int result, llvm::StringRef what) const;

  std::unique_ptr<DriverApi> api;
  int device = 0;
  void *context = nullptr;
  std::string name;
};

} // namespace tile::runtime

#endif // TILE_RUNTIME_CUDADRIVER_H
