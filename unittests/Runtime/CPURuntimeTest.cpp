//===- CPURuntimeTest.cpp - The CPU runtime's thread-level semantics ------===//
//
// The "kernels" here are plain C++ functions with the ThreadFunction
// signature that call the tile_rt_* entry points directly, as compiled kernel
// code does.
//
//===----------------------------------------------------------------------===//

#include "tile/Runtime/CPURuntime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

using namespace tile::cpu;

namespace {

int64_t getThreadLinear(const int64_t *context) {
  return context[kThreadIdX] +
         context[kBlockDimX] *
             (context[kThreadIdY] + context[kBlockDimY] * context[kThreadIdZ]);
}

int64_t getBlockThreads(const int64_t *context) {
  return context[kBlockDimX] * context[kBlockDimY] * context[kBlockDimZ];
}

int64_t getBlockLinear(const int64_t *context) {
  return context[kBlockIdX] +
         context[kGridDimX] *
             (context[kBlockIdY] + context[kGridDimY] * context[kBlockIdZ]);
}

uint64_t addressOf(const void *pointer) {
  return reinterpret_cast<uintptr_t>(pointer);
}

bool hasReportContaining(const LaunchResult &result, const std::string &text) {
  return std::any_of(result.reports.begin(), result.reports.end(),
                     [&](const std::string &report) {
                       return report.find(text) != std::string::npos;
                     });
}

std::string joinReports(const LaunchResult &result) {
  std::string text;
  for (const std::string &report : result.reports)
    text += report + "\n";
  return text;
}

//===----------------------------------------------------------------------===//
// Thread and block ids
//===----------------------------------------------------------------------===//

struct IdsData {
  explicit IdsData(size_t threads) : runs(threads), contexts(threads) {}
  std::vector<std::atomic<int>> runs;
  std::vector<std::array<int64_t, kContextSlots>> contexts;
  std::atomic<int> badArenas{0};
};

void recordIds(void *userData, int64_t *context, void *arena) {
  auto &data = *static_cast<IdsData *>(userData);
  int64_t global = getBlockLinear(context) * getBlockThreads(context) +
                   getThreadLinear(context);
  ++data.runs[global];
  std::copy(context, context + kContextSlots, data.contexts[global].begin());
  // The arena is 128-byte aligned and zero at block start; this thread's own
  // word shows whether an earlier block's write leaked through.
  auto *words = static_cast<int32_t *>(arena);
  if (addressOf(arena) % 128 || words[getThreadLinear(context)] != 0)
    ++data.badArenas;
  words[getThreadLinear(context)] = 1;
}

TEST(CPURuntimeTest, EveryThreadRunsOnceWithItsIds) {
  LaunchSpec spec;
  spec.grid = {3, 2, 2};
  spec.block = {4, 3, 5};
  spec.sharedBytes = 4 * 60;
  spec.function = recordIds;
  spec.workers = 2;
  IdsData data(12 * 60);
  spec.userData = &data;
  LaunchResult result = launch(spec);
  EXPECT_TRUE(result.ok()) << joinReports(result);
  EXPECT_EQ(data.badArenas.load(), 0);
  for (int64_t bz = 0; bz < 2; ++bz)
    for (int64_t by = 0; by < 2; ++by)
      for (int64_t bx = 0; bx < 3; ++bx)
        for (int64_t tz = 0; tz < 5; ++tz)
          for (int64_t ty = 0; ty < 3; ++ty)
            for (int64_t tx = 0; tx < 4; ++tx) {
              int64_t global =
                  ((bz * 2 + by) * 3 + bx) * 60 + (tz * 3 + ty) * 4 + tx;
              ASSERT_EQ(data.runs[global].load(), 1) << global;
              std::array<int64_t, kContextSlots> expected = {
                  tx, ty, tz, bx, by, bz, 4, 3, 5, 3, 2, 2, 0, 0, 0, 0};
              EXPECT_EQ(data.contexts[global], expected) << global;
            }
}

TEST(CPURuntimeTest, InvalidLaunchIsReported) {
  LaunchSpec spec;
  spec.block = {1024, 2, 1};
  spec.function = recordIds;
  LaunchResult result = launch(spec);
  ASSERT_EQ(result.reports.size(), 1u);
  EXPECT_EQ(result.reports[0],
            "invalid launch: a block of 2048 threads exceeds 1024");
}

//===----------------------------------------------------------------------===//
// Barriers
//===----------------------------------------------------------------------===//

struct ReversalData {
  std::vector<int32_t> out;
  int rounds = 1;
  bool withBarrier = true;
};

/// Each round: arena[t] = f(t), barrier, read arena[T - 1 - t], barrier.
void reverseThroughShared(void *userData, int64_t *context, void *arena) {
  auto &data = *static_cast<ReversalData *>(userData);
  auto *words = static_cast<int32_t *>(arena);
  int64_t threads = getBlockThreads(context);
  int64_t thread = getThreadLinear(context);
  int64_t block = getBlockLinear(context);
  int32_t sum = 0;
  for (int round = 0; round < data.rounds; ++round) {
    words[thread] = static_cast<int32_t>(thread * 7 + block * 100000 + round);
    tile_rt_shared_access(addressOf(&words[thread]), 4, /*site=*/0,
                          /*kind=*/1);
    if (data.withBarrier)
      tile_rt_barrier(2);
    tile_rt_shared_access(addressOf(&words[threads - 1 - thread]), 4,
                          /*site=*/1, /*kind=*/0);
    sum += words[threads - 1 - thread];
    if (data.withBarrier)
      tile_rt_barrier(3);
  }
  data.out[block * threads + thread] = sum;
}

int32_t expectedReversal(int64_t block, int64_t threads, int64_t thread,
                         int rounds) {
  int32_t sum = 0;
  for (int round = 0; round < rounds; ++round)
    sum += static_cast<int32_t>((threads - 1 - thread) * 7 + block * 100000 +
                                round);
  return sum;
}

TEST(CPURuntimeTest, BarrierOrdersSharedMemoryOf1024Threads) {
  for (std::array<int64_t, 3> block :
       {std::array<int64_t, 3>{1024, 1, 1}, std::array<int64_t, 3>{16, 8, 8}}) {
    LaunchSpec spec;
    spec.grid = {3, 2, 1};
    spec.block = block;
    spec.sharedBytes = 4096;
    spec.function = reverseThroughShared;
    spec.workers = 2;
    ReversalData data;
    data.rounds = 3;
    data.out.assign(6 * 1024, -1);
    spec.userData = &data;
    LaunchResult result = launch(spec);
    EXPECT_TRUE(result.ok()) << joinReports(result);
    for (int64_t b = 0; b < 6; ++b)
      for (int64_t t = 0; t < 1024; ++t)
        ASSERT_EQ(data.out[b * 1024 + t], expectedReversal(b, 1024, t, 3))
            << "block " << b << " thread " << t;
  }
}

struct EarlyExitData {
  std::vector<int32_t> passed;
};

/// A third of the threads return at once, some more after two barriers; the
/// rest pass barriers at two different sites (odd and even threads).
void exitEarly(void *userData, int64_t *context, void *) {
  auto &data = *static_cast<EarlyExitData *>(userData);
  int64_t thread = getThreadLinear(context);
  if (thread % 3 == 0)
    return;
  int32_t passed = 0;
  for (int round = 0; round < 6; ++round) {
    if (round == 2 && thread < 40)
      return;
    if (thread % 2)
      tile_rt_barrier(0);
    else
      tile_rt_barrier(1);
    data.passed[getBlockLinear(context) * getBlockThreads(context) + thread] =
        ++passed;
  }
}

TEST(CPURuntimeTest, ExitedThreadsCountAsArrived) {
  LaunchSpec spec;
  spec.grid = {4, 1, 1};
  spec.block = {100, 1, 1};
  spec.function = exitEarly;
  spec.workers = 2;
  EarlyExitData data;
  data.passed.assign(400, 0);
  spec.userData = &data;
  LaunchResult result = launch(spec);
  EXPECT_TRUE(result.ok()) << joinReports(result);
  EXPECT_EQ(result.deadlocks, 0u);
  for (int64_t global = 0; global < 400; ++global) {
    int64_t thread = global % 100;
    int32_t expected = thread % 3 == 0 ? 0 : thread < 40 ? 2 : 6;
    EXPECT_EQ(data.passed[global], expected) << global;
  }
}

//===----------------------------------------------------------------------===//
// Deadlocks
//===----------------------------------------------------------------------===//

/// Thread 0 initializes an mbarrier nobody arrives on; in the blocks selected
/// by `deadlockBlocks`, the first warp waits on it while the second either
/// returns or waits at a barrier.
struct DeadlockData {
  bool secondWarpAtBarrier = false;
  int64_t deadlockBlock = -1;
  std::atomic<int> finished{0};
};

void waitForever(void *userData, int64_t *context, void *) {
  auto &data = *static_cast<DeadlockData *>(userData);
  int64_t thread = getThreadLinear(context);
  if (thread == 0)
    tile_rt_mbarrier_init(0, 1, -1);
  tile_rt_barrier(0);
  bool deadlocks =
      data.deadlockBlock < 0 || getBlockLinear(context) == data.deadlockBlock;
  if (deadlocks && thread < 32)
    tile_rt_mbarrier_wait_parity(0, false, 1);
  else if (deadlocks && data.secondWarpAtBarrier)
    tile_rt_barrier(2);
  ++data.finished;
}

TEST(CPURuntimeTest, DivergentWaitIsReportedAsDeadlock) {
  LaunchSpec spec;
  spec.grid = {3, 1, 1};
  spec.block = {64, 1, 1};
  spec.sharedBytes = 16;
  spec.function = waitForever;
  spec.workers = 2;
  spec.sites = {"k.mlir:2:3: gpu.barrier", "k.mlir:9:5: mbarrier wait",
                "k.mlir:12:5: gpu.barrier"};
  DeadlockData data;
  spec.userData = &data;
  LaunchResult result = launch(spec);
  EXPECT_EQ(result.deadlocks, 3u);
  // The second warp returned in every block.
  EXPECT_EQ(data.finished.load(), 3 * 32);
  ASSERT_EQ(result.reports.size(), 3u) << joinReports(result);
  EXPECT_EQ(result.reports[0].rfind(
                "deadlock in block (0, 0, 0): 32 threads wait: thread (0, 0, "
                "0) at k.mlir:9:5: mbarrier wait (mbarrier wait), thread (1, "
                "0, 0) at k.mlir:9:5: mbarrier wait (mbarrier wait), ",
                0),
            0u)
      << result.reports[0];
  EXPECT_NE(result.reports[0].find(", and 24 more"), std::string::npos);
}

TEST(CPURuntimeTest, DeadlockedBlockDoesNotStopOthers) {
  LaunchSpec spec;
  spec.grid = {5, 1, 1};
  spec.block = {64, 1, 1};
  spec.sharedBytes = 16;
  spec.function = waitForever;
  spec.workers = 1;
  spec.sites = {"barrier0", "wait", "barrier2"};
  DeadlockData data;
  data.secondWarpAtBarrier = true;
  data.deadlockBlock = 1;
  spec.userData = &data;
  LaunchResult result = launch(spec);
  EXPECT_EQ(result.deadlocks, 1u);
  EXPECT_EQ(data.finished.load(), 4 * 64);
  ASSERT_EQ(result.reports.size(), 1u) << joinReports(result);
  EXPECT_NE(result.reports[0].find("deadlock in block (1, 0, 0): 64 threads "
                                   "wait: thread (0, 0, 0) at wait (mbarrier "
                                   "wait)"),
            std::string::npos)
      << result.reports[0];
  // The threads listed are the first eight in linear order, all in warp 0.
  EXPECT_FALSE(hasReportContaining(result, "(barrier)"));
}

void shuffleAgainstBarrier(void *, int64_t *context, void *) {
  if (getThreadLinear(context) < 32)
    tile_rt_shuffle(0, 1, 32, 0, 0);
  else
    tile_rt_barrier(1);
}

TEST(CPURuntimeTest, ShuffleAgainstBarrierIsReported) {
  LaunchSpec spec;
  spec.block = {40, 1, 1};
  spec.function = shuffleAgainstBarrier;
  spec.sites = {"shfl", "bar"};
  LaunchResult result = launch(spec);
  EXPECT_EQ(result.deadlocks, 0u) << joinReports(result);
  // The warp-0 shuffle completes (all 32 lanes deposit) and those threads
  // return, after which the barrier has all live threads: no deadlock.
  EXPECT_TRUE(result.ok()) << joinReports(result);
}

void barrierAgainstShuffle(void *, int64_t *context, void *) {
  // Lanes 0-15 of warp 0 wait at the barrier, lanes 16-31 at a shuffle:
  // neither can complete.
  if (getThreadLinear(context) < 16)
    tile_rt_barrier(1);
  else
    tile_rt_shuffle(0, 1, 32, 0, 0);
}

TEST(CPURuntimeTest, BarrierAgainstShuffleIsReported) {
  LaunchSpec spec;
  spec.block = {32, 1, 1};
  spec.function = barrierAgainstShuffle;
  spec.sites = {"shfl", "bar"};
  LaunchResult result = launch(spec);
  EXPECT_EQ(result.deadlocks, 1u);
  EXPECT_TRUE(hasReportContaining(
      result, "deadlock in block (0, 0, 0): 32 threads wait: thread (0, 0, 0) "
              "at bar (barrier)"))
      << joinReports(result);
}

//===----------------------------------------------------------------------===//
// Shuffles
//===----------------------------------------------------------------------===//

/// PTX shfl.sync with segmask 0 and gpu.shuffle's clamp, in a warp of
/// `warpSize` lanes all present.
std::pair<uint64_t, bool> referenceShuffle(const std::vector<uint64_t> &values,
                                           int lane, int warpSize, int offset,
                                           int width, int mode) {
  int maxLane = (mode == 1 ? 32 - width : width - 1) & 31;
  int delta = offset & 31;
  int source = 0;
  bool valid = false;
  switch (mode) {
  case 0:
    source = lane ^ delta;
    valid = source <= maxLane;
    break;
  case 1:
    source = lane - delta;
    valid = source >= maxLane;
    break;
  case 2:
    source = lane + delta;
    valid = source <= maxLane;
    break;
  case 3:
    source = delta;
    valid = source <= maxLane;
    break;
  }
  if (!valid || source >= warpSize)
    return {values[lane], false};
  return {values[source], true};
}

struct ShuffleCase {
  int mode;
  int width;
  int offset;
};

struct ShuffleData {
  std::vector<ShuffleCase> cases;
  /// [case][thread]
  std::vector<std::vector<uint64_t>> results;
  std::vector<std::vector<bool>> valid;
};

uint64_t shuffleInput(int64_t thread) {
  return 0x100000000ull * (thread + 1) + 1000 + thread;
}

void shuffleAllCases(void *userData, int64_t *context, void *) {
  auto &data = *static_cast<ShuffleData *>(userData);
  int64_t thread = getThreadLinear(context);
  for (size_t index = 0; index < data.cases.size(); ++index) {
    const ShuffleCase &c = data.cases[index];
    data.results[index][thread] =
        tile_rt_shuffle(shuffleInput(thread), c.offset, c.width, c.mode, 0);
    data.valid[index][thread] = tile_rt_shuffle_valid();
  }
}

TEST(CPURuntimeTest, ShufflesFollowPTX) {
  ShuffleData data;
  for (int mode = 0; mode < 4; ++mode)
    for (int width : {32, 16})
      for (int offset : {0, 1, 2, 5, 8, 15, 16, 17, 31})
        data.cases.push_back({mode, width, offset});
  // 48 threads: the second warp is partial (16 lanes).
  const int threads = 48;
  data.results.assign(data.cases.size(), std::vector<uint64_t>(threads));
  data.valid.assign(data.cases.size(), std::vector<bool>(threads));
  LaunchSpec spec;
  spec.block = {16, 3, 1};
  spec.function = shuffleAllCases;
  spec.userData = &data;
  LaunchResult result = launch(spec);
  ASSERT_TRUE(result.ok()) << joinReports(result);
  for (size_t index = 0; index < data.cases.size(); ++index) {
    const ShuffleCase &c = data.cases[index];
    for (int thread = 0; thread < threads; ++thread) {
      int warpBase = thread / 32 * 32;
      int warpSize = std::min(32, threads - warpBase);
      std::vector<uint64_t> values(32);
      for (int lane = 0; lane < warpSize; ++lane)
        values[lane] = shuffleInput(warpBase + lane);
      auto [value, valid] = referenceShuffle(values, thread % 32, warpSize,
                                             c.offset, c.width, c.mode);
      EXPECT_EQ(data.results[index][thread], value)
          << "mode " << c.mode << " width " << c.width << " offset " << c.offset
          << " thread " << thread;
      EXPECT_EQ(data.valid[index][thread], valid)
          << "mode " << c.mode << " width " << c.width << " offset " << c.offset
          << " thread " << thread;
    }
  }
  // A few cases worked out by hand, independent of the reference.
  auto find = [&](int mode, int width, int offset) {
    for (size_t index = 0; index < data.cases.size(); ++index)
      if (data.cases[index].mode == mode && data.cases[index].width == width &&
          data.cases[index].offset == offset)
        return index;
    return size_t(0);
  };
  size_t down1 = find(2, 32, 1), up1 = find(1, 32, 1), xor1w16 = find(0, 16, 1),
         idx5 = find(3, 32, 5), down1w16 = find(2, 16, 1);
  EXPECT_EQ(data.results[down1][0], shuffleInput(1));
  EXPECT_FALSE(data.valid[down1][31]);
  EXPECT_EQ(data.results[down1][31], shuffleInput(31));
  EXPECT_FALSE(data.valid[down1][47]); // lane 15 of the partial warp
  EXPECT_EQ(data.results[up1][0], shuffleInput(0));
  EXPECT_FALSE(data.valid[up1][0]);
  EXPECT_EQ(data.results[up1][5], shuffleInput(4));
  EXPECT_EQ(data.results[xor1w16][3], shuffleInput(2));
  EXPECT_FALSE(data.valid[xor1w16][17]); // lane 16: j = 17 > clamp 15
  EXPECT_EQ(data.results[idx5][20], shuffleInput(5));
  EXPECT_EQ(data.results[idx5][40], shuffleInput(37));
  EXPECT_EQ(data.results[down1w16][14], shuffleInput(15));
  EXPECT_FALSE(data.valid[down1w16][15]);
}

struct ReductionData {
  std::vector<uint64_t> sums;
  std::vector<uint64_t> exitedSources;
  std::vector<bool> exitedValid;
};

/// A warp sum by xor butterflies; then lanes 16-31 return and lanes 0-15
/// shuffle down 16 from them.
void reduceWarp(void *userData, int64_t *context, void *) {
  auto &data = *static_cast<ReductionData *>(userData);
  int64_t thread = getThreadLinear(context);
  uint64_t value = static_cast<uint64_t>(thread + 1);
  for (int offset = 16; offset > 0; offset /= 2)
    value += tile_rt_shuffle(value, offset, 32, 0, 0);
  data.sums[thread] = value;
  if (thread % 32 >= 16)
    return;
  data.exitedSources[thread] = tile_rt_shuffle(thread, 16, 32, 2, 1);
  data.exitedValid[thread] = tile_rt_shuffle_valid();
}

TEST(CPURuntimeTest, WarpReductionByXorShuffles) {
  ReductionData data;
  data.sums.assign(96, 0);
  data.exitedSources.assign(96, 0);
  data.exitedValid.assign(96, true);
  LaunchSpec spec;
  spec.block = {96, 1, 1};
  spec.grid = {2, 1, 1};
  spec.workers = 1;
  spec.function = reduceWarp;
  spec.userData = &data;
  LaunchResult result = launch(spec);
  ASSERT_TRUE(result.ok()) << joinReports(result);
  for (int64_t thread = 0; thread < 96; ++thread) {
    int64_t base = thread / 32 * 32;
    uint64_t expected = static_cast<uint64_t>(32 * (base + 1) + 31 * 32 / 2);
    EXPECT_EQ(data.sums[thread], expected) << thread;
    if (thread % 32 < 16) {
      // Lanes 16-31 have exited: the source is gone, the value is one's own.
      EXPECT_EQ(data.exitedSources[thread], static_cast<uint64_t>(thread));
      EXPECT_FALSE(data.exitedValid[thread]);
    }
  }
}

//===----------------------------------------------------------------------===//
// mbarriers
//===----------------------------------------------------------------------===//

constexpr uint32_t kFullOffset = 0;
constexpr uint32_t kEmptyOffset = 8;
constexpr int64_t kDataOffset = 16;
constexpr int kPingPongIterations = 10;

struct PingPongData {
  std::vector<int32_t> received;
  bool consumerWaits = true;
  bool useCpAsync = false;
};

/// Thread 0 produces into one shared slot, thread 32 (another warp) consumes:
/// `full` says the slot holds a value, `empty` that it may be overwritten.
void pingPong(void *userData, int64_t *context, void *arena) {
  auto &data = *static_cast<PingPongData *>(userData);
  auto *slot =
      reinterpret_cast<int32_t *>(static_cast<char *>(arena) + kDataOffset);
  int64_t thread = getThreadLinear(context);
  if (thread == 0) {
    tile_rt_mbarrier_init(kFullOffset, 1, -1);
    tile_rt_mbarrier_init(kEmptyOffset, 1, -1);
  }
  tile_rt_barrier(0);
  if (thread == 0) {
    for (int i = 0; i < kPingPongIterations; ++i) {
      // Parity (i & 1) ^ 1: the first wait is on the phase before the first.
      tile_rt_mbarrier_wait_parity(kEmptyOffset, ((i & 1) ^ 1) != 0, 1);
      tile_rt_shared_access(addressOf(slot), 4, 2, 1);
      *slot = i * i + 1;
      if (data.useCpAsync) {
        tile_rt_cp_async_mbarrier_arrive(kFullOffset, /*noinc=*/false, -1);
        tile_rt_cp_async_mbarrier_arrive(kFullOffset, /*noinc=*/true, -1);
      } else {
        tile_rt_mbarrier_arrive(kFullOffset, -1);
      }
    }
  } else if (thread == 32) {
    for (int i = 0; i < kPingPongIterations; ++i) {
      if (data.consumerWaits)
        tile_rt_mbarrier_wait_parity(kFullOffset, (i & 1) != 0, 3);
      tile_rt_shared_access(addressOf(slot), 4, 4, 0);
      data.received.push_back(*slot);
      tile_rt_mbarrier_arrive(kEmptyOffset, -1);
    }
  }
}

TEST(CPURuntimeTest, MBarrierPingPongAlternatesPhases) {
  for (bool raceCheck : {false, true})
    for (bool useCpAsync : {false, true}) {
      PingPongData data;
      data.useCpAsync = useCpAsync;
      LaunchSpec spec;
      spec.block = {64, 1, 1};
      spec.sharedBytes = 32;
      spec.function = pingPong;
      spec.userData = &data;
      spec.raceCheck = raceCheck;
      spec.sites = {"bar", "wait empty", "store", "wait full", "load"};
      LaunchResult result = launch(spec);
      EXPECT_TRUE(result.ok()) << joinReports(result);
      std::vector<int32_t> expected;
      for (int i = 0; i < kPingPongIterations; ++i)
        expected.push_back(i * i + 1);
      EXPECT_EQ(data.received, expected);
    }
}

void misuseMBarrier(void *, int64_t *context, void *) {
  if (getThreadLinear(context) != 0)
    return;
  tile_rt_mbarrier_wait_parity(64, false, 0);
  tile_rt_mbarrier_init(3, 1, -1);
  tile_rt_mbarrier_arrive(8, -1);
}

TEST(CPURuntimeTest, MBarrierMisuseIsReported) {
  LaunchSpec spec;
  spec.block = {2, 1, 1};
  spec.sharedBytes = 16;
  spec.function = misuseMBarrier;
  spec.sites = {"k.mlir:4:2: wait"};
  LaunchResult result = launch(spec);
  EXPECT_EQ(result.deadlocks, 0u);
  std::vector<std::string> expected = {
      "mbarrier.arrive by thread (0, 0, 0) of block (0, 0, 0) on the mbarrier "
      "at offset 0x8 before mbarrier.init",
      "mbarrier.init at <unknown site>: the mbarrier at offset 0x3 is not "
      "8-byte aligned (16 bytes)",
      "mbarrier.try_wait.parity at k.mlir:4:2: wait: the mbarrier at offset "
      "0x40 is outside the block's shared memory (16 bytes)"};
  EXPECT_EQ(result.reports, expected);
}

//===----------------------------------------------------------------------===//
// TMA transaction counts and wgmma groups
//===----------------------------------------------------------------------===//

constexpr int32_t kTmaTileBytes = 64;
constexpr int kTmaIterations = 6;

struct TmaPipelineData {
  /// Bytes the producer announces with arrive.expect_tx each iteration.
  int32_t expectedBytes = kTmaTileBytes;
  /// The consumer releases the slot before the MMA reading it retires.
  bool releaseEarly = false;
  std::vector<int32_t> received;
};

/// A TMA + wgmma pipeline of one slot, in the shape tile-lower-warp-
/// specialize gives it: thread 0 (the producer) waits for the slot to be
/// empty, arms `full` with arrive.expect_tx, "copies" the tile (its writes,
/// then complete_tx in two halves, as two TMA boxes would); the consumer
/// (thread 32) waits for `full`, reads the tile inside a wgmma group, and
/// releases the slot after wgmma.wait_group 0 retired the group, or, with
/// releaseEarly, right after committing it.
void tmaPipeline(void *userData, int64_t *context, void *arena) {
  auto &data = *static_cast<TmaPipelineData *>(userData);
  auto *tile =
      reinterpret_cast<int32_t *>(static_cast<char *>(arena) + kDataOffset);
  int64_t thread = getThreadLinear(context);
  if (thread == 0) {
    tile_rt_mbarrier_init(kFullOffset, 1, -1);
    tile_rt_mbarrier_init(kEmptyOffset, 1, -1);
  }
  tile_rt_barrier(0);
  if (thread == 0) {
    for (int i = 0; i < kTmaIterations; ++i) {
      tile_rt_mbarrier_wait_parity(kEmptyOffset, ((i & 1) ^ 1) != 0, 1);
      tile_rt_mbarrier_arrive_expect_tx(kFullOffset, data.expectedBytes, -1);
      for (int half = 0; half < 2; ++half) {
        int32_t *box = tile + half * kTmaTileBytes / 8;
        tile_rt_shared_access(addressOf(box), kTmaTileBytes / 2, 2, 1);
        for (int j = 0; j < kTmaTileBytes / 8; ++j)
          box[j] = i * 100 + half * 10 + j;
        tile_rt_mbarrier_complete_tx(kFullOffset, kTmaTileBytes / 2, 5);
      }
    }
  } else if (thread == 32) {
    for (int i = 0; i < kTmaIterations; ++i) {
      tile_rt_mbarrier_wait_parity(kFullOffset, (i & 1) != 0, 3);
      tile_rt_wgmma_fence();
      int32_t sum = 0;
      for (int j = 0; j < kTmaTileBytes / 4; ++j) {
        tile_rt_shared_access(addressOf(tile + j), 4, 4, 0);
        sum += tile[j];
      }
      tile_rt_wgmma_commit_group();
      if (data.releaseEarly)
        tile_rt_mbarrier_arrive(kEmptyOffset, -1);
      tile_rt_wgmma_wait_group(0);
      if (!data.releaseEarly)
        tile_rt_mbarrier_arrive(kEmptyOffset, -1);
      data.received.push_back(sum);
    }
  }
}

LaunchSpec tmaPipelineSpec(TmaPipelineData &data) {
  LaunchSpec spec;
  spec.block = {64, 1, 1};
  spec.sharedBytes = kDataOffset + kTmaTileBytes;
  spec.function = tmaPipeline;
  spec.userData = &data;
  spec.raceCheck = true;
  spec.sites = {"bar", "wait empty", "tma write", "wait full", "mma read",
                "complete_tx"};
  return spec;
}

TEST(CPURuntimeTest, TmaPhaseCompletesWhenItsBytesLand) {
  TmaPipelineData data;
  LaunchResult result = launch(tmaPipelineSpec(data));
  EXPECT_TRUE(result.ok()) << joinReports(result);
  std::vector<int32_t> expected;
  for (int i = 0; i < kTmaIterations; ++i) {
    int32_t sum = 0;
    for (int half = 0; half < 2; ++half)
      for (int j = 0; j < kTmaTileBytes / 8; ++j)
        sum += i * 100 + half * 10 + j;
    expected.push_back(sum);
  }
  EXPECT_EQ(data.received, expected);
}

TEST(CPURuntimeTest, ShortExpectTxIsReported) {
  // The phase completes when the first box lands: the consumer may read the
  // second before it has (reported as a race too), and the second box's
  // bytes overflow the count.
  TmaPipelineData data;
  data.expectedBytes = kTmaTileBytes / 2;
  LaunchResult result = launch(tmaPipelineSpec(data));
  EXPECT_TRUE(hasReportContaining(
      result, "mbarrier.complete_tx by thread (0, 0, 0) of block (0, 0, 0) "
              "at complete_tx: the mbarrier at offset 0x0 received 32 bytes "
              "more than its phase expected"))
      << joinReports(result);
}

TEST(CPURuntimeTest, ExcessExpectTxNeverCompletes) {
  TmaPipelineData data;
  data.expectedBytes = kTmaTileBytes + 4;
  LaunchResult result = launch(tmaPipelineSpec(data));
  EXPECT_EQ(result.deadlocks, 1u) << joinReports(result);
}

TEST(CPURuntimeTest, ReleaseBeforeWgmmaRetiresIsARace) {
  TmaPipelineData data;
  data.releaseEarly = true;
  LaunchResult result = launch(tmaPipelineSpec(data));
  // The MMA's reads are checked again when its group retires, after the
  // release: the producer's next copy into the slot is not ordered before
  // them.
  EXPECT_EQ(result.races, 1u) << joinReports(result);
  std::vector<std::string> expected = {
      "race on shared memory (byte offset 0x10 of the block's shared "
      "memory): read at mma read by thread (32, 0, 0) and write at tma write "
      "by a TMA copy completing on the mbarrier at offset 0x0, block (0, 0, "
      "0), with no barrier between them"};
  EXPECT_EQ(result.reports, expected);
}

/// Thread 0's TMA copy of 4 words into `box`, completing on the mbarrier
/// at `barrier`: armed, written (site 1), completed (site 2).
void copyFourWords(uint32_t barrier, int32_t *box) {
  tile_rt_mbarrier_arrive_expect_tx(barrier, 16, -1);
  tile_rt_shared_access(addressOf(box), 16, 1, 1);
  for (int j = 0; j < 4; ++j)
    box[j] = j;
  tile_rt_mbarrier_complete_tx(barrier, 16, 2);
}

/// Thread 0 issues two TMA copies, the first onto `full`, the second onto
/// `empty` (used here as a second full barrier); thread 32 waits for the
/// second and, with `waitFirst`, the first, then reads the first's tile.
void twoCopies(void *userData, int64_t *context, void *arena) {
  bool waitFirst = *static_cast<bool *>(userData);
  auto *tile =
      reinterpret_cast<int32_t *>(static_cast<char *>(arena) + kDataOffset);
  int64_t thread = getThreadLinear(context);
  if (thread == 0) {
    tile_rt_mbarrier_init(kFullOffset, 1, -1);
    tile_rt_mbarrier_init(kEmptyOffset, 1, -1);
  }
  tile_rt_barrier(0);
  if (thread == 0) {
    for (uint32_t barrier : {kFullOffset, kEmptyOffset})
      copyFourWords(barrier, tile + (barrier == kFullOffset ? 0 : 4));
  } else if (thread == 32) {
    tile_rt_mbarrier_wait_parity(kEmptyOffset, false, 3);
    if (waitFirst)
      tile_rt_mbarrier_wait_parity(kFullOffset, false, 3);
    tile_rt_shared_access(addressOf(tile), 16, 4, 0);
  }
}

TEST(CPURuntimeTest, TmaCopyIsOrderedOnlyByItsOwnMBarrier) {
  // The second copy's mbarrier carries what thread 0 did before it, but not
  // the first copy's writes, which land on their own.
  for (bool waitFirst : {true, false}) {
    LaunchSpec spec;
    spec.block = {64, 1, 1};
    spec.sharedBytes = kDataOffset + 32;
    spec.function = twoCopies;
    spec.userData = &waitFirst;
    spec.raceCheck = true;
    spec.sites = {"bar", "tma write", "complete_tx", "wait", "read"};
    LaunchResult result = launch(spec);
    EXPECT_EQ(result.races, waitFirst ? 0u : 1u) << joinReports(result);
    if (!waitFirst) {
      EXPECT_TRUE(hasReportContaining(
          result, "write at tma write by a TMA copy completing on the "
                  "mbarrier at offset 0x0 and read at read by thread (32, 0, "
                  "0)"))
          << joinReports(result);
    }
  }
}

/// Who waits for thread 0's TMA copy before thread 32 reads it, a block
/// barrier between them in every case.
enum class CopyWaiter { Nobody, Issuer, Reader };

/// Thread 0 copies a tile onto `full`; every thread passes a block barrier;
/// thread 32 reads the tile.
void copyThenBarrier(void *userData, int64_t *context, void *arena) {
  CopyWaiter waiter = *static_cast<CopyWaiter *>(userData);
  auto *tile =
      reinterpret_cast<int32_t *>(static_cast<char *>(arena) + kDataOffset);
  int64_t thread = getThreadLinear(context);
  if (thread == 0)
    tile_rt_mbarrier_init(kFullOffset, 1, -1);
  tile_rt_barrier(0);
  if (thread == 0) {
    copyFourWords(kFullOffset, tile);
    if (waiter == CopyWaiter::Issuer)
      tile_rt_mbarrier_wait_parity(kFullOffset, false, 3);
  }
  tile_rt_barrier(0);
  if (thread == 32) {
    if (waiter == CopyWaiter::Reader)
      tile_rt_mbarrier_wait_parity(kFullOffset, false, 3);
    tile_rt_shared_access(addressOf(tile), 16, 4, 0);
  }
}

TEST(CPURuntimeTest, BlockBarrierDoesNotOrderATmaCopy) {
  // bar.sync does not wait for copies in flight: a reader is ordered after
  // the copy through its mbarrier, its own wait or a waiter's before the
  // barrier, not through the barrier alone.
  for (CopyWaiter waiter :
       {CopyWaiter::Nobody, CopyWaiter::Issuer, CopyWaiter::Reader}) {
    LaunchSpec spec;
    spec.block = {64, 1, 1};
    spec.sharedBytes = kDataOffset + 32;
    spec.function = copyThenBarrier;
    spec.userData = &waiter;
    spec.raceCheck = true;
    spec.sites = {"bar", "tma write", "complete_tx", "wait", "read"};
    LaunchResult result = launch(spec);
    bool waited = waiter != CopyWaiter::Nobody;
    EXPECT_EQ(result.races, waited ? 0u : 1u) << joinReports(result);
    if (!waited) {
      EXPECT_TRUE(hasReportContaining(
          result, "write at tma write by a TMA copy completing on the "
                  "mbarrier at offset 0x0 and read at read by thread (32, 0, "
                  "0)"))
          << joinReports(result);
    }
  }
}

//===----------------------------------------------------------------------===//
// Race check mode
//===----------------------------------------------------------------------===//

TEST(CPURuntimeTest, MissingBarrierIsARace) {
  for (bool withBarrier : {true, false}) {
    LaunchSpec spec;
    spec.grid = {2, 1, 1};
    spec.block = {256, 1, 1};
    spec.sharedBytes = 1024;
    spec.function = reverseThroughShared;
    spec.workers = 2;
    spec.raceCheck = true;
    spec.sites = {"k.mlir:3:5: memref.store to memref<256xi32, 3>",
                  "k.mlir:5:9: memref.load from memref<256xi32, 3>",
                  "k.mlir:4:3: gpu.barrier", "k.mlir:6:3: gpu.barrier"};
    ReversalData data;
    data.rounds = 2;
    data.withBarrier = withBarrier;
    data.out.assign(512, 0);
    spec.userData = &data;
    LaunchResult result = launch(spec);
    if (withBarrier) {
      EXPECT_TRUE(result.ok()) << joinReports(result);
      EXPECT_EQ(result.races, 0u);
      continue;
    }
    EXPECT_GE(result.races, 1u);
    // Threads run in order until they block, so thread 127 reads word 128
    // before thread 128 writes it, and thread 128 reads word 127 after thread
    // 127 wrote it: the first occurrence of each kind of race.
    std::vector<std::string> expected = {
        "race on shared memory (byte offset 0x1fc of the block's shared "
        "memory): write at k.mlir:3:5: memref.store to memref<256xi32, 3> by "
        "thread (127, 0, 0) and read at k.mlir:5:9: memref.load from "
        "memref<256xi32, 3> by thread (128, 0, 0), block (0, 0, 0), with no "
        "barrier between them",
        "race on shared memory (byte offset 0x200 of the block's shared "
        "memory): read at k.mlir:5:9: memref.load from memref<256xi32, 3> by "
        "thread (127, 0, 0) and write at k.mlir:3:5: memref.store to "
        "memref<256xi32, 3> by thread (128, 0, 0), block (0, 0, 0), with no "
        "barrier between them"};
    EXPECT_EQ(result.races, 2u);
    EXPECT_EQ(result.reports, expected);
  }
}

/// Every thread writes word 0 (the same value, or its own), unordered.
void writeWordZero(void *userData, int64_t *context, void *arena) {
  bool sameValue = *static_cast<bool *>(userData);
  auto *words = static_cast<int32_t *>(arena);
  words[0] = sameValue ? 42 : static_cast<int32_t>(getThreadLinear(context));
  tile_rt_shared_access(addressOf(&words[0]), 4, /*site=*/0, /*kind=*/1);
}

TEST(CPURuntimeTest, WritesOfTheSameValueAreBenign) {
  for (bool sameValue : {true, false}) {
    LaunchSpec spec;
    spec.block = {64, 1, 1};
    spec.sharedBytes = 16;
    spec.function = writeWordZero;
    spec.raceCheck = true;
    spec.sites = {"k.mlir:3:5: memref.store"};
    spec.userData = &sameValue;
    LaunchResult result = launch(spec);
    EXPECT_EQ(result.races, sameValue ? 0u : 1u) << joinReports(result);
  }
}

/// Thread 0 zeroes word 0, then every thread adds to it atomically; with
/// `ordered`, a barrier separates the two.
void zeroThenAtomicAdd(void *userData, int64_t *context, void *arena) {
  bool ordered = *static_cast<bool *>(userData);
  auto *words = static_cast<int32_t *>(arena);
  if (getThreadLinear(context) == 0) {
    words[0] = 0;
    tile_rt_shared_access(addressOf(&words[0]), 4, /*site=*/0, /*kind=*/1);
  }
  if (ordered)
    tile_rt_barrier(1);
  tile_rt_shared_access(addressOf(&words[0]), 4, /*site=*/2, /*kind=*/2);
  words[0] += 1;
}

// Thread 0's own atomic after its plain write must not hide that write from
// the other threads' atomics (the split-K GEMV's zeroing).
TEST(CPURuntimeTest, PlainWriteRacesWithOtherThreadsAtomics) {
  for (bool ordered : {true, false}) {
    LaunchSpec spec;
    spec.block = {64, 1, 1};
    spec.sharedBytes = 16;
    spec.function = zeroThenAtomicAdd;
    spec.raceCheck = true;
    spec.sites = {"k.mlir:3:5: memref.store", "k.mlir:4:3: gpu.barrier",
                  "k.mlir:5:3: memref.atomic_rmw"};
    spec.userData = &ordered;
    LaunchResult result = launch(spec);
    EXPECT_EQ(result.races, ordered ? 0u : 1u) << joinReports(result);
  }
}

/// Thread 0 initializes an mbarrier; every thread arrives on it.
void initThenArrive(void *userData, int64_t *context, void *) {
  bool ordered = *static_cast<bool *>(userData);
  if (getThreadLinear(context) == 0)
    tile_rt_mbarrier_init(0, 64, /*site=*/0);
  if (ordered)
    tile_rt_barrier(1);
  tile_rt_mbarrier_arrive(0, /*site=*/2);
}

/// Every thread adds to word 0 atomically; thread 1 then reads it, after a
/// barrier when `ordered`.
void atomicThenRead(void *userData, int64_t *context, void *arena) {
  bool ordered = *static_cast<bool *>(userData);
  auto *words = static_cast<int32_t *>(arena);
  tile_rt_shared_access(addressOf(&words[0]), 4, /*site=*/0, /*kind=*/2);
  __atomic_fetch_add(&words[0], 1, __ATOMIC_RELAXED);
  if (ordered)
    tile_rt_barrier(1);
  if (getThreadLinear(context) == 1)
    tile_rt_shared_access(addressOf(&words[0]), 4, /*site=*/2, /*kind=*/0);
}

// Regression: thread 1's own atomic must not hide thread 0's from its read.
TEST(CPURuntimeTest, ReadRacesWithAnotherThreadsAtomic) {
  for (bool ordered : {true, false}) {
    LaunchSpec spec;
    spec.block = {2, 1, 1};
    spec.sharedBytes = 16;
    spec.function = atomicThenRead;
    spec.raceCheck = true;
    spec.sites = {"k.mlir:3:5: memref.atomic_rmw", "k.mlir:4:3: gpu.barrier",
                  "k.mlir:5:3: memref.load"};
    spec.userData = &ordered;
    LaunchResult result = launch(spec);
    EXPECT_EQ(result.races, ordered ? 0u : 1u) << joinReports(result);
  }
}

TEST(CPURuntimeTest, MBarrierUseBeforeOrderedInitIsARace) {
  for (bool ordered : {true, false}) {
    LaunchSpec spec;
    spec.block = {64, 1, 1};
    spec.sharedBytes = 16;
    spec.function = initThenArrive;
    spec.raceCheck = true;
    spec.sites = {"k.mlir:3:5: nvgpu.mbarrier.init", "k.mlir:4:3: gpu.barrier",
                  "k.mlir:5:3: nvgpu.mbarrier.arrive"};
    spec.userData = &ordered;
    LaunchResult result = launch(spec);
    EXPECT_EQ(result.races, ordered ? 0u : 1u) << joinReports(result);
  }
}

TEST(CPURuntimeTest, MBarrierWaitOrdersProducerAndConsumer) {
  for (bool consumerWaits : {true, false}) {
    PingPongData data;
    data.consumerWaits = consumerWaits;
    LaunchSpec spec;
    spec.block = {64, 1, 1};
    spec.sharedBytes = 32;
    spec.function = pingPong;
    spec.userData = &data;
    spec.raceCheck = true;
    spec.sites = {"bar", "wait empty", "store", "wait full", "load"};
    LaunchResult result = launch(spec);
    if (consumerWaits) {
      EXPECT_TRUE(result.ok()) << joinReports(result);
      continue;
    }
    EXPECT_GE(result.races, 1u);
    EXPECT_TRUE(hasReportContaining(result, "write at store by thread (0, 0, "
                                            "0) and read at load by thread "
                                            "(32, 0, 0)"))
        << joinReports(result);
  }
}

struct AtomicData {
  bool plainReader = false;
};

void addAtomically(void *userData, int64_t *context, void *arena) {
  auto &data = *static_cast<AtomicData *>(userData);
  auto *counter = static_cast<int32_t *>(arena);
  int64_t thread = getThreadLinear(context);
  if (data.plainReader && thread == 5) {
    tile_rt_shared_access(addressOf(counter), 4, 1, 0);
    return;
  }
  tile_rt_shared_access(addressOf(counter), 4, 0, 2);
  __atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

TEST(CPURuntimeTest, AtomicsDoNotRaceWithAtomics) {
  for (bool plainReader : {false, true}) {
    AtomicData data;
    data.plainReader = plainReader;
    LaunchSpec spec;
    spec.block = {64, 1, 1};
    spec.sharedBytes = 4;
    spec.function = addAtomically;
    spec.userData = &data;
    spec.raceCheck = true;
    spec.sites = {"atomic", "plain"};
    LaunchResult result = launch(spec);
    if (!plainReader) {
      EXPECT_TRUE(result.ok()) << joinReports(result);
      continue;
    }
    EXPECT_EQ(result.races, 2u) << joinReports(result);
    EXPECT_TRUE(hasReportContaining(
        result, "atomic read-modify-write at atomic by thread (3, 0, 0) and "
                "read at plain by thread (5, 0, 0)"))
        << joinReports(result);
    EXPECT_TRUE(hasReportContaining(
        result, "read at plain by thread (5, 0, 0) and atomic "
                "read-modify-write at atomic by thread (6, 0, 0)"))
        << joinReports(result);
  }
}

void shuffleIsNotSynchronization(void *, int64_t *context, void *arena) {
  auto *words = static_cast<int32_t *>(arena);
  int64_t thread = getThreadLinear(context);
  if (thread == 0) {
    tile_rt_shared_access(addressOf(words), 4, 0, 1);
    words[0] = 1;
  }
  tile_rt_shuffle(0, 1, 32, 0, 2);
  if (thread == 1)
    tile_rt_shared_access(addressOf(words), 4, 1, 0);
}

TEST(CPURuntimeTest, ShufflesDoNotOrderSharedMemory) {
  LaunchSpec spec;
  spec.block = {32, 1, 1};
  spec.sharedBytes = 4;
  spec.function = shuffleIsNotSynchronization;
  spec.raceCheck = true;
  spec.sites = {"store", "load", "shfl"};
  LaunchResult result = launch(spec);
  EXPECT_EQ(result.races, 1u);
  EXPECT_TRUE(hasReportContaining(result, "write at store by thread (0, 0, 0) "
                                          "and read at load by thread (1, 0, "
                                          "0)"))
      << joinReports(result);
}

//===----------------------------------------------------------------------===//
// Out-of-bounds reports
//===----------------------------------------------------------------------===//

void accessOutOfBounds(void *, int64_t *context, void *) {
  int64_t x = context[kThreadIdX];
  if (x >= 2)
    tile_rt_out_of_bounds(0, 2, x + 10, 7, 0, 0);
  if (context[kBlockIdX] == 1 && x == 3)
    tile_rt_out_of_bounds(1, 1, -1, 0, 0, 0);
}

TEST(CPURuntimeTest, OutOfBoundsReportNamesSiteIndexAndThread) {
  LaunchSpec spec;
  spec.grid = {3, 1, 1};
  spec.block = {4, 1, 1};
  spec.function = accessOutOfBounds;
  spec.workers = 2;
  spec.sites = {"k.mlir:7:3: memref.load from memref<8x8xf32>",
                "k.mlir:9:3: memref.store to memref<8xf32, 3>"};
  LaunchResult result = launch(spec);
  EXPECT_EQ(result.outOfBounds, 2u);
  std::vector<std::string> expected = {
      "out-of-bounds access at k.mlir:7:3: memref.load from memref<8x8xf32>: "
      "index [12, 7] by thread (2, 0, 0) of block (0, 0, 0)",
      "out-of-bounds access at k.mlir:9:3: memref.store to memref<8xf32, 3>: "
      "index [-1] by thread (3, 0, 0) of block (1, 0, 0)"};
  EXPECT_EQ(result.reports, expected);
}

//===----------------------------------------------------------------------===//
// Speed
//===----------------------------------------------------------------------===//

void manyBarriers(void *userData, int64_t *, void *) {
  int barriers = *static_cast<int *>(userData);
  for (int i = 0; i < barriers; ++i)
    tile_rt_barrier(0);
}

TEST(CPURuntimeTest, ThousandsOfBarriersAreFast) {
  int barriers = 1000;
  LaunchSpec spec;
  spec.grid = {64, 1, 1};
  spec.block = {256, 1, 1};
  spec.function = manyBarriers;
  spec.userData = &barriers;
  auto start = std::chrono::steady_clock::now();
  LaunchResult result = launch(spec);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  EXPECT_TRUE(result.ok()) << joinReports(result);
  // Every barrier is one switch into each fiber and one back.
  double switches = 2.0 * 64 * 256 * barriers;
  std::printf("64 blocks x 256 threads x %d barriers: %.3f s, %.1f M "
              "switches/s\n",
              barriers, seconds, switches / seconds / 1e6);
  EXPECT_LT(seconds, 3.0);
}

} // namespace
