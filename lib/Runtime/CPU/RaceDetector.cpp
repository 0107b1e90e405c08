//===- RaceDetector.cpp - Shared-memory race detection --------------------===//

#include "RaceDetector.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

using namespace tile::cpu;

namespace {

const char *getKindName(AccessKind kind) {
  switch (kind) {
  case AccessKind::Read:
    return "read";
  case AccessKind::Write:
    return "write";
  case AccessKind::Atomic:
    return "atomic read-modify-write";
  }
  return "access";
}

} // namespace

std::string tile::cpu::describeSite(const std::vector<std::string> &sites,
                                    int32_t site) {
  if (site >= 0 && static_cast<size_t>(site) < sites.size())
    return sites[site];
  if (site < 0)
    return "<unknown site>";
  return "<site " + std::to_string(site) + ">";
}

std::string tile::cpu::formatIndex(const std::array<int64_t, 3> &index) {
  return "(" + std::to_string(index[0]) + ", " + std::to_string(index[1]) +
         ", " + std::to_string(index[2]) + ")";
}

std::array<int64_t, 3>
tile::cpu::delinearize(int64_t linear, const std::array<int64_t, 3> &blockDim) {
  return {linear % blockDim[0], (linear / blockDim[0]) % blockDim[1],
          linear / (blockDim[0] * blockDim[1])};
}

void RaceDetector::configure(uint64_t arenaBytes,
                             const std::array<int64_t, 3> &blockDim,
                             const std::vector<std::string> *sites) {
  this->sites = sites;
  this->blockDim = blockDim;
  threads = static_cast<unsigned>(blockDim[0] * blockDim[1] * blockDim[2]);
  slots = threads + kAsyncAgents;
  agentBarriers.clear();
  shadow.assign(arenaBytes, ShadowByte());
  generation = 1;
  clocks.assign(static_cast<size_t>(slots) * slots, 0);
  for (unsigned slot = 0; slot < slots; ++slot)
    clockRow(slot)[slot] = 1;
  clocksUsed = false;
}

void RaceDetector::resetShadow() {
  std::fill(shadow.begin(), shadow.end(), ShadowByte());
  generation = 1;
}

void RaceDetector::beginBlock(int64_t linearBlock,
                              const std::array<int64_t, 3> &blockId) {
  this->linearBlock = linearBlock;
  this->blockId = blockId;
  ++epoch;
  // Generations order all records of earlier blocks; only a wrap needs the
  // shadow cleared.
  if (generation >= UINT32_MAX - 1)
    resetShadow();
  ++generation;
  blockGeneration = generation;
  agentBarriers.clear();
  if (clocksUsed) {
    std::fill(clocks.begin(), clocks.end(), 0);
    for (unsigned slot = 0; slot < slots; ++slot)
      clockRow(slot)[slot] = 1;
    clocksUsed = false;
  }
}

bool RaceDetector::isOrdered(const Access &access, unsigned thread) {
  if (access.thread == kNoThread || access.generation < blockGeneration ||
      access.thread == thread)
    return true;
  // A TMA copy's writes are ordered only through its mbarrier: by clocks,
  // whatever barriers came since.
  if (access.generation < generation && !isAgent(access.thread))
    return true;
  return clockRow(thread)[access.thread] >= access.clock;
}

void RaceDetector::onBarrier() {
  ++generation;
  if (!clocksUsed || agentBarriers.empty())
    return;
  // What any thread knew of the copies, every thread knows now.
  for (unsigned agent = threads; agent < threads + agentBarriers.size();
       ++agent) {
    uint32_t known = 0;
    for (unsigned thread = 0; thread < threads; ++thread)
      known = std::max(known, clockRow(thread)[agent]);
    for (unsigned thread = 0; thread < threads; ++thread)
      clockRow(thread)[agent] = known;
  }
}

void RaceDetector::report(const Access &first, AccessKind secondKind,
                          unsigned thread, int32_t site, uint64_t offset) {
  RaceKey key{first.kind, secondKind, first.site, site};
  if (races.count(key))
    return;
  char offsetText[32];
  std::snprintf(offsetText, sizeof(offsetText), "0x%" PRIx64, offset);
  std::string text = "race on shared memory (byte offset ";
  text += offsetText;
  text += " of the block's shared memory): ";
  text += getKindName(first.kind);
  text += " at " + describeSite(*sites, first.site) + " by " +
          describeAccessor(first.thread) + " and ";
  text += getKindName(secondKind);
  text += " at " + describeSite(*sites, site) + " by " +
          describeAccessor(thread) + ", block " + formatIndex(blockId) +
          ", with no barrier between them";
  races.emplace(key, FirstReport{linearBlock, std::move(text)});
}

void RaceDetector::onAccess(unsigned thread, uint64_t offset, uint64_t bytes,
                            int32_t site, AccessKind kind,
                            const uint8_t *written) {
  Access current;
  current.generation = generation;
  current.clock = clockRow(thread)[thread];
  current.site = site;
  current.thread = static_cast<uint16_t>(thread);
  current.kind = kind;
  uint64_t end = std::min<uint64_t>(offset + bytes, shadow.size());
  for (uint64_t byte = offset; byte < end; ++byte) {
    ShadowByte &cell = shadow[byte];
    if (kind == AccessKind::Read) {
      if (!isOrdered(cell.write, thread))
        report(cell.write, kind, thread, site, byte);
      for (const Access &atomic : cell.atomics)
        if (!isOrdered(atomic, thread))
          report(atomic, kind, thread, site, byte);
      // Keep the reads most likely to race with a later write.
      remember(cell.reads, current, thread);
      continue;
    }
    // A write, plain or atomic, conflicts with plain accesses; atomics do
    // not conflict with each other.
    bool sameValue = written && cell.write.hasValue &&
                     cell.write.value == written[byte - offset];
    if (!sameValue && !isOrdered(cell.write, thread))
      report(cell.write, kind, thread, site, byte);
    for (const Access &read : cell.reads)
      if (!isOrdered(read, thread))
        report(read, kind, thread, site, byte);
    if (kind == AccessKind::Atomic) {
      remember(cell.atomics, current, thread);
      continue;
    }
    for (const Access &atomic : cell.atomics)
      if (!isOrdered(atomic, thread))
        report(atomic, kind, thread, site, byte);
    // A later access that races with a cleared record either races with this
    // write too or is ordered after it, and then after the record.
    cell.write = current;
    cell.write.hasValue = written != nullptr;
    cell.write.value = written ? written[byte - offset] : 0;
    cell.atomics[0] = Access();
    cell.atomics[1] = Access();
    cell.reads[0] = Access();
    cell.reads[1] = Access();
  }
}

void RaceDetector::remember(Access (&slots)[2], const Access &current,
                            unsigned thread) {
  // Replace this thread's own record, else one the current access is ordered
  // after, else the older one; the slot written becomes the newest.
  bool replaceOlder =
      slots[0].thread == thread ||
      (slots[1].thread != thread &&
       (isOrdered(slots[0], thread) || !isOrdered(slots[1], thread)));
  if (replaceOlder)
    slots[0] = slots[1];
  slots[1] = current;
}

std::string RaceDetector::describeAccessor(unsigned slot) const {
  if (slot < threads)
    return "thread " + formatIndex(delinearize(slot, blockDim));
  char text[32];
  std::snprintf(text, sizeof(text), "0x%" PRIx32,
                agentBarriers[slot - threads]);
  return std::string("a TMA copy completing on the mbarrier at offset ") +
         text;
}

RaceDetector::MBarrierClocks &RaceDetector::getMBarrier(uint32_t offset) {
  MBarrierClocks &mbarrier = mbarriers[offset];
  if (mbarrier.epoch != epoch) {
    mbarrier.epoch = epoch;
    mbarrier.pending.assign(slots, 0);
    mbarrier.completed[0].assign(slots, 0);
    mbarrier.completed[1].assign(slots, 0);
  }
  return mbarrier;
}

unsigned RaceDetector::beginAsyncCopy(unsigned thread, uint32_t offset) {
  auto known = std::find(agentBarriers.begin(), agentBarriers.end(), offset);
  if (known == agentBarriers.end()) {
    if (agentBarriers.size() == kAsyncAgents)
      return thread;
    agentBarriers.push_back(offset);
    known = agentBarriers.end() - 1;
  }
  unsigned agent = threads + static_cast<unsigned>(known - agentBarriers.begin());
  // The copy starts after everything its issuer did so far.
  uint32_t *row = clockRow(agent);
  const uint32_t *issuer = clockRow(thread);
  for (unsigned other = 0; other < slots; ++other)
    if (other != agent)
      row[other] = std::max(row[other], issuer[other]);
  clocksUsed = true;
  return agent;
}

void RaceDetector::onMBarrierInit(unsigned thread, uint32_t offset) {
  MBarrierClocks &mbarrier = getMBarrier(offset);
  uint32_t *row = clockRow(thread);
  // Initialization releases the initializer's accesses to the first phase.
  mbarrier.pending.assign(row, row + slots);
  std::fill(mbarrier.completed[0].begin(), mbarrier.completed[0].end(), 0);
  std::fill(mbarrier.completed[1].begin(), mbarrier.completed[1].end(), 0);
  ++row[thread];
  clocksUsed = true;
}

void RaceDetector::onMBarrierArrive(unsigned thread, uint32_t offset,
                                    int completedParity) {
  MBarrierClocks &mbarrier = getMBarrier(offset);
  uint32_t *row = clockRow(thread);
  for (unsigned other = 0; other < slots; ++other)
    mbarrier.pending[other] = std::max(mbarrier.pending[other], row[other]);
  ++row[thread];
  clocksUsed = true;
  if (completedParity < 0)
    return;
  std::vector<uint32_t> &completed = mbarrier.completed[completedParity];
  completed.swap(mbarrier.pending);
  std::fill(mbarrier.pending.begin(), mbarrier.pending.end(), 0);
}

void RaceDetector::onMBarrierWait(unsigned thread, uint32_t offset,
                                  bool parity) {
  auto it = mbarriers.find(offset);
  if (it == mbarriers.end() || it->second.epoch != epoch)
    return;
  const std::vector<uint32_t> &completed = it->second.completed[parity];
  uint32_t *row = clockRow(thread);
  for (unsigned other = 0; other < slots; ++other)
    row[other] = std::max(row[other], completed[other]);
  clocksUsed = true;
}
