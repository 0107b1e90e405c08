//===- RaceDetector.h - Shared-memory race detection ------------*- C++ -*-===//
//
// Finds pairs of shared-memory accesses by two threads of one block that
// conflict (at least one writes, and not both atomic) and are not ordered by
// synchronization. Happens-before comes from two sources:
//
// - Block barriers order every thread's accesses before them before
//   everything after them. Because every live thread takes part in every
//   barrier, a block-wide barrier generation stored in each access record
//   is enough: a thread's record from an older generation is ordered, at
//   O(1) per barrier. (A TMA copy's records are not: see below.)
// - mbarriers order an arriving thread's earlier accesses before the accesses
//   of a thread whose wait saw that phase complete. They are tracked with
//   vector clocks (one entry per thread of the block), allocated and touched
//   only when a block uses mbarriers.
// - A TMA copy's writes are its own, not its issuing thread's: they are
//   made by an agent (one more clock entry per mbarrier that copies
//   complete on) that starts from the issuer's clock and releases them only
//   to the waiters of its mbarrier's phase. So a thread that waited for
//   another copy's mbarrier, even one issued later by the same thread, is
//   not ordered after them, nor is a thread that only passed a block
//   barrier: the barrier hands on what the waiters saw (it joins the
//   threads' clock entries of the agents), not the copy itself.
//
// Warp shuffles are not synchronization: CUDA's memory model does not order
// memory through shfl.
//
// The shadow holds, per byte of the arena, the last write and up to two reads
// by different threads. Records of earlier blocks need no clearing: a new
// block starts a new barrier generation, which orders them all.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_RACEDETECTOR_H
#define TILE_RUNTIME_RACEDETECTOR_H

#include "tile/Runtime/CPURuntimeABI.h"
#include <array>
#include <cstdint>

#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace tile::cpu {

/// Describes site `site` of `sites` for reports.
std::string describeSite(const std::vector<std::string> &sites, int32_t site);

/// Formats a thread or block index as "(x, y, z)".
std::string formatIndex(const std::array<int64_t, 3> &index);

/// Returns the (x, y, z) index of linear thread `linear` in a block of shape
/// `blockDim`.
std::array<int64_t, 3> delinearize(int64_t linear,
                                   const std::array<int64_t, 3> &blockDim);

/// The first occurrence of a report on one worker. Merging keeps the one of
/// the lowest block, so the result does not depend on how blocks were spread
/// over workers.
struct FirstReport {
  int64_t block = 0;
  std::string text;
};

/// Identifies a race for deduplication: the earlier and the later access.
struct RaceKey {
  AccessKind firstKind;
  AccessKind secondKind;
  int32_t firstSite;
  int32_t secondSite;

  bool operator<(const RaceKey &other) const {
    return std::tie(firstKind, secondKind, firstSite, secondSite) <
           std::tie(other.firstKind, other.secondKind, other.firstSite,
                    other.secondSite);
  }
  bool operator==(const RaceKey &other) const {
    return firstKind == other.firstKind && secondKind == other.secondKind &&
           firstSite == other.firstSite && secondSite == other.secondSite;
  }
};

/// The race state of one worker, reused for all the blocks it runs.
class RaceDetector {
public:
  /// Sizes the shadow for `arenaBytes` of shared memory and blocks of shape
  /// `blockDim`; `sites` describes site ids in reports and must outlive this.
  void configure(uint64_t arenaBytes, const std::array<int64_t, 3> &blockDim,
                 const std::vector<std::string> *sites);

  /// Starts block `linearBlock` with index `blockId`.
  void beginBlock(int64_t linearBlock, const std::array<int64_t, 3> &blockId);

  /// A block barrier released every waiting thread. It orders the threads'
  /// accesses before it before theirs after it, and passes on what each
  /// thread knew of the TMA copies (a waiter's view of a completed copy),
  /// but orders no copy by itself: a copy lands when its mbarrier says so.
  void onBarrier();

  /// Thread `thread` accesses `bytes` bytes at arena offset `offset`. For a
  /// write, `written` is what the bytes hold after it (writes are reported
  /// once done): two unordered writes of the same value are benign, as
  /// CUDA's racecheck counts them, and not reported.
  void onAccess(unsigned thread, uint64_t offset, uint64_t bytes, int32_t site,
                AccessKind kind, const uint8_t *written = nullptr);

  /// Thread `thread` initialized the mbarrier at arena offset `offset`.
  void onMBarrierInit(unsigned thread, uint32_t offset);
  /// Thread `thread` arrived on the mbarrier at `offset` (or released its
  /// copies to the current phase); `completedParity` is the parity of the
  /// phase this arrival completed, or -1 when it completed none.
  void onMBarrierArrive(unsigned thread, uint32_t offset, int completedParity);
  /// Thread `thread` saw the phase with parity `parity` of the mbarrier at
  /// `offset` complete.
  void onMBarrierWait(unsigned thread, uint32_t offset, bool parity);
  /// Thread `thread` issues a TMA copy completing on the mbarrier at
  /// `offset`: returns the agent whose accesses (onAccess) and completion
  /// (onMBarrierArrive) the copy's are, ordered after what the thread did
  /// so far. When the block has used up its agents, the thread itself.
  unsigned beginAsyncCopy(unsigned thread, uint32_t offset);

  /// The races found, each with its first occurrence.
  const std::map<RaceKey, FirstReport> &getRaces() const { return races; }

private:
  static constexpr uint16_t kNoThread = 0xffff;

  /// One access as the shadow remembers it.
  struct Access {
    uint32_t generation = 0;
    uint32_t clock = 0;
    int32_t site = -1;
    uint16_t thread = kNoThread;
    AccessKind kind = AccessKind::Read;
    /// Writes: the byte written, when known.
    bool hasValue = false;
    uint8_t value = 0;
  };
  struct ShadowByte {
    /// The last plain write.
    Access write;
    /// The last atomic read-modify-writes, by up to two threads, oldest
    /// first. Kept apart from the plain write: a thread's atomic after its
    /// own plain write must not hide that write from the other threads'
    /// atomics, nor another thread's atomic from its own later read.
    Access atomics[2];
    /// Oldest first.
    Access reads[2];
  };
  /// Vector clocks of one mbarrier, valid for the block `epoch`.
  struct MBarrierClocks {
    uint64_t epoch = 0;
    std::vector<uint32_t> pending;
    std::vector<uint32_t> completed[2];
  };

  /// Clock entries past the threads' for TMA copies, one per mbarrier.
  static constexpr unsigned kAsyncAgents = 16;
  uint32_t *clockRow(unsigned slot) { return &clocks[slot * slots]; }
  /// Whether `slot` is a TMA copy's agent rather than a thread.
  bool isAgent(unsigned slot) const { return slot >= threads; }
  /// "thread (x, y, z)", or the TMA copy an agent slot stands for.
  std::string describeAccessor(unsigned slot) const;
  bool isOrdered(const Access &access, unsigned thread);
  /// Keeps `current` in `slots` (two records of different threads, oldest
  /// first), dropping this thread's own, else one ordered before it, else
  /// the older.
  void remember(Access (&slots)[2], const Access &current, unsigned thread);
  void report(const Access &first, AccessKind secondKind, unsigned thread,
              int32_t site, uint64_t offset);
  MBarrierClocks &getMBarrier(uint32_t offset);
  void resetShadow();

  const std::vector<std::string> *sites = nullptr;
  std::array<int64_t, 3> blockDim = {1, 1, 1};
  unsigned threads = 1;
  /// Threads and agents: the clocks' rows and columns.
  unsigned slots = 1;
  /// The mbarrier (arena offset) of each agent of the block, by slot -
  /// threads.
  std::vector<uint32_t> agentBarriers;
  std::vector<ShadowByte> shadow;
  uint32_t generation = 1;
  /// The generation the current block started with: every record of an
  /// older one is an earlier block's.
  uint32_t blockGeneration = 1;

  int64_t linearBlock = 0;
  std::array<int64_t, 3> blockId = {0, 0, 0};
  uint64_t epoch = 0;

  /// threads x threads entries: row t is thread t's vector clock. Own entries
  /// start at 1 so that a clock never seen by another thread is unordered.
  std::vector<uint32_t> clocks;
  /// Whether clocks differ from their initial state.
  bool clocksUsed = false;
  std::unordered_map<uint32_t, MBarrierClocks> mbarriers;

  std::map<RaceKey, FirstReport> races;
};

} // namespace tile::cpu

#endif // TILE_RUNTIME_RACEDETECTOR_H
