//===- CPURuntime.h - GPU kernels on the CPU, thread by thread --*- C++ -*-===//
//
// Executes a GPU kernel compiled into a host function that runs ONE GPU
// thread. Blocks are spread over OS worker threads; inside a block every GPU
// thread is a fiber on its worker, so the block's threads share one shared
// memory arena and interleave only inside the runtime's synchronization calls
// (barriers, warp shuffles, mbarrier waits). The result is exact thread-level
// semantics rather than speed: a kernel that needs its barriers behaves as on
// the GPU, a missing barrier can be reported as a shared-memory race, and a
// block whose threads can never all proceed is reported as a deadlock instead
// of hanging.
//
// The compiled kernel calls the `tile_rt_*` entry points declared at the end;
// they act on the calling GPU thread. No LLVM or MLIR here.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_CPURUNTIME_H
#define TILE_RUNTIME_CPURUNTIME_H

#include "tile/Runtime/CPURuntimeABI.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tile::cpu {

/// The most threads a block may have, as on every CUDA GPU since sm_20.
constexpr int64_t kMaxBlockThreads = 1024;

/// The most GPU threads one CPU launch runs (blocks times block threads,
/// after LaunchSpec::maxBlocks): about a minute of empty threads. Past it
/// the launch is refused instead of running for hours; `--blocks N` runs
/// the first N blocks of a larger grid.
constexpr int64_t kMaxLaunchThreads = int64_t(1) << 28;

/// Out-of-bounds accesses (each reported once per site, then skipped) after
/// which a worker stops its launch: a loop that keeps missing would
/// otherwise run for hours on the CPU (found by scripts/fuzz.py).
constexpr uint64_t kMaxOutOfBoundsAccesses = uint64_t(1) << 20;

/// The most report strings a LaunchResult keeps (its counts stay exact).
constexpr size_t kMaxReports = 100;

/// Runs one GPU thread: `context` points at kContextSlots int64 values (the
/// ContextSlot slots of CPURuntimeABI.h, the rest 0), `arena` at the block's
/// shared memory (LaunchSpec::sharedBytes, 128-byte aligned, zero-filled at
/// block start).
using ThreadFunction = void (*)(void *userData, int64_t *context, void *arena);

struct LaunchSpec {
  std::array<int64_t, 3> grid = {1, 1, 1};
  std::array<int64_t, 3> block = {1, 1, 1};
  int64_t sharedBytes = 0;
  ThreadFunction function = nullptr;
  void *userData = nullptr;
  /// Record shared-memory accesses (tile_rt_shared_access) and report races.
  bool raceCheck = false;
  /// OS threads; 0 = std::thread::hardware_concurrency().
  unsigned workers = 0;
  /// Run only the first `maxBlocks` blocks (in linear order); 0 runs all.
  /// Blocks are independent, so a race check of a few is meaningful.
  int64_t maxBlocks = 0;
  /// Description of each site id (e.g. "file.mlir:12:5: memref.store to
  /// memref<32xf32, 3>"), used in reports.
  std::vector<std::string> sites;
};

struct LaunchResult {
  /// Human-readable reports, deduplicated, sorted, at most kMaxReports kept
  /// (counts are exact).
  std::vector<std::string> reports;
  /// Distinct racing (siteA, siteB, kind) pairs found.
  uint64_t races = 0;
  /// Distinct out-of-bounds sites hit.
  uint64_t outOfBounds = 0;
  /// Blocks abandoned because no thread could proceed.
  uint64_t deadlocks = 0;
  bool ok() const { return reports.empty(); }
};

/// Runs every block of `spec` and returns what went wrong, if anything. An
/// invalid spec (no function, an empty or oversized block) yields a report
/// and runs nothing.
LaunchResult launch(const LaunchSpec &spec);

} // namespace tile::cpu

// The entry points called by compiled kernel code (their symbol names are in
// CPURuntimeABI.h). Each acts on the calling GPU thread; `site` indexes
// LaunchSpec::sites (-1 = unknown). Flags are int32_t (0 or 1), not bool: how
// bool arguments are extended differs between compilers.
extern "C" {
/// Block-wide barrier (bar.sync 0): waits until every thread of the block
/// that has not returned has arrived.
void tile_rt_barrier(int32_t site);

/// Named barrier `id` (0 to 15) counting `threads` arrivals (bar.sync id,
/// threads when `wait`, else bar.arrive id, threads): the caller arrives
/// and, when waiting, blocks until the count is reached. It orders no
/// memory for the race check (the compiler uses it only to order issue:
/// a pingpong consumer's turns).
void tile_rt_named_barrier(int32_t id, int32_t threads, int32_t wait,
                           int32_t site);

/// Warp shuffle with PTX shfl.sync semantics as gpu.shuffle lowers to it:
/// `mode` is a ShuffleMode (gpu::ShuffleMode's numbers). All live lanes of
/// the caller's warp exchange values.
uint64_t tile_rt_shuffle(uint64_t value, int32_t offset, int32_t width,
                         int32_t mode, int32_t site);
/// Whether the calling thread's most recent shuffle read another lane.
int32_t tile_rt_shuffle_valid(void);

/// PTX mbarrier operations on the 8-byte object at `arena + arenaOffset`.
/// In race-check mode, init counts as a write of the barrier's 8 bytes and
/// the other operations as atomic accesses to them: a thread that uses a
/// barrier with nothing ordering it after the init races with it.
void tile_rt_mbarrier_init(uint32_t arenaOffset, int32_t count, int32_t site);
void tile_rt_mbarrier_arrive(uint32_t arenaOffset, int32_t site);
/// Waits until the phase with parity `parity` has completed.
void tile_rt_mbarrier_wait_parity(uint32_t arenaOffset, int32_t parity,
                                  int32_t site);
/// cp.async.mbarrier.arrive[.noinc]: copies are already complete.
void tile_rt_cp_async_mbarrier_arrive(uint32_t arenaOffset, int32_t noinc,
                                      int32_t site);
/// mbarrier.arrive.expect_tx: the current phase also waits for `bytes`
/// more bytes of transactions, then the caller arrives. A phase completes
/// once its arrivals are in and its transaction count is back to zero.
void tile_rt_mbarrier_arrive_expect_tx(uint32_t arenaOffset, int32_t bytes,
                                       int32_t site);
/// mbarrier.complete_tx: `bytes` bytes of the current phase's transactions
/// have landed (a TMA copy, which the CPU target performs when issued). It
/// releases the caller's writes (the copy's) to the threads that see the
/// phase complete. More bytes than expected is reported.
void tile_rt_mbarrier_complete_tx(uint32_t arenaOffset, int32_t bytes,
                                  int32_t site);

/// Asynchronous warp-group MMAs (wgmma), as far as the race check goes: the
/// CPU target computes an MMA when it is issued, but the GPU reads its
/// shared-memory operands until a wgmma.wait_group retires it. In race-check
/// mode the caller's shared reads between wgmma.fence (`tile_rt_wgmma_fence`)
/// and wgmma.commit_group (`tile_rt_wgmma_commit_group`) form a group; they
/// are checked when made and checked again when `tile_rt_wgmma_wait_group`
/// leaves at most `pending` groups in flight (or the thread ends), so that a
/// write that the retiring wait does not precede (a stage released before
/// its MMAs retired and refilled) is reported.
void tile_rt_wgmma_fence(void);
void tile_rt_wgmma_commit_group(void);
void tile_rt_wgmma_wait_group(int32_t pending);

/// Race check mode only: the caller accesses `bytes` bytes at `address`;
/// `kind` is an AccessKind (0 read, 1 write, 2 atomic read-modify-write). Reads
/// and atomics are reported before the access, writes after it (so that two
/// unordered writes of the same value can be told benign).
void tile_rt_shared_access(uint64_t address, uint64_t bytes, int32_t site,
                           int32_t kind);

/// Called instead of an access whose index is outside its memref; `rank` of
/// the kOutOfBoundsIndices indices i0..i3 are meaningful.
void tile_rt_out_of_bounds(int32_t site, int32_t rank, int64_t i0, int64_t i1,
                           int64_t i2, int64_t i3);

/// compiler-rt's `__truncsfbf2` (f32 to bf16, round to nearest even), which
/// libgcc lacks: LLVM calls it where x86 promotes bf16 values (a bf16 phi,
/// e.g. a bounds-checked load of a bf16 tile). The x86-64 ABI returns bf16
/// in the low 16 bits of xmm0, so the result is a float carrying them.
float tile_rt_truncsfbf2(float value);
}

#endif // TILE_RUNTIME_CPURUNTIME_H
