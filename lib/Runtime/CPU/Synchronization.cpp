//===- Synchronization.cpp - Barriers, shuffles and mbarriers on fibers ---===//
//
// What compiled kernels wait on, implemented for the worker's fibers: a
// blocking call is `while (!condition) yield()`; every arrival and
// successful wait bumps the block's progress counter, so the scheduler can
// tell a deadlock (CPURuntime.cpp).
//
//===----------------------------------------------------------------------===//

#include "Worker.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>

using namespace tile::cpu;
using namespace tile::cpu::detail;

void Worker::releaseBarrier() {
  barrierArrived = 0;
  ++barrierGeneration;
  if (raceDetector)
    raceDetector->onBarrier();
}

void Worker::barrier(int32_t site) {
  // Threads at different barrier sites sync with each other: the hardware
  // counts arrivals per barrier id, not per instruction.
  current->asyncAgent = -1;
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

void Worker::namedBarrier(int32_t id, int32_t threads, bool wait,
                          int32_t site) {
  const char *operation = wait ? "bar.sync" : "bar.arrive";
  if (id < 0 || id >= static_cast<int32_t>(namedBarriers.size()) ||
      threads <= 0 || threads % 32 != 0) {
    reports.insert(std::string(operation) + " by " + describeCurrentThread() +
                   " at " + describeSite(spec.sites, site) + ": barrier " +
                   std::to_string(id) + " with " + std::to_string(threads) +
                   " threads (ids are 0 to 15, counts positive multiples "
                   "of 32)");
    return;
  }
  NamedBarrierState &state = namedBarriers[id];
  if (state.arrived == 0) {
    state.threads = static_cast<uint32_t>(threads);
    state.firstSite = site;
  } else if (state.threads != static_cast<uint32_t>(threads)) {
    // PTX leaves a phase whose arrivals disagree on the count undefined.
    reports.insert(std::string(operation) + " at " +
                   describeSite(spec.sites, site) + ": barrier " +
                   std::to_string(id) + " with " + std::to_string(threads) +
                   " threads, but the phase under way, begun at " +
                   describeSite(spec.sites, state.firstSite) + ", counts " +
                   std::to_string(state.threads));
  }
  state.lastSite = site;
  uint32_t generation = state.generation;
  ++progress;
  if (++state.arrived == state.threads) {
    state.arrived = 0;
    ++state.generation;
    return;
  }
  if (!wait)
    return;
  ThreadState &thread = *current;
  thread.waitKind = WaitKind::NamedBarrier;
  thread.waitSite = site;
  do
    yield();
  while (state.generation == generation);
  thread.waitKind = WaitKind::None;
}

void Worker::reportNamedBarriersLeftArrived() {
  for (size_t id = 0; id < namedBarriers.size(); ++id) {
    const NamedBarrierState &state = namedBarriers[id];
    if (state.arrived == 0)
      continue;
    reports.insert("block " + formatIndex(blockId) + " ended with named "
                   "barrier " + std::to_string(id) + " at " +
                   std::to_string(state.arrived) + " of " +
                   std::to_string(state.threads) + " arrivals (the last at " +
                   describeSite(spec.sites, state.lastSite) +
                   "): arrivals that no bar.sync waited for");
  }
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
  transactionBytes.erase(offset);
  ++progress;
  if (raceDetector)
    raceDetector->onMBarrierInit(current->linear, offset);
}

int Worker::completePhaseIfDone(uint64_t *state, uint32_t offset) {
  if (getPending(*state) != 0)
    return -1;
  auto outstanding = transactionBytes.find(offset);
  if (outstanding != transactionBytes.end() && outstanding->second > 0)
    return -1;
  uint64_t phase = *state & kPhaseBit;
  uint64_t expected = getExpected(*state);
  *state = (phase ^ kPhaseBit) | expected << 32 | expected;
  return phase ? 1 : 0;
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
  if (getPending(*state) == 0) {
    // Every arrival is in and transactions are outstanding: one more
    // arrival than the count.
    char text[64];
    std::snprintf(text, sizeof(text), "0x%" PRIx32, offset);
    reports.insert(std::string(operation) + " by " + describeCurrentThread() +
                   " on the mbarrier at offset " + text +
                   ": every arrival of the phase is in already (more "
                   "arrivals than its count)");
    return;
  }
  *state -= 1;
  int completedParity = completePhaseIfDone(state, offset);
  if (raceDetector)
    raceDetector->onMBarrierArrive(current->linear, offset, completedParity);
}

void Worker::mbarrierExpectTx(uint32_t offset, int32_t bytes) {
  if (!getMBarrier(offset, "mbarrier.expect_tx", -1))
    return;
  transactionBytes[offset] += bytes;
  // The TMA copies this thread issues next complete on this mbarrier: their
  // writes are not the thread's (RaceDetector.h).
  if (raceDetector) {
    current->asyncAgent = raceDetector->beginAsyncCopy(current->linear, offset);
    current->asyncBarrier = offset;
  }
}

void Worker::mbarrierCompleteTx(uint32_t offset, int32_t bytes, int32_t site) {
  uint64_t *state = getMBarrier(offset, "mbarrier.complete_tx", site);
  if (!state)
    return;
  ++progress;
  int64_t &outstanding = transactionBytes[offset];
  outstanding -= bytes;
  if (outstanding < 0) {
    char text[64];
    std::snprintf(text, sizeof(text), "0x%" PRIx32, offset);
    reports.insert(
        "mbarrier.complete_tx by " + describeCurrentThread() + " at " +
        describeSite(spec.sites, site) + ": the mbarrier at offset " + text +
        " received " + std::to_string(-outstanding) +
        " bytes more than its phase expected (the expect_tx count is short: "
        "on the GPU the phase completes before the copy has landed)");
    outstanding = 0;
  }
  int completedParity = completePhaseIfDone(state, offset);
  // The copy's writes (made by the calling thread for the copy's agent) are
  // released to the threads that see the phase complete.
  if (raceDetector) {
    ThreadState &thread = *current;
    bool agent = thread.asyncAgent >= 0 && thread.asyncBarrier == offset;
    raceDetector->onMBarrierArrive(
        agent ? static_cast<unsigned>(thread.asyncAgent) : thread.linear,
        offset, completedParity);
    if (agent && outstanding == 0)
      thread.asyncAgent = -1;
  }
}

void Worker::mbarrierWaitParity(uint32_t offset, bool parity, int32_t site) {
  uint64_t *state = getMBarrier(offset, "mbarrier.try_wait.parity", site);
  if (!state)
    return;
  current->asyncAgent = -1;
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

void Worker::wgmmaFence() {
  if (raceDetector)
    current->inWgmmaGroup = true;
}

void Worker::wgmmaCommitGroup() {
  ThreadState &thread = *current;
  if (!raceDetector || !thread.inWgmmaGroup)
    return;
  thread.inWgmmaGroup = false;
  std::vector<DeferredRead> reads = std::move(thread.openWgmmaGroup);
  thread.openWgmmaGroup.clear();
  // Each thread reads the same elements many times (a row of A for every
  // element of C in that row): once each is enough.
  std::sort(reads.begin(), reads.end());
  reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
  thread.wgmmaGroups.push_back(std::move(reads));
}

void Worker::wgmmaWaitGroup(int32_t pending) {
  if (raceDetector)
    retireWgmmaGroups(*current, static_cast<size_t>(std::max(pending, 0)));
}

void Worker::retireWgmmaGroups(ThreadState &thread, size_t pending) {
  while (thread.wgmmaGroups.size() > pending) {
    for (const DeferredRead &read : thread.wgmmaGroups.front())
      raceDetector->onAccess(thread.linear, read.offset, read.bytes,
                             read.site, AccessKind::Read);
    thread.wgmmaGroups.erase(thread.wgmmaGroups.begin());
  }
}
