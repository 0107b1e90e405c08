//===- Worker.cpp - Runs blocks, one fiber per GPU thread -----------------===//
//
// A worker takes blocks from the launch's counter and runs each block's
// threads as fibers, round-robin, until they finish or deadlock
// (CPURuntime.cpp tells how deadlocks are found); it keeps what they
// report (out-of-bounds accesses, races, deadlocks).
//
//===----------------------------------------------------------------------===//

#include "Worker.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>

using namespace tile::cpu;
using namespace tile::cpu::detail;

thread_local Worker *tile::cpu::detail::currentWorker = nullptr;

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
    thread.inWgmmaGroup = false;
    thread.openWgmmaGroup.clear();
    thread.wgmmaGroups.clear();
    thread.asyncAgent = -1;
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
  namedBarriers = {};
  transactionBytes.clear();
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
      current = nullptr;
      return;
    }
  }
  current = nullptr;
  reportNamedBarriersLeftArrived();
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
  // MMAs still in flight complete by the time the thread has exited.
  if (raceDetector)
    retireWgmmaGroups(thread, 0);
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
    case WaitKind::NamedBarrier:
      text += " (named barrier)";
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
  bytes = std::min(bytes, sharedBytes - offset);
  // A TMA copy's writes are its agent's (mbarrierExpectTx).
  unsigned accessor = accessKind == AccessKind::Write && current->asyncAgent >= 0
                          ? static_cast<unsigned>(current->asyncAgent)
                          : current->linear;
  raceDetector->onAccess(accessor, offset, bytes, site, accessKind, written);
  // An MMA's operand read: checked again when its group retires.
  if (current->inWgmmaGroup && accessKind == AccessKind::Read)
    current->openWgmmaGroup.push_back({offset, bytes, site});
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
