//===- HostLowering.h - The CPU target's lowering, step by step -*- C++ -*-===//
//
// tile-gpu-to-host (GPUToHost.cpp) turns each kernel gpu.func into a host
// function that runs one GPU thread, in three steps, each in its own file:
//
//  1. InstrumentAccesses.cpp: asynchronous copies become plain copies, then
//     every memref access gets its bounds check (and, in race-check mode, a
//     report of each workgroup-memory access), while memref types still say
//     which memory is shared;
//  2. WorkgroupMemory.cpp: the body moves into the host function, whose two
//     leading arguments are the thread's context and the block's
//     shared-memory arena; workgroup memory and mbarriers become views of
//     and offsets into the arena; memref types lose the workgroup address
//     space;
//  3. ThreadOpsToRuntime.cpp: the remaining gpu and NVVM ops become context
//     loads and runtime calls, one conversion pattern per op family, with a
//     ConversionTarget that makes every other gpu, nvgpu or NVVM op an
//     error.
//
// RuntimeCalls.cpp holds what they share: the site table and the calls into
// the CPU runtime (include/tile/Runtime/CPURuntimeABI.h).
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_GPUTOHOST_HOSTLOWERING_H
#define LIB_CONVERSION_GPUTOHOST_HOSTLOWERING_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::tile::host {

/// The descriptions of the sites that call the runtime ("file:line:col: op
/// what"), numbered: each call passes its site's number, the runtime's
/// reports print the description. One number per description, so the
/// unrolled copies of one source op are one site (a race between them is
/// reported once).
class SiteTable {
public:
  explicit SiteTable(MLIRContext *context) : context(context) {}

  /// The number of `op`'s site, `what` appended to its description.
  int32_t getId(Operation *op, StringRef what = "");
  /// The descriptions, in number order (the module's tile.cpu.sites).
  ArrayAttr getAttr() const;

private:
  MLIRContext *context;
  SmallVector<Attribute> descriptions;
  llvm::StringMap<int32_t> ids;
};

/// Calls runtime entry point `name`, declaring it in the enclosing module on
/// first use; returns its result, if any.
Value callRuntime(OpBuilder &builder, Location loc, StringRef name,
                  TypeRange results, ValueRange operands);

/// An i32 constant.
Value createI32(OpBuilder &builder, Location loc, int64_t value);

/// Context slot `slot` (tile::cpu::ContextSlot) of the host function that
/// holds the insertion point, as an index.
Value loadContext(OpBuilder &builder, Location loc, int64_t slot);

/// `type` without a GPU memory space (gpu.address_space, or NVVM's numbers
/// 1, 3, 5): on the CPU target every memory is host memory.
Type stripGPUMemorySpace(Type type);

// Step 1 (InstrumentAccesses.cpp).

/// Replaces each nvgpu.device_async_copy by loads and stores done when
/// issued, and erases the cp.async group ops.
LogicalResult lowerAsyncCopies(gpu::GPUFuncOp func);

/// Checks each memref.view against its source: one whose bytes leave the
/// source is reported and gets shift 0.
void instrumentViews(gpu::GPUFuncOp func, SiteTable &sites);

/// Guards each memref access with a bounds check and, with `raceCheck`,
/// reports each workgroup-memory access to the race detector.
void instrumentAccesses(gpu::GPUFuncOp func, SiteTable &sites, bool raceCheck);

// Step 2 (WorkgroupMemory.cpp).

/// Moves the body of `gpuFunc` into a new host function at the end of
/// `module`, with the context and arena arguments in front.
FailureOr<func::FuncOp> moveToHost(ModuleOp module, gpu::GPUFuncOp gpuFunc);

/// Lays out the block's arena (workgroup globals, dynamic shared memory,
/// mbarriers), replaces each by a view of or offset into it, lowers the
/// mbarrier ops to runtime calls, records the arena size in
/// tile.cpu.shared_bytes, and strips the workgroup address space from every
/// type in `func`.
LogicalResult placeWorkgroupMemory(gpu::GPUModuleOp gpuModule,
                                   gpu::GPUFuncOp gpuFunc, func::FuncOp func,
                                   SiteTable &sites);

// Step 3 (ThreadOpsToRuntime.cpp).

/// The patterns that lower thread-level gpu and NVVM ops to context loads
/// and runtime calls, one per op family.
void populateThreadOpsToRuntimePatterns(RewritePatternSet &patterns,
                                        SiteTable &sites);

/// Applies them to `func`: a gpu, nvgpu or NVVM op left over is an error
/// that names it.
LogicalResult lowerThreadOps(func::FuncOp func, SiteTable &sites);

} // namespace mlir::tile::host

#endif // LIB_CONVERSION_GPUTOHOST_HOSTLOWERING_H
