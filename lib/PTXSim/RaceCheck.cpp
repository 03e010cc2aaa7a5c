//===- RaceCheck.cpp - Shared-memory hazards between threads --------------===//
//
// Like compute-sanitizer racecheck: each thread has a vector clock; bar.sync
// and bar.warp.sync join the participants' clocks, an mbarrier arrival
// releases into its phase and a completed wait acquires it (the
// synchronizing operations of the PTX ISA 8 memory consistency model that
// are modeled). Each shared byte records its last write and up to two
// reads not ordered before each other; an access that conflicts with
// another thread's access not ordered before it is a race.
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

void Executor::checkRace(Thread &thread, const Instruction &instr,
                         uint32_t offset, uint32_t bytes, bool write,
                         const uint8_t *stored) {
  uint32_t self = thread.linear;
  auto ordered = [&](const Access &access) {
    return isOrderedBefore(thread, access);
  };
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
    if (!ordered(byte.write) &&
        !(write && stored && stored[b - offset] == shared[b]))
      race(byte.write, true, b);
    if (write) {
      // Like racecheck, a store of the value the byte already holds is no
      // hazard (threads that all write the same data).
      bool sameValue = stored && stored[b - offset] == shared[b];
      for (const Access &read : byte.read)
        if (!ordered(read) && !sameValue)
          race(read, false, b);
      byte.write = selfAccess;
      byte.read[0] = byte.read[1] = Access();
      continue;
    }
    // Keep the reads a later write must be ordered after: the first slot
    // while this read is ordered after it, else the second.
    byte.read[ordered(byte.read[0]) ? 0 : 1] = selfAccess;
  }
}

} // namespace vx::ptxsim
