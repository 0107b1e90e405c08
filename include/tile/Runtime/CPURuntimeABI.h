//===- CPURuntimeABI.h - How compiled kernels call the CPU runtime -*- C++
//-*-===//
//
// The contract between the code tile-gpu-to-host emits (lib/Conversion/
// GPUToHost) and the CPU runtime that runs it (lib/Runtime/CPU): the layout of
// a thread's context, the numbers the entry points take, and the entry
// points' symbol names. Both sides include this header, so a number is
// written once. No LLVM or MLIR here.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_CPURUNTIMEABI_H
#define TILE_RUNTIME_CPURUNTIMEABI_H

#include <cstdint>

namespace tile::cpu {

/// Indices into the per-thread context array the kernel function receives:
/// thread index, block index, block extents, grid extents, x, y, z each.
enum ContextSlot : int {
  kThreadIdX = 0,
  kThreadIdY,
  kThreadIdZ,
  kBlockIdX,
  kBlockIdY,
  kBlockIdZ,
  kBlockDimX,
  kBlockDimY,
  kBlockDimZ,
  kGridDimX,
  kGridDimY,
  kGridDimZ,
  kContextSlots = 16
};

/// The `mode` of tile_rt_shuffle: gpu::ShuffleMode's values.
enum ShuffleMode : int32_t {
  kShuffleXor = 0,
  kShuffleUp = 1,
  kShuffleDown = 2,
  kShuffleIdx = 3
};

/// The `kind` of tile_rt_shared_access.
enum class AccessKind : uint8_t { Read = 0, Write = 1, Atomic = 2 };

/// The indices tile_rt_out_of_bounds takes (i0..i3); higher ranks report
/// their first four.
constexpr unsigned kOutOfBoundsIndices = 4;

/// Symbol names of the entry points (declared in CPURuntime.h).
namespace entry {
constexpr const char kBarrier[] = "tile_rt_barrier";
constexpr const char kNamedBarrier[] = "tile_rt_named_barrier";
constexpr const char kShuffle[] = "tile_rt_shuffle";
constexpr const char kShuffleValid[] = "tile_rt_shuffle_valid";
constexpr const char kMBarrierInit[] = "tile_rt_mbarrier_init";
constexpr const char kMBarrierArrive[] = "tile_rt_mbarrier_arrive";
constexpr const char kMBarrierWaitParity[] = "tile_rt_mbarrier_wait_parity";
constexpr const char kCpAsyncMBarrierArrive[] =
    "tile_rt_cp_async_mbarrier_arrive";
constexpr const char kMBarrierArriveExpectTx[] =
    "tile_rt_mbarrier_arrive_expect_tx";
constexpr const char kMBarrierCompleteTx[] = "tile_rt_mbarrier_complete_tx";
constexpr const char kWgmmaFence[] = "tile_rt_wgmma_fence";
constexpr const char kWgmmaCommitGroup[] = "tile_rt_wgmma_commit_group";
constexpr const char kWgmmaWaitGroup[] = "tile_rt_wgmma_wait_group";
constexpr const char kSharedAccess[] = "tile_rt_shared_access";
constexpr const char kOutOfBounds[] = "tile_rt_out_of_bounds";
/// LLVM's name for f32 -> bf16 truncation, which the runtime provides as
/// tile_rt_truncsfbf2 (libgcc lacks it).
constexpr const char kTruncSFBF2[] = "__truncsfbf2";
} // namespace entry

} // namespace tile::cpu

#endif // TILE_RUNTIME_CPURUNTIMEABI_H
