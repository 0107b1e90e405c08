//===- CPURuntime.cpp - Runs GPU kernels on the CPU, thread by thread -----===//
//
// Each worker (an OS thread) takes blocks one at a time from a shared
// counter and runs every GPU thread of the block as a fiber. The scheduler is
// round-robin over the unfinished fibers; a fiber runs until it blocks in a
// runtime call or returns. Blocking is `while (!condition) yield()`, so a
// resumed fiber re-checks its own condition and the scheduler needs no wait
// queues: a switch costs O(1) and no syscall.
//
// Every arrival, successful wait and thread exit bumps a progress counter. A
// full round over the unfinished fibers that leaves it unchanged means every
// fiber re-checked its condition against the same state and found it false:
// the block is deadlocked, reported and abandoned.
//
//===----------------------------------------------------------------------===//

#include "tile/Runtime/CPURuntime.h"

#include "Fiber.h"
#include "RaceDetector.h"

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <thread>

using namespace tile::cpu;

namespace {

/// What a suspended thread waits for, for deadlock reports.
enum class WaitKind : uint8_t { None, Barrier, Shuffle, MBarrier };

/// PTX allows mbarrier counts from 1 to 2^20 - 1.
constexpr int32_t kMaxMBarrierCount = (1 << 20) - 1;

/// The state of an mbarrier lives in its own 8 bytes of shared memory, as on
/// the GPU: the pending count in the low word, the expected count above it,
/// the phase parity in the top bit. A zero word is an uninitialized mbarrier.
constexpr uint64_t kPhaseBit = uint64_t(1) << 63;
constexpr uint64_t kCountMask = 0x7fffffff;

uint64_t getPending(uint64_t state) { return state & kCountMask; }
uint64_t getExpected(uint64_t state) { return (state >> 32) & kCountMask; }
bool getPhase(uint64_t state) { return state & kPhaseBit; }

/// The threads listed in one deadlock report.
constexpr size_t kDeadlockThreadsListed = 8;

class Worker;

/// One GPU thread of the block being run.
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
void keepFirst(std::map<Key, FirstReport> &reports, const Key &key,
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
  uint64_t shuffle(uint64_t value, int32_t offset, int32_t width, int32_t mode,
                   int32_t site);
  bool lastShuffleValid() const { return current->shuffleValid; }
  void mbarrierInit(uint32_t offset, int32_t count);
  void mbarrierArrive(uint32_t offset, const char *operation);
  void mbarrierWaitParity(uint32_t offset, bool parity, int32_t site);
  void cpAsyncMBarrierArrive(uint32_t offset, bool noinc);
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
  uint32_t barrierGeneration = 0;
  uint32_t barrierArrived = 0;
  uint32_t liveThreads = 0;
};

/// The worker of the calling OS thread, for the extern "C" entry points.
thread_local Worker *currentWorker = nullptr;

Worker::Worker(const LaunchSpec &spec, int64_t blockThreads)
    : spec(spec), blockThreads(blockThreads) {}

bool Worker::initialize() {
  // Allocated on the worker's own thread, so first-touch places the memory
  // near it.
  size_t arenaBytes =
      (std::max<size_t>(static_cast<size_t>(spec.sharedBytes), 1) + 127) &
      ~size_t(127);
  arena.reset(static_cast<char *>(std::aligned_alloc(128, arenaBytes)));
  threads.reset(new ThreadState[blockThreads]);
  if (!arena) {
    reports.insert("cannot allocate " + std::to_string(arenaBytes) +
                   " bytes of shared memory for a CPU worker");
    return false;
  }
  runnable.reserve(blockThreads);
  warps.resize((blockThreads + 31) / 32);
  for (WarpState &warp : warps)
    warp.size = 32;
  if (blockThreads % 32)
    warps.back().size = blockThreads % 32;

  for (int64_t linear = 0; linear < blockThreads; ++linear) {
    ThreadState &thread = threads[linear];
    thread.worker = this;
    thread.linear = static_cast<uint32_t>(linear);
    thread.warp = thread.linear / 32;
    thread.lane = thread.linear % 32;
    std::array<int64_t, 3> threadId = delinearize(linear, spec.block);
    for (int dim = 0; dim < 3; ++dim) {
      thread.context[kThreadIdX + dim] = threadId[dim];
      thread.context[kBlockDimX + dim] = spec.block[dim];
      thread.context[kGridDimX + dim] = spec.grid[dim];
    }
    // Maps every stack now, so a block never starts without its fibers.
    if (!thread.fiber.prepare(&Worker::threadMain, &thread)) {
      reports.insert("cannot map the stacks of " +
                     std::to_string(blockThreads) +
                     " GPU threads for a CPU worker");
      return false;
    }
  }

  if (spec.raceCheck) {
    raceDetector = std::make_unique<RaceDetector>();
    raceDetector->configure(static_cast<uint64_t>(spec.sharedBytes), spec.block,
                            &spec.sites);
  }
  return true;
}

void Worker::run(std::atomic<int64_t> &nextBlock, int64_t blockCount) {
  Worker *previous = currentWorker;
  currentWorker = this;
  if (initialize()) {
    for (int64_t block = nextBlock.fetch_add(1); block < blockCount;
         block = nextBlock.fetch_add(1)) {
      runBlock(block);
      if (stopped)
        break;
    }
  }
  currentWorker = previous;
}

void Worker::runBlock(int64_t linearBlock) {
  this->linearBlock = linearBlock;
  blockId = {linearBlock % spec.grid[0],
             (linearBlock / spec.grid[0]) % spec.grid[1],
             linearBlock / (spec.grid[0] * spec.grid[1])};
  std::memset(arena.get(), 0, static_cast<size_t>(spec.sharedBytes));

  runnable.clear();
  for (int64_t linear = 0; linear < blockThreads; ++linear) {
    ThreadState &thread = threads[linear];
    for (int dim = 0; dim < 3; ++dim)
      thread.context[kBlockIdX + dim] = blockId[dim];
    thread.waitKind = WaitKind::None;
    thread.finished = false;
    thread.shuffleValid = false;
    // The stack is already mapped: this only rewrites the initial frame.
    thread.fiber.prepare(&Worker::threadMain, &thread);
    runnable.push_back(&thread);
  }
  for (WarpState &warp : warps) {
    warp.generation = 0;
    warp.arrived = 0;
    warp.live = warp.size;
  }
  barrierArrived = 0;
  liveThreads = static_cast<uint32_t>(blockThreads);
  if (raceDetector)
    raceDetector->beginBlock(linearBlock, blockId);

  while (!runnable.empty()) {
    uint64_t progressBefore = progress;
    size_t kept = 0;
    for (size_t index = 0, end = runnable.size(); index < end; ++index) {
      ThreadState *thread = runnable[index];
      current = thread;
      Fiber::switchTo(scheduler, thread->fiber);
      if (stopped) {
        // The threads of the block are abandoned, as on a deadlock.
        current = nullptr;
        return;
      }
      if (!thread->finished)
        runnable[kept++] = thread;
    }
    runnable.resize(kept);
    if (kept && progress == progressBefore) {
      reportDeadlock(runnable);
      break;
    }
  }
  current = nullptr;
}

void Worker::threadMain(void *argument) {
  ThreadState &thread = *static_cast<ThreadState *>(argument);
  Worker &worker = *thread.worker;
  worker.spec.function(worker.spec.userData, thread.context,
                       worker.arena.get());
  worker.finishThread(thread);
  Fiber::exitTo(thread.fiber, worker.scheduler);
}

void Worker::finishThread(ThreadState &thread) {
  thread.finished = true;
  ++progress;
  // Exited threads count as arrived at barriers (sm_70+) and are absent from
  // shuffles: waiters may be complete now.
  --liveThreads;
  if (barrierArrived > 0 && barrierArrived == liveThreads)
    releaseBarrier();
  WarpState &warp = warps[thread.warp];
  --warp.live;
  if (warp.arrived > 0 && warp.arrived == warp.live)
    completeShuffle(warp);
}

void Worker::reportDeadlock(const std::vector<ThreadState *> &waiting) {
  ++deadlocks;
  std::string text =
      "deadlock in block " + formatIndex(blockId) + ": " +
      std::to_string(waiting.size()) +
      (waiting.size() == 1 ? " thread waits: " : " threads wait: ");
  size_t listed = std::min(waiting.size(), kDeadlockThreadsListed);
  for (size_t index = 0; index < listed; ++index) {
    const ThreadState &thread = *waiting[index];
    if (index)
      text += ", ";
    text += "thread " + formatIndex(delinearize(thread.linear, spec.block)) +
            " at " + describeSite(spec.sites, thread.waitSite);
    switch (thread.waitKind) {
    case WaitKind::Barrier:
      text += " (barrier)";
      break;
    case WaitKind::Shuffle:
      text += " (shuffle)";
      break;
    case WaitKind::MBarrier:
      text += " (mbarrier wait)";
      break;
    case WaitKind::None:
      break;
    }
  }
  if (waiting.size() > listed)
    text += ", and " + std::to_string(waiting.size() - listed) + " more";
  reports.insert(std::move(text));
}

std::string Worker::describeCurrentThread() const {
  return "thread " + formatIndex(delinearize(current->linear, spec.block)) +
         " of block " + formatIndex(blockId);
}

void Worker::releaseBarrier() {
  barrierArrived = 0;
  ++barrierGeneration;
  if (raceDetector)
    raceDetector->onBarrier();
}

void Worker::barrier(int32_t site) {
  // Threads at different barrier sites sync with each other: the hardware
  // counts arrivals per barrier id, not per instruction.
  uint32_t generation = barrierGeneration;
  ++progress;
  if (++barrierArrived == liveThreads) {
    releaseBarrier();
    return;
  }
  ThreadState &thread = *current;
  thread.waitKind = WaitKind::Barrier;
  thread.waitSite = site;
  do
    yield();
  while (barrierGeneration == generation);
  thread.waitKind = WaitKind::None;
}

void Worker::completeShuffle(WarpState &warp) {
  warp.arrived = 0;
  ++warp.generation;
}

uint64_t Worker::shuffle(uint64_t value, int32_t offset, int32_t width,
                         int32_t mode, int32_t site) {
  ThreadState &thread = *current;
  WarpState &warp = warps[thread.warp];
  uint32_t generation = warp.generation;
  unsigned buffer = generation & 1;
  if (warp.arrived == 0)
    warp.deposited[buffer] = 0;
  warp.values[buffer][thread.lane] = value;
  warp.deposited[buffer] |= uint32_t(1) << thread.lane;
  ++progress;
  if (++warp.arrived == warp.live) {
    completeShuffle(warp);
  } else {
    thread.waitKind = WaitKind::Shuffle;
    thread.waitSite = site;
    do
      yield();
    while (warp.generation == generation);
    thread.waitKind = WaitKind::None;
  }

  // PTX shfl.sync with segmask 0: b and c contribute their low 5 bits, and
  // gpu.shuffle's lowering passes c = 32 - width for up, width - 1 otherwise.
  int32_t lane = static_cast<int32_t>(thread.lane);
  int32_t delta = offset & 31;
  int32_t maxLane = (mode == kShuffleUp ? 32 - width : width - 1) & 31;
  int32_t source = lane;
  bool valid = false;
  switch (mode) {
  case kShuffleXor:
    source = lane ^ delta;
    valid = source <= maxLane;
    break;
  case kShuffleUp:
    source = lane - delta;
    valid = source >= maxLane;
    break;
  case kShuffleDown:
    source = lane + delta;
    valid = source <= maxLane;
    break;
  case kShuffleIdx:
    source = delta;
    valid = source <= maxLane;
    break;
  default:
    reports.insert("shuffle with unknown mode " + std::to_string(mode) +
                   " at " + describeSite(spec.sites, site));
    break;
  }
  // A source lane beyond a partial last warp, or one that has exited, has
  // nothing to give: the result is invalid, as for an out-of-range lane.
  valid = valid && source >= 0 && source < 32 &&
          (warp.deposited[buffer] >> source & 1);
  thread.shuffleValid = valid;
  return valid ? warp.values[buffer][source] : value;
}

uint64_t *Worker::getMBarrier(uint32_t offset, const char *operation,
                              int32_t site) {
  uint64_t sharedBytes = static_cast<uint64_t>(spec.sharedBytes);
  const char *problem = nullptr;
  if (static_cast<uint64_t>(offset) + 8 > sharedBytes)
    problem = "outside the block's shared memory";
  else if (offset % 8)
    problem = "not 8-byte aligned";
  if (!problem)
    return reinterpret_cast<uint64_t *>(arena.get() + offset);
  char text[64];
  std::snprintf(text, sizeof(text), "0x%" PRIx32, offset);
  reports.insert(std::string(operation) + " at " +
                 describeSite(spec.sites, site) + ": the mbarrier at offset " +
                 text + " is " + problem + " (" + std::to_string(sharedBytes) +
                 " bytes)");
  return nullptr;
}

void Worker::mbarrierInit(uint32_t offset, int32_t count) {
  uint64_t *state = getMBarrier(offset, "mbarrier.init", -1);
  if (!state)
    return;
  if (count < 1 || count > kMaxMBarrierCount) {
    reports.insert("mbarrier.init by " + describeCurrentThread() + ": count " +
                   std::to_string(count) + " is outside PTX's range 1 to " +
                   std::to_string(kMaxMBarrierCount));
    count = std::clamp(count, 1, kMaxMBarrierCount);
  }
  *state = static_cast<uint64_t>(count) << 32 | static_cast<uint64_t>(count);
  ++progress;
  if (raceDetector)
    raceDetector->onMBarrierInit(current->linear, offset);
}

void Worker::mbarrierArrive(uint32_t offset, const char *operation) {
  uint64_t *state = getMBarrier(offset, operation, -1);
  if (!state)
    return;
  uint64_t expected = getExpected(*state);
  if (expected == 0) {
    char text[64];
    std::snprintf(text, sizeof(text), "0x%" PRIx32, offset);
    reports.insert(std::string(operation) + " by " + describeCurrentThread() +
                   " on the mbarrier at offset " + text +
                   " before mbarrier.init");
    return;
  }
  ++progress;
  uint64_t pending = getPending(*state) - 1;
  int completedParity = -1;
  uint64_t phase = *state & kPhaseBit;
  if (pending == 0) {
    completedParity = phase ? 1 : 0;
    phase ^= kPhaseBit;
    pending = expected;
  }
  *state = phase | expected << 32 | pending;
  if (raceDetector)
    raceDetector->onMBarrierArrive(current->linear, offset, completedParity);
}

void Worker::mbarrierWaitParity(uint32_t offset, bool parity, int32_t site) {
  uint64_t *state = getMBarrier(offset, "mbarrier.try_wait.parity", site);
  if (!state)
    return;
  // The phase with parity `parity` has completed once the current phase's
  // parity differs: waiting for parity 1 on a fresh mbarrier returns at once.
  if (getPhase(*state) == parity) {
    ThreadState &thread = *current;
    thread.waitKind = WaitKind::MBarrier;
    thread.waitSite = site;
    do
      yield();
    while (getPhase(*state) == parity);
    thread.waitKind = WaitKind::None;
  }
  ++progress;
  if (raceDetector)
    raceDetector->onMBarrierWait(current->linear, offset, parity);
}

void Worker::cpAsyncMBarrierArrive(uint32_t offset, bool noinc) {
  if (noinc) {
    mbarrierArrive(offset, "cp.async.mbarrier.arrive.noinc");
    return;
  }
  // The copies were performed synchronously, so the pending-count increment
  // and the arrival on their completion cancel out. The copies are still
  // released to the current phase.
  if (!getMBarrier(offset, "cp.async.mbarrier.arrive", -1))
    return;
  if (raceDetector)
    raceDetector->onMBarrierArrive(current->linear, offset,
                                   /*completedParity=*/-1);
}

void Worker::mbarrierAccess(uint32_t offset, int32_t site, AccessKind kind) {
  if (!raceDetector || offset % 8 != 0 ||
      uint64_t(offset) + 8 > static_cast<uint64_t>(spec.sharedBytes))
    return;
  raceDetector->onAccess(current->linear, offset, 8, site, kind);
}

void Worker::sharedAccess(uint64_t address, uint64_t bytes, int32_t site,
                          int32_t kind) {
  if (!raceDetector)
    return;
  uint64_t base = reinterpret_cast<uintptr_t>(arena.get());
  uint64_t sharedBytes = static_cast<uint64_t>(spec.sharedBytes);
  if (address < base || address - base >= sharedBytes)
    return;
  uint64_t offset = address - base;
  AccessKind accessKind =
      kind == static_cast<int32_t>(AccessKind::Read)     ? AccessKind::Read
      : kind == static_cast<int32_t>(AccessKind::Atomic) ? AccessKind::Atomic
                                                         : AccessKind::Write;
  // Writes are reported once done (tile-gpu-to-host), with what they wrote.
  const uint8_t *written = accessKind == AccessKind::Write
                               ? reinterpret_cast<const uint8_t *>(address)
                               : nullptr;
  raceDetector->onAccess(current->linear, offset,
                         std::min(bytes, sharedBytes - offset), site,
                         accessKind, written);
}

void Worker::outOfBounds(int32_t site, int32_t rank, const int64_t *indices) {
  // A kernel that keeps missing (a long loop out of bounds) is stopped
  // rather than run to its end, which could take hours on the CPU.
  if (++outOfBoundsAccesses >= kMaxOutOfBoundsAccesses && !stopped) {
    stopped = true;
    reports.insert("launch stopped after " +
                   std::to_string(kMaxOutOfBoundsAccesses) +
                   " out-of-bounds accesses in the blocks of one worker "
                   "(block " +
                   formatIndex(blockId) + " and later blocks did not finish)");
  }
  if (stopped)
    yield(); // Never resumed: runBlock abandons the block.
  if (outOfBoundsSites.count(site))
    return;
  std::string text =
      "out-of-bounds access at " + describeSite(spec.sites, site) + ": index [";
  for (int32_t dim = 0, end = std::clamp(rank, 0, 4); dim < end; ++dim) {
    if (dim)
      text += ", ";
    text += std::to_string(indices[dim]);
  }
  text += "] by " + describeCurrentThread();
  outOfBoundsSites.emplace(site, FirstReport{linearBlock, std::move(text)});
}

Worker &getWorker(const char *entryPoint) {
  if (!currentWorker || !currentWorker->isRunningThread()) {
    std::fprintf(stderr,
                 "%s called outside a GPU thread run by tile::cpu::launch\n",
                 entryPoint);
    std::abort();
  }
  return *currentWorker;
}

/// Returns why `spec` cannot be launched, or an empty string.
std::string validate(const LaunchSpec &spec) {
  if (!spec.function)
    return "no thread function";
  for (int dim = 0; dim < 3; ++dim) {
    // CUDA's limits keep every count below 2^63.
    int64_t gridLimit = dim == 0 ? INT32_MAX : 65535;
    if (spec.grid[dim] < 1 || spec.grid[dim] > gridLimit)
      return "grid dimension " + std::to_string(dim) + " is " +
             std::to_string(spec.grid[dim]) + ", expected 1 to " +
             std::to_string(gridLimit);
    if (spec.block[dim] < 1 || spec.block[dim] > kMaxBlockThreads)
      return "block dimension " + std::to_string(dim) + " is " +
             std::to_string(spec.block[dim]) + ", expected 1 to " +
             std::to_string(kMaxBlockThreads);
  }
  int64_t blockThreads = spec.block[0] * spec.block[1] * spec.block[2];
  if (blockThreads > kMaxBlockThreads)
    return "a block of " + std::to_string(blockThreads) + " threads exceeds " +
           std::to_string(kMaxBlockThreads);
  // mbarrier offsets are 32-bit.
  if (spec.sharedBytes < 0 || spec.sharedBytes > INT64_C(0xffffffff))
    return "shared memory size " + std::to_string(spec.sharedBytes) +
           " is outside 0 to 2^32 - 1";
  return "";
}

} // namespace

LaunchResult tile::cpu::launch(const LaunchSpec &spec) {
  LaunchResult result;
  std::string problem = validate(spec);
  if (!problem.empty()) {
    result.reports.push_back("invalid launch: " + problem);
    return result;
  }
  int64_t blockCount = spec.grid[0] * spec.grid[1] * spec.grid[2];
  if (spec.maxBlocks > 0)
    blockCount = std::min(blockCount, spec.maxBlocks);
  int64_t blockThreads = spec.block[0] * spec.block[1] * spec.block[2];
  if (blockCount > kMaxLaunchThreads / blockThreads) {
    result.reports.push_back(
        "invalid launch: " + std::to_string(blockCount) + " blocks of " +
        std::to_string(blockThreads) + " threads are more than the " +
        std::to_string(kMaxLaunchThreads) +
        " threads the CPU target runs in one launch (run the first blocks "
        "with --blocks N)");
    return result;
  }
  unsigned workerCount =
      spec.workers ? spec.workers
                   : std::max(1u, std::thread::hardware_concurrency());
  workerCount = static_cast<unsigned>(
      std::min<int64_t>(static_cast<int64_t>(workerCount), blockCount));

  std::vector<std::unique_ptr<Worker>> workers;
  for (unsigned index = 0; index < workerCount; ++index)
    workers.push_back(std::make_unique<Worker>(spec, blockThreads));
  std::atomic<int64_t> nextBlock{0};
  std::vector<std::thread> osThreads;
  for (unsigned index = 1; index < workerCount; ++index)
    osThreads.emplace_back(
        [&, index] { workers[index]->run(nextBlock, blockCount); });
  // The calling thread is a worker too.
  workers[0]->run(nextBlock, blockCount);
  for (std::thread &thread : osThreads)
    thread.join();

  ReportSet reports;
  std::map<int32_t, FirstReport> outOfBounds;
  std::map<RaceKey, FirstReport> races;
  for (const std::unique_ptr<Worker> &worker : workers) {
    for (const std::string &report : worker->reports.get())
      reports.insert(report);
    result.deadlocks += worker->deadlocks;
    for (const auto &[site, report] : worker->outOfBoundsSites)
      keepFirst(outOfBounds, site, report);
    if (worker->raceDetector)
      for (const auto &[key, report] : worker->raceDetector->getRaces())
        keepFirst(races, key, report);
  }
  bool stopped = std::any_of(
      workers.begin(), workers.end(),
      [](const std::unique_ptr<Worker> &worker) { return worker->stopped; });
  if (nextBlock.load() < blockCount && !stopped)
    reports.insert("no CPU worker could start: blocks " +
                   std::to_string(nextBlock.load()) + " and up did not run");
  result.outOfBounds = outOfBounds.size();
  result.races = races.size();
  for (const auto &[site, report] : outOfBounds)
    reports.insert(report.text);
  for (const auto &[key, report] : races)
    reports.insert(report.text);
  result.reports.assign(reports.get().begin(), reports.get().end());
  return result;
}

extern "C" {

void tile_rt_barrier(int32_t site) {
  getWorker("tile_rt_barrier").barrier(site);
}

uint64_t tile_rt_shuffle(uint64_t value, int32_t offset, int32_t width,
                         int32_t mode, int32_t site) {
  return getWorker("tile_rt_shuffle").shuffle(value, offset, width, mode, site);
}

int32_t tile_rt_shuffle_valid(void) {
  return getWorker("tile_rt_shuffle_valid").lastShuffleValid() ? 1 : 0;
}

void tile_rt_mbarrier_init(uint32_t arenaOffset, int32_t count,
                           int32_t site) {
  Worker &worker = getWorker("tile_rt_mbarrier_init");
  worker.mbarrierAccess(arenaOffset, site, AccessKind::Write);
  worker.mbarrierInit(arenaOffset, count);
}

void tile_rt_mbarrier_arrive(uint32_t arenaOffset, int32_t site) {
  Worker &worker = getWorker("tile_rt_mbarrier_arrive");
  worker.mbarrierAccess(arenaOffset, site, AccessKind::Atomic);
  worker.mbarrierArrive(arenaOffset, "mbarrier.arrive");
}

void tile_rt_mbarrier_wait_parity(uint32_t arenaOffset, int32_t parity,
                                  int32_t site) {
  Worker &worker = getWorker("tile_rt_mbarrier_wait_parity");
  worker.mbarrierAccess(arenaOffset, site, AccessKind::Atomic);
  worker.mbarrierWaitParity(arenaOffset, parity != 0, site);
}

void tile_rt_cp_async_mbarrier_arrive(uint32_t arenaOffset, int32_t noinc,
                                      int32_t site) {
  Worker &worker = getWorker("tile_rt_cp_async_mbarrier_arrive");
  worker.mbarrierAccess(arenaOffset, site, AccessKind::Atomic);
  worker.cpAsyncMBarrierArrive(arenaOffset, noinc != 0);
}

void tile_rt_shared_access(uint64_t address, uint64_t bytes, int32_t site,
                           int32_t kind) {
  getWorker("tile_rt_shared_access").sharedAccess(address, bytes, site, kind);
}

void tile_rt_out_of_bounds(int32_t site, int32_t rank, int64_t i0, int64_t i1,
                           int64_t i2, int64_t i3) {
  int64_t indices[4] = {i0, i1, i2, i3};
  getWorker("tile_rt_out_of_bounds").outOfBounds(site, rank, indices);
}

float tile_rt_truncsfbf2(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  uint32_t bf16;
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    bf16 = (bits >> 16) | 0x40u; // a quiet NaN stays a NaN
  else
    bf16 = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
  float result = 0.0f;
  std::memcpy(&result, &bf16, sizeof(bf16));
  return result;
}

} // extern "C"
