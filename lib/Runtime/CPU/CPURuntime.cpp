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

#include "Worker.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <thread>

using namespace tile::cpu;
using namespace tile::cpu::detail;

namespace {

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

void tile_rt_named_barrier(int32_t id, int32_t threads, int32_t wait,
                           int32_t site) {
  getWorker("tile_rt_named_barrier").namedBarrier(id, threads, wait != 0, site);
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

void tile_rt_mbarrier_arrive_expect_tx(uint32_t arenaOffset, int32_t bytes,
                                       int32_t site) {
  Worker &worker = getWorker("tile_rt_mbarrier_arrive_expect_tx");
  worker.mbarrierAccess(arenaOffset, site, AccessKind::Atomic);
  worker.mbarrierExpectTx(arenaOffset, bytes);
  worker.mbarrierArrive(arenaOffset, "mbarrier.arrive.expect_tx");
}

void tile_rt_mbarrier_complete_tx(uint32_t arenaOffset, int32_t bytes,
                                  int32_t site) {
  Worker &worker = getWorker("tile_rt_mbarrier_complete_tx");
  worker.mbarrierAccess(arenaOffset, site, AccessKind::Atomic);
  worker.mbarrierCompleteTx(arenaOffset, bytes, site);
}

void tile_rt_wgmma_fence(void) { getWorker("tile_rt_wgmma_fence").wgmmaFence(); }

void tile_rt_wgmma_commit_group(void) {
  getWorker("tile_rt_wgmma_commit_group").wgmmaCommitGroup();
}

void tile_rt_wgmma_wait_group(int32_t pending) {
  getWorker("tile_rt_wgmma_wait_group").wgmmaWaitGroup(pending);
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
