//===- Worker.h - One OS thread running blocks of GPU threads ---*- C++ -*-===//
//
// The CPU runtime's worker (CPURuntime.cpp has the scheduling story): the
// fibers of one block, the state of its barriers, warps and mbarriers, and
// what the block's threads found. Worker.cpp runs blocks and collects
// reports; Synchronization.cpp implements barriers, shuffles and mbarriers;
// CPURuntime.cpp launches workers and holds the entry points compiled
// kernels call.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_RUNTIME_CPU_WORKER_H
#define LIB_RUNTIME_CPU_WORKER_H

#include "tile/Runtime/CPURuntime.h"

#include "Fiber.h"
#include "RaceDetector.h"

#include <array>
#include <atomic>
#include <cstdlib>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace tile::cpu::detail {

/// What a suspended thread waits for, for deadlock reports.
enum class WaitKind : uint8_t { None, Barrier, NamedBarrier, Shuffle, MBarrier };

/// PTX allows mbarrier counts from 1 to 2^20 - 1.
constexpr int32_t kMaxMBarrierCount = (1 << 20) - 1;

/// The state of an mbarrier lives in its own 8 bytes of shared memory, as on
/// the GPU: the pending count in the low word, the expected count above it,
/// the phase parity in the top bit. A zero word is an uninitialized mbarrier.
constexpr uint64_t kPhaseBit = uint64_t(1) << 63;
constexpr uint64_t kCountMask = 0x7fffffff;

inline uint64_t getPending(uint64_t state) { return state & kCountMask; }
inline uint64_t getExpected(uint64_t state) {
  return (state >> 32) & kCountMask;
}
inline bool getPhase(uint64_t state) { return state & kPhaseBit; }

/// The threads listed in one deadlock report.
constexpr size_t kDeadlockThreadsListed = 8;

class Worker;

/// One GPU thread of the block being run.
/// A shared read made by an MMA of a wgmma group (race-check mode).
struct DeferredRead {
  uint64_t offset;
  uint64_t bytes;
  int32_t site;
  bool operator<(const DeferredRead &other) const {
    return std::tie(offset, bytes, site) <
           std::tie(other.offset, other.bytes, other.site);
  }
  bool operator==(const DeferredRead &other) const {
    return offset == other.offset && bytes == other.bytes &&
           site == other.site;
  }
};

struct ThreadState {
  Fiber fiber;
  Worker *worker = nullptr;
  int64_t context[kContextSlots] = {};
  uint32_t linear = 0;
  uint32_t warp = 0;
  uint32_t lane = 0;
  WaitKind waitKind = WaitKind::None;
  int32_t waitSite = -1;
  bool finished = false;
  bool shuffleValid = false;
  /// Between wgmma.fence and wgmma.commit_group: shared reads are the
  /// open group's too (race-check mode).
  bool inWgmmaGroup = false;
  std::vector<DeferredRead> openWgmmaGroup;
  /// Committed groups not yet retired, oldest first.
  std::vector<std::vector<DeferredRead>> wgmmaGroups;
  /// Between an mbarrier.arrive.expect_tx and the completion of the bytes
  /// it expects (race-check mode): the thread issues TMA copies onto that
  /// mbarrier, and their writes are the race detector's agent `asyncAgent`
  /// (RaceDetector::beginAsyncCopy), else -1.
  int64_t asyncAgent = -1;
  uint32_t asyncBarrier = 0;
};

/// The shuffle rendezvous of one warp. Deposits alternate between two buffers
/// by generation parity: a lane can deposit for generation g + 1 only after
/// all lanes arrived at g, and each lane reads g - 1's buffer as soon as it
/// sees g - 1 complete, so nobody still reads the buffer g + 1 overwrites.
struct WarpState {
  uint32_t generation = 0;
  uint32_t arrived = 0;
  uint32_t live = 0;
  uint32_t size = 0;
  /// Lanes that deposited in each buffer; lanes that exited are missing.
  uint32_t deposited[2] = {0, 0};
  uint64_t values[2][32] = {};
};

/// Keeps the kMaxReports smallest distinct reports: all that the sorted,
/// truncated final list can use, however many blocks report.
class ReportSet {
public:
  void insert(std::string report) {
    if (reports.size() >= kMaxReports && report >= *reports.rbegin())
      return;
    reports.insert(std::move(report));
    if (reports.size() > kMaxReports)
      reports.erase(std::prev(reports.end()));
  }
  const std::set<std::string> &get() const { return reports; }

private:
  std::set<std::string> reports;
};

/// Keeps `report` for `key` unless one of a lower block is already there.
template <typename Key>
inline void keepFirst(std::map<Key, FirstReport> &reports, const Key &key,
                      const FirstReport &report) {
  auto [it, inserted] = reports.emplace(key, report);
  if (!inserted && report.block < it->second.block)
    it->second = report;
}

struct FreeDeleter {
  void operator()(char *memory) const { std::free(memory); }
};

/// Runs blocks on one OS thread, reusing its fibers, arena and shadow.
class Worker {
public:
  Worker(const LaunchSpec &spec, int64_t blockThreads);

  /// Takes blocks from `nextBlock` until all `blockCount` are taken.
  void run(std::atomic<int64_t> &nextBlock, int64_t blockCount);

  bool isRunningThread() const { return current != nullptr; }

  void barrier(int32_t site);
  void namedBarrier(int32_t id, int32_t threads, bool wait, int32_t site);
  uint64_t shuffle(uint64_t value, int32_t offset, int32_t width, int32_t mode,
                   int32_t site);
  bool lastShuffleValid() const { return current->shuffleValid; }
  void mbarrierInit(uint32_t offset, int32_t count);
  void mbarrierArrive(uint32_t offset, const char *operation);
  void mbarrierWaitParity(uint32_t offset, bool parity, int32_t site);
  void cpAsyncMBarrierArrive(uint32_t offset, bool noinc);
  void mbarrierExpectTx(uint32_t offset, int32_t bytes);
  void mbarrierCompleteTx(uint32_t offset, int32_t bytes, int32_t site);
  void wgmmaFence();
  void wgmmaCommitGroup();
  void wgmmaWaitGroup(int32_t pending);
  void sharedAccess(uint64_t address, uint64_t bytes, int32_t site,
                    int32_t kind);
  /// Race-check mode: an mbarrier operation touches the barrier's 8 bytes.
  void mbarrierAccess(uint32_t offset, int32_t site, AccessKind kind);
  void outOfBounds(int32_t site, int32_t rank, const int64_t *indices);

  /// Results, merged by launch.
  ReportSet reports;
  uint64_t deadlocks = 0;
  /// Set once this worker's threads made kMaxOutOfBoundsAccesses
  /// out-of-bounds accesses: the block is abandoned, no more are taken.
  bool stopped = false;
  std::map<int32_t, FirstReport> outOfBoundsSites;
  std::unique_ptr<RaceDetector> raceDetector;

private:
  bool initialize();
  void runBlock(int64_t linearBlock);
  void reportDeadlock(const std::vector<ThreadState *> &waiting);
  void yield() { Fiber::switchTo(current->fiber, scheduler); }
  void releaseBarrier();
  void completeShuffle(WarpState &warp);
  void finishThread(ThreadState &thread);
  uint64_t *getMBarrier(uint32_t offset, const char *operation, int32_t site);
  /// Completes the phase of the mbarrier `state` at `offset` when its
  /// arrivals are in and no transaction bytes are outstanding; returns the
  /// parity of the phase it completed, or -1.
  int completePhaseIfDone(uint64_t *state, uint32_t offset);
  /// Checks the reads of `thread`'s oldest wgmma groups again, until at
  /// most `pending` are in flight.
  void retireWgmmaGroups(ThreadState &thread, size_t pending);
  std::string describeCurrentThread() const;
  static void threadMain(void *argument);

  uint64_t outOfBoundsAccesses = 0;
  const LaunchSpec &spec;
  const int64_t blockThreads;
  /// The worker's native context, resumed whenever a fiber yields.
  Fiber scheduler;
  std::unique_ptr<ThreadState[]> threads;
  std::vector<WarpState> warps;
  std::vector<ThreadState *> runnable;
  std::unique_ptr<char, FreeDeleter> arena;
  ThreadState *current = nullptr;

  int64_t linearBlock = 0;
  std::array<int64_t, 3> blockId = {0, 0, 0};
  uint64_t progress = 0;
  /// Outstanding transaction bytes of each mbarrier's current phase, by
  /// arena offset (PTX keeps them in the mbarrier object; here they need
  /// not fit in its 8 bytes). Cleared by mbarrier.init.
  std::unordered_map<uint32_t, int64_t> transactionBytes;
  uint32_t barrierGeneration = 0;
  uint32_t barrierArrived = 0;
  /// The named barriers (bar.sync / bar.arrive with an id and a count).
  struct NamedBarrierState {
    uint32_t generation = 0;
    uint32_t arrived = 0;
    /// The count of the phase under way and the sites of its first and
    /// last arrivals.
    uint32_t threads = 0;
    int32_t firstSite = 0;
    int32_t lastSite = 0;
  };
  /// Reports the named barriers a block leaves part arrived: arrivals that
  /// no bar.sync consumed, which on the GPU would release a later phase
  /// early.
  void reportNamedBarriersLeftArrived();
  std::array<NamedBarrierState, 16> namedBarriers;
  uint32_t liveThreads = 0;
};

/// The worker of the calling OS thread, for the extern "C" entry points.
extern thread_local Worker *currentWorker;

} // namespace tile::cpu::detail

#endif // LIB_RUNTIME_CPU_WORKER_H
