//===- RaceCheck.cpp - Shared-memory hazards between threads --------------===//
//
// Like compute-sanitizer racecheck: each thread has a vector clock; bar.sync
// and bar.warp.sync join the participants' clocks, an mbarrier arrival
// releases into its phase and a completed wait acquires it (the
// synchronizing operations of the PTX ISA 8 memory consistency model that
// are modeled). Each shared byte records its last write and the reads since
// that are not ordered before each other (at most one per thread); an
// access that conflicts with another thread's access not ordered before it
// is a race.
//
//===----------------------------------------------------------------------===//

#include "Executor.h"

#include <algorithm>

namespace vx::ptxsim {

void Executor::joinClocks(const std::vector<Thread *> &group) {
  std::vector<uint32_t> joined(numThreads, 0);
  for (Thread *thread : group)
    for (uint32_t i = 0; i < numThreads; ++i)
      joined[i] = std::max(joined[i], thread->clock[i]);
  for (Thread *thread : group) {
    std::copy(joined.begin(), joined.end(), thread->clock);
    ++thread->clock[thread->linear];
  }
}

bool Executor::isOrderedBefore(const Thread &thread,
                               const Access &access) const {
  return access.thread == NoThread || access.thread == thread.linear ||
         thread.clock[access.thread] >= access.clock;
}

const Access *Executor::findUnorderedRead(const Thread &thread,
                                          const ByteShadow &byte) const {
  for (const Access &read : byte.read)
    if (!isOrderedBefore(thread, read))
      return &read;
  if (byte.moreReads)
    for (const Access &read : readSets[byte.moreReads - 1])
      if (!isOrderedBefore(thread, read))
        return &read;
  return nullptr;
}

const Access *Executor::findUnorderedAccess(const Thread &thread,
                                            const ByteShadow &byte) const {
  if (!isOrderedBefore(thread, byte.write))
    return &byte.write;
  return findUnorderedRead(thread, byte);
}

void Executor::recordRead(const Thread &thread, ByteShadow &byte,
                          const Access &read) {
  // A read ordered after a recorded one may replace it: whatever is
  // ordered after the new read is ordered after the old one too.
  for (Access &slot : byte.read)
    if (isOrderedBefore(thread, slot)) {
      slot = read;
      return;
    }
  if (!byte.moreReads) {
    if (freeReadSets.empty()) {
      readSets.emplace_back();
      byte.moreReads = readSets.size();
    } else {
      byte.moreReads = freeReadSets.back();
      freeReadSets.pop_back();
    }
  }
  // Appended unchecked; when the set is full, the reads that the new one
  // is ordered after go first (amortized O(1): the set grows geometrically
  // only while its reads are unordered with the reader's).
  std::vector<Access> &reads = readSets[byte.moreReads - 1];
  if (reads.size() == reads.capacity())
    reads.erase(std::remove_if(reads.begin(), reads.end(),
                               [&](const Access &other) {
                                 return isOrderedBefore(thread, other);
                               }),
                reads.end());
  reads.push_back(read);
}

void Executor::clearReads(ByteShadow &byte) {
  byte.read[0] = byte.read[1] = Access();
  if (!byte.moreReads)
    return;
  readSets[byte.moreReads - 1].clear();
  freeReadSets.push_back(byte.moreReads);
  byte.moreReads = 0;
}

void Executor::checkRace(Thread &thread, const Instruction &instr,
                         uint32_t offset, uint32_t bytes, bool write,
                         const uint8_t *stored) {
  uint32_t self = thread.linear;
  auto race = [&](const Access &other, bool otherIsWrite, uint32_t b) {
    fail(thread, instr,
         std::string("race on shared memory ") + describeShared(b) + ": " +
             (write ? "write" : "read") + " conflicts with a " +
             (otherIsWrite ? "write" : "read") + " by " +
             describeThread(threads[other.thread]) + " at PTX line " +
             std::to_string(other.line) + ": " +
             getLineText(module, other.line) +
             ", with no barrier between them");
  };
  Access selfAccess{static_cast<uint16_t>(self), thread.clock[self],
                    instr.line};
  for (uint32_t b = offset; b < offset + bytes; ++b) {
    ByteShadow &byte = shadow[b];
    // Like racecheck, a store of the value the byte already holds is no
    // hazard (threads that all write the same data).
    bool sameValue = write && stored && stored[b - offset] == shared[b];
    if (!isOrderedBefore(thread, byte.write) && !sameValue)
      race(byte.write, true, b);
    if (!write) {
      recordRead(thread, byte, selfAccess);
      continue;
    }
    if (!sameValue)
      if (const Access *read = findUnorderedRead(thread, byte))
        race(*read, false, b);
    byte.write = selfAccess;
    clearReads(byte);
  }
}

} // namespace vx::ptxsim
