//===- TileDialect.h - The tile dialect -------------------------*- C++ -*-===//

#ifndef TILE_DIALECT_TILE_IR_TILEDIALECT_H
#define TILE_DIALECT_TILE_IR_TILEDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Dialect.h"

namespace mlir::tile {
class LayoutQueryCache;
} // namespace mlir::tile

#include "tile/Dialect/Tile/IR/TileDialect.h.inc"

namespace mlir::tile {

//===----------------------------------------------------------------------===//
// Discardable attributes (declared in TileDialect.td)
//===----------------------------------------------------------------------===//

/// On a `tile.copy` (or the store it becomes): its writes may complete
/// asynchronously (cp.async), made visible by the wait and barrier of the
/// pipeline that marked it.
constexpr llvm::StringLiteral kAsyncAttr =
    TileDialect::AsyncAttrHelper::getNameStr();
/// On an scf.for made from a `tile.unroll`: unroll it fully.
constexpr llvm::StringLiteral kUnrollAttr =
    TileDialect::UnrollAttrHelper::getNameStr();
/// Marks a `memref.view` that is one stage of a swizzled buffer staged by a
/// rolled pipeline (tile-software-pipeline): tile-apply-swizzles rewrites
/// the view's accesses as it does those of a swizzled allocation.
constexpr llvm::StringLiteral kSwizzledViewAttr =
    TileDialect::SwizzleAttrHelper::getNameStr();
/// On a `tile.gemm` lowered to wgmma inside a rolled pipeline whose stages
/// are released one iteration late (tile-software-pipeline): the gemm
/// leaves its MMAs in flight (wgmma.wait_group 1: the previous iteration's
/// are done), and the loop is followed by a wait for all of them.
constexpr llvm::StringLiteral kWgmmaInFlightAttr =
    TileDialect::WgmmaInFlightAttrHelper::getNameStr();
/// On a `tile.gemm` lowered to wgmma whose wait tile-schedule-wgmma-waits
/// placed later, as a `tile.wgmma_wait` before the first op that needs its
/// results (or its operands back): the gemm commits its MMAs and does not
/// wait.
constexpr llvm::StringLiteral kWgmmaDeferredAttr =
    TileDialect::WgmmaDeferredAttrHelper::getNameStr();
/// On a wgmma `tile.gemm` whose shared operands only TMA writes (a
/// warp-specialized or rolled TMA pipeline's tiles,
/// tile-lower-warp-specialize and tile-software-pipeline): the TMA
/// copies and the MMAs are both the async proxy's, so no
/// fence.proxy.async precedes the MMAs.
constexpr llvm::StringLiteral kTmaOperandsAttr =
    TileDialect::TmaOperandsAttrHelper::getNameStr();
/// On a tf32 wgmma `tile.gemm` whose operand tiles TMA rounded to tf32 on
/// the copy (`tile.tma_load {round_tf32}`, made for a warp-specialized
/// consumer by tile-lower-warp-specialize): the gemm rounds none itself.
constexpr llvm::StringLiteral kTF32RoundedAttr =
    TileDialect::Tf32RoundedAttrHelper::getNameStr();
/// On a load of a swizzled tile whose row is `x + c` (a transposed tf32
/// wgmma gemm's B^T registers, rows q + k0 for every K step k0):
/// tile-apply-swizzles swizzles row `x + c mod p` and adds the whole rows
/// the rest of c moves it by (p: the pattern's period in rows), so that
/// the loads of every K step share one swizzle computation.
constexpr llvm::StringLiteral kShareSwizzleRowsAttr = "tile.share_swizzle_rows";
/// Marks, during tile-lower-fragments, a loop after which the wait for its
/// in-flight wgmma gemms was placed (one wait for two copies of a gemm).
constexpr llvm::StringLiteral kWgmmaWaitedAttr = "tile.wgmma_waited";
/// On the named barriers by which the consumer warp groups of a `pingpong`
/// `tile.warp_specialize` take turns issuing their gemms
/// (tile-lower-warp-specialize): they order only the issue, involve only
/// consumer threads (which never write shared memory there), so wgmma
/// waits need not come before them (tile-schedule-wgmma-waits).
constexpr llvm::StringLiteral kPingpongTurnAttr = "tile.pingpong_turn";
/// Marks the `scf.if` of one role of a lowered `tile.warp_specialize`: the
/// role's threads are `tile.role_threads` threads from linear index
/// `tile.role_first`. Collective ops inside are spread over them, and the
/// condition does not make the region divergent for them.
constexpr llvm::StringLiteral kRoleFirstAttr =
    TileDialect::RoleFirstAttrHelper::getNameStr();
constexpr llvm::StringLiteral kRoleThreadsAttr =
    TileDialect::RoleThreadsAttrHelper::getNameStr();
/// The per-thread register count at kernel entry (PTX .maxnreg), set when
/// `setmaxnreg` is used: ptxas ignores setmaxnreg without it.
constexpr llvm::StringLiteral kMaxRegistersAttr =
    TileDialect::MaxRegistersAttrHelper::getNameStr();
/// On a memref argument of a kernel: every dynamic size of the memref is a
/// multiple of this power of two (Triton's divisibility hint). The
/// vectorizer then knows its rows stay aligned; launchers check it.
constexpr llvm::StringLiteral kMultipleOfAttr =
    TileDialect::MultipleOfAttrHelper::getNameStr();
/// Marks a barrier the compiler placed with the pass that placed it, kept
/// down to `gpu.barrier` so that tools can say where a barrier comes from
/// (the CPU target's reports, its barrier-removal test hook).
constexpr llvm::StringLiteral kInsertedByAttr =
    TileDialect::InsertedByAttrHelper::getNameStr();
/// On the host function tile-to-gpu makes to launch a kernel.
constexpr llvm::StringLiteral kLauncherAttr =
    TileDialect::LauncherAttrHelper::getNameStr();
/// On a gpu.module: the LLVM IR pipeline its kernel asked for
/// (`tile.kernel`'s `llvm_passes`), which tile-serialize-to-ptx runs unless
/// its own `llvm-passes` option names one.
constexpr llvm::StringLiteral kLLVMPassesAttr =
    TileDialect::LlvmPassesAttrHelper::getNameStr();
/// On a gpu.module: the LLVM passes its kernel skips beside the default
/// list (`tile.kernel`'s `skip_llvm_passes`), unless tile-serialize-to-ptx's
/// `skip-llvm-passes` option is given another list.
constexpr llvm::StringLiteral kSkipLLVMPassesAttr =
    TileDialect::SkipLlvmPassesAttrHelper::getNameStr();
/// On a gpu.func (then its host function): the kernel's reference function.
constexpr llvm::StringLiteral kReferenceAttr =
    TileDialect::ReferenceAttrHelper::getNameStr();
/// On a func.func declaration: the file, relative to the declaring one, that
/// defines the function (a reference shared by several examples); tile-run
/// links it in (tile/Runner/LinkDefinitions.h).
constexpr llvm::StringLiteral kDefinedInAttr =
    TileDialect::DefinedInAttrHelper::getNameStr();
/// On a gpu.func and its launcher: the dynamic shared memory of one block,
/// in bytes.
constexpr llvm::StringLiteral kDynamicSharedMemoryAttr =
    TileDialect::DynamicSharedMemoryAttrHelper::getNameStr();
/// A gpu.module attribute (i64) set by tile-to-gpu: the alignment, in bytes,
/// that the module's dynamic shared memory must start on (the largest any
/// buffer placed there asks for); tile-serialize-to-ptx declares the symbol
/// with it.
constexpr llvm::StringLiteral kDynamicSharedAlignmentAttr =
    TileDialect::DynamicSharedMemoryAlignmentAttrHelper::getNameStr();
/// On a gpu.func made by tile-to-gpu: the tensor maps its TMA copies read,
/// one `!llvm.ptr` parameter each after the kernel's own, in order. Each is
/// a dictionary: `argument` (the index of the memref argument it maps),
/// `box` (the box extents, outermost first) and `swizzle` (0 or 128 bytes).
/// The launcher encodes each with cuTensorMapEncodeTiled over the
/// argument's whole buffer and passes the address of a device copy of it.
constexpr llvm::StringLiteral kTensorMapsAttr =
    TileDialect::TensorMapsAttrHelper::getNameStr();
/// On a module lowered for the CPU target (tile-gpu-to-host): the source
/// locations its checks report, indexed by the site numbers they pass.
constexpr llvm::StringLiteral kCPUSitesAttr =
    TileDialect::CpuSitesAttrHelper::getNameStr();
/// On a kernel function lowered for the CPU target: its shared memory per
/// block, in bytes.
constexpr llvm::StringLiteral kCPUSharedBytesAttr =
    TileDialect::CpuSharedBytesAttrHelper::getNameStr();

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_IR_TILEDIALECT_H
