//===- Async.cpp - cp.async, mbarriers, TMA and proxy fences --------------===//
//
// Asynchronous copies land as late as the PTX rules allow, so that a read
// that does not wait for them sees it:
// - cp.async (PTX ISA 9.7.9.25.3) at the issuing thread's cp.async
//   wait_group / wait_all that covers its group;
// - cp.async.bulk.tensor (PTX ISA 9.7.9.25.5) when its mbarrier's phase
//   completes (PTX ISA 9.7.13.15: pending arrivals and the tx-count both
//   reach zero, the copies' complete_tx counting their bytes).
// Until they land, their destination bytes are pending and any access is an
// error. The async proxy rules (PTX ISA 8.6 proxies, 9.7.13.4 fence.proxy)
// are checked where a TMA is issued: its mbarrier's initialization fenced,
// its tensor map acquired, its destination not written by the generic
// proxy since the last fence.proxy.async and not overlapping a live
// mbarrier. The other fences (fence.sc, membar) order nothing more: threads
// run one at a time.
//
//===----------------------------------------------------------------------===//

#include "Executor.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace vx::ptxsim {

namespace {

std::string hex(uint64_t value) {
  char text[32];
  std::snprintf(text, sizeof(text), "0x%" PRIx64, value);
  return text;
}

} // namespace

uint32_t Executor::getSharedOffset(Thread &thread, const Instruction &instr,
                                   const Operand &operand, uint32_t bytes) {
  uint64_t address = getAddress(thread, operand);
  if (instr.space == Space::Generic) {
    if (address - SharedWindow >= WindowBytes)
      fail(thread, instr,
           "the address " + hex(address) + " is not in shared memory");
    address -= SharedWindow;
  }
  if (address % bytes)
    fail(thread, instr,
         "misaligned shared address " + std::to_string(address) + " (needs " +
             std::to_string(bytes) + "-byte alignment)");
  if (address + bytes > shared.size())
    fail(thread, instr,
         "out-of-bounds shared memory access of " + std::to_string(bytes) +
             " bytes at offset " + std::to_string(address) +
             " (the block has " + std::to_string(shared.size()) + " bytes)");
  return static_cast<uint32_t>(address);
}

void Executor::issueCpAsync(Thread &thread, const Instruction &instr) {
  // cp.async.ca/cg.shared.global [dst], [src], cp-size{, src-size};
  uint32_t bytes = static_cast<uint32_t>(instr.ops[2].imm);
  if (bytes != 4 && bytes != 8 && bytes != 16)
    fail(thread, instr, "cp.async copies 4, 8 or 16 bytes");
  uint32_t sourceBytes = bytes;
  if (instr.numOps >= 4 && instr.ops[3].kind != Operand::None) {
    const Operand &size = instr.ops[3];
    sourceBytes = static_cast<uint32_t>(
        size.kind == Operand::Reg ? thread.regs[size.reg] : size.imm);
    if (sourceBytes > bytes)
      fail(thread, instr, "cp.async source size exceeds the copy size");
  }
  Instruction shared = instr;
  shared.space = Space::Shared;
  uint32_t offset = getSharedOffset(thread, shared, instr.ops[0], bytes);
  uint64_t source = getAddress(thread, instr.ops[1]);
  if (sourceBytes)
    translate(thread, instr, Space::Global, source, bytes, false, false);
  // The write is checked (and recorded) at issue, the earliest it may
  // land, and recorded again when it lands.
  checkShared(thread, instr, offset, bytes, /*write=*/true, false, nullptr);
  for (uint32_t b = offset; b < offset + bytes; ++b)
    pending[b] = thread.linear + 1;
  pendingBytes += bytes;
  thread.copies.push_back({offset, bytes, sourceBytes, source, instr.line});
}

void Executor::landCpAsync(Thread &thread, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    const AsyncCopy &copy = thread.copies[i];
    std::memset(shared.data() + copy.sharedOffset, 0, copy.bytes);
    if (copy.sourceBytes)
      std::memcpy(shared.data() + copy.sharedOffset,
                  reinterpret_cast<const void *>(copy.source),
                  copy.sourceBytes);
    for (uint32_t b = copy.sharedOffset; b < copy.sharedOffset + copy.bytes;
         ++b) {
      pending[b] = 0;
      genericWriteEpoch[b] = proxyFenceEpoch;
      shadow[b].write = {static_cast<uint16_t>(thread.linear),
                         thread.clock[thread.linear], copy.line};
    }
    pendingBytes -= copy.bytes;
  }
  thread.copies.erase(thread.copies.begin(), thread.copies.begin() + count);
  for (size_t &end : thread.groupEnds)
    end -= std::min(end, count);
}

void Executor::waitCpAsync(Thread &thread, const Instruction &instr) {
  if (instr.op == Op::CpAsyncWaitAll) {
    landCpAsync(thread, thread.copies.size());
    thread.groupEnds.clear();
    return;
  }
  // wait_group N: all but the N most recent committed groups are complete.
  uint64_t keep = static_cast<uint64_t>(instr.ops[0].imm);
  if (thread.groupEnds.size() <= keep)
    return;
  size_t done = thread.groupEnds.size() - keep;
  size_t count = thread.groupEnds[done - 1];
  thread.groupEnds.erase(thread.groupEnds.begin(),
                         thread.groupEnds.begin() + done);
  landCpAsync(thread, count);
}

Mbarrier &Executor::getMbarrier(Thread &thread, const Instruction &instr,
                                uint32_t offset) {
  auto found = mbarriers.find(offset);
  if (found == mbarriers.end())
    fail(thread, instr,
         "mbarrier operation on " + describeShared(offset) +
             ", which holds no initialized mbarrier");
  Mbarrier &barrier = found->second;
  if (barrier.initThread != thread.linear &&
      thread.clock[barrier.initThread] < barrier.initClock)
    fail(thread, instr,
         "the mbarrier at " + describeShared(offset) +
             " is used before its initialization (PTX line " +
             std::to_string(barrier.initLine) + " by " +
             describeThread(threads[barrier.initThread]) +
             ") is visible: no barrier between them");
  return barrier;
}

bool Executor::isPhaseComplete(const Mbarrier &barrier, uint64_t token,
                               bool parity) const {
  if (parity)
    return (barrier.phase & 1) != (token & 1);
  return barrier.phase != token;
}

void Executor::completePhase(Mbarrier &barrier) {
  ++barrier.phase;
  barrier.pending = barrier.expected;
  barrier.completedClock = barrier.arrivalClock;
  std::fill(barrier.arrivalClock.begin(), barrier.arrivalClock.end(), 0);
  ++progressEpoch;
}

void Executor::tryCompletePhase(Mbarrier &barrier) {
  // A phase with no copies to wait for completes at its last arrival; one
  // with copies in flight completes when someone observes it (settlePhase).
  if (barrier.pending <= 0 && barrier.txCount == 0 && barrier.inFlight.empty())
    completePhase(barrier);
}

void Executor::settlePhase(Mbarrier &barrier) {
  int64_t inFlight = 0;
  for (const TensorCopy &copy : barrier.inFlight)
    inFlight += copy.bytes;
  if (barrier.pending > 0 || inFlight < barrier.txCount)
    return;
  // The copies land now, the latest moment the phase allows: a wait, or
  // the next phase's first operation, observes it.
  while (barrier.txCount > 0 && !barrier.inFlight.empty()) {
    TensorCopy copy = barrier.inFlight.front();
    barrier.inFlight.erase(barrier.inFlight.begin());
    landTensorCopy(copy);
    barrier.txCount -= copy.bytes;
  }
  if (barrier.txCount == 0)
    completePhase(barrier);
}

void Executor::executeMbarrier(Thread &thread, const Instruction &instr) {
  // PTX ISA 9.7.13.15 (mbarrier).
  const Operand *ops = instr.ops;
  auto value = [&](const Operand &operand) -> uint64_t {
    return operand.kind == Operand::Reg ? thread.regs[operand.reg]
                                        : static_cast<uint64_t>(operand.imm);
  };
  if (instr.op == Op::MbarInit) {
    uint32_t offset = getSharedOffset(thread, instr, ops[0], 8);
    checkShared(thread, instr, offset, 8, /*write=*/true, false, nullptr);
    Mbarrier &barrier = mbarriers[offset];
    barrier = Mbarrier();
    uint64_t count = value(ops[1]);
    if (count < 1 || count > (1u << 20) - 1)
      fail(thread, instr,
           "mbarrier expected count " + std::to_string(count) +
               " is out of range (1 to 2^20-1)");
    barrier.expected = static_cast<uint32_t>(count);
    barrier.pending = static_cast<int64_t>(count);
    barrier.initThread = thread.linear;
    barrier.initClock = thread.clock[thread.linear];
    barrier.initLine = instr.line;
    barrier.arrivalClock.assign(numThreads, 0);
    barrier.completedClock.assign(numThreads, 0);
    std::fill(isMbarrier.begin() + offset, isMbarrier.begin() + offset + 8, 1);
    ++progressEpoch;
    return;
  }
  unsigned addressIndex =
      instr.op == Op::MbarInval || instr.op == Op::MbarExpectTx ? 0 : 1;
  uint32_t offset = getSharedOffset(thread, instr, ops[addressIndex], 8);
  Mbarrier &barrier = getMbarrier(thread, instr, offset);
  settlePhase(barrier);
  switch (instr.op) {
  case Op::MbarInval:
    std::fill(isMbarrier.begin() + offset, isMbarrier.begin() + offset + 8, 0);
    mbarriers.erase(offset);
    ++progressEpoch;
    return;
  case Op::MbarExpectTx:
    barrier.txCount += static_cast<int64_t>(value(ops[1]));
    tryCompletePhase(barrier);
    ++progressEpoch;
    return;
  case Op::MbarArrive: {
    int64_t count = 1;
    if (instr.flags & FlagExpectTx)
      barrier.txCount += static_cast<int64_t>(value(ops[2]));
    else if (instr.numOps >= 3)
      count = static_cast<int64_t>(value(ops[2]));
    if (ops[0].kind == Operand::Reg)
      thread.regs[ops[0].reg] = barrier.phase;
    if (count > barrier.pending)
      fail(thread, instr,
           "arrival on the mbarrier at " + describeShared(offset) +
               " beyond its pending count (" + std::to_string(barrier.pending) +
               " of " + std::to_string(barrier.expected) + ")");
    barrier.pending -= count;
    if (instr.flags & FlagDrop)
      --barrier.expected;
    // The arrival releases this thread's earlier accesses to the waiters.
    for (uint32_t i = 0; i < numThreads; ++i)
      barrier.arrivalClock[i] =
          std::max(barrier.arrivalClock[i], thread.clock[i]);
    ++thread.clock[thread.linear];
    if (!(instr.flags & FlagNoComplete))
      tryCompletePhase(barrier);
    ++progressEpoch;
    return;
  }
  default:
    break;
  }
  // test_wait / try_wait: waitComplete, [addr], state-or-parity.
  uint64_t token = value(ops[2]);
  bool parity = instr.flags & FlagParity;
  if (isPhaseComplete(barrier, token, parity)) {
    for (uint32_t i = 0; i < numThreads; ++i)
      thread.clock[i] = std::max(thread.clock[i], barrier.completedClock[i]);
    if (ops[0].kind == Operand::Reg)
      thread.regs[ops[0].reg] = 1;
    thread.pollEpoch = ~0ull;
    return;
  }
  if (instr.op == Op::MbarTestWait && thread.pollEpoch != progressEpoch) {
    // A non-blocking poll answers false and lets the others run; polling
    // again with nothing changed blocks until the phase completes.
    if (ops[0].kind == Operand::Reg)
      thread.regs[ops[0].reg] = 0;
    thread.pollEpoch = progressEpoch;
    ++thread.pc;
    return;
  }
  // try_wait suspends until the phase completes (its time limit is not
  // modeled), then runs again.
  thread.state = ThreadState::AtMbarrier;
  thread.mbarrier = offset;
  thread.syncValue[0] = token;
}

void Executor::fence(Thread &thread, bool proxyAsync) {
  // Both make this thread's mbarrier.inits visible to the async proxy;
  // fence.proxy.async also orders the generic proxy's earlier writes before
  // later async-proxy operations (PTX ISA 9.7.13.4).
  if (proxyAsync)
    ++proxyFenceEpoch;
  for (auto &entry : mbarriers)
    if (entry.second.initThread == thread.linear)
      entry.second.fenced = true;
}

void Executor::issueTensorCopy(Thread &thread, const Instruction &instr) {
  // cp.async.bulk.tensor.Nd.shared::cluster.global.mbarrier::complete_tx::
  // bytes [dst], [tensorMap, {coordinates}], [mbar];
  const Operand *ops = instr.ops;
  uint64_t mapAddress = getAddress(thread, ops[1]);
  if (mapAddress % 64)
    fail(thread, instr,
         "tensor map at " + hex(mapAddress) + " is not 64-byte aligned");
  if (!isGlobalRange(mapAddress, sizeof(TensorMap)))
    fail(thread, instr,
         "tensor map at " + hex(mapAddress) + " is not in global memory");
  TensorMap map;
  std::memcpy(&map, reinterpret_cast<const void *>(mapAddress), sizeof(map));
  if (map.magic != TensorMapMagic)
    fail(thread, instr,
         "the operand at " + hex(mapAddress) +
             " is not a tensor map from mgpuTensorMapEncodeTiledMemref");
  if (std::find(thread.acquiredTensorMaps.begin(),
                thread.acquiredTensorMaps.end(),
                mapAddress) == thread.acquiredTensorMaps.end())
    fail(thread, instr,
         "tensor map at " + hex(mapAddress) +
             " used without a prior fence.proxy.tensormap::generic.acquire "
             "(or prefetch.tensormap) of its address by this thread");
  if (map.rank != instr.dims || ops[2].vecCount != instr.dims)
    fail(thread, instr,
         "a " + std::to_string(instr.dims) + "-d copy with a rank-" +
             std::to_string(map.rank) + " tensor map");
  uint64_t bytes = map.elementBytes;
  for (unsigned d = 0; d < map.rank; ++d)
    bytes *= map.box[d];
  Instruction shared = instr;
  shared.space = Space::Shared;
  uint32_t offset = getSharedOffset(thread, shared, ops[0], 128);
  if (offset + bytes > this->shared.size())
    fail(thread, instr,
         "TMA destination " + describeShared(offset) + " + " +
             std::to_string(bytes) + " bytes is out of bounds of the " +
             std::to_string(this->shared.size()) + " bytes of shared memory");
  uint32_t mbarrierOffset = getSharedOffset(thread, shared, ops[3], 8);
  Mbarrier &barrier = getMbarrier(thread, instr, mbarrierOffset);
  if (!barrier.fenced)
    fail(thread, instr,
         "the mbarrier at " + describeShared(mbarrierOffset) +
             " (initialized at PTX line " + std::to_string(barrier.initLine) +
             ") is used by the async proxy without a "
             "fence.mbarrier_init.release.cluster or fence.proxy.async "
             "after its initialization");
  if (wgmmaReadBytes)
    checkWgmmaOperandWrite(thread, instr, offset, bytes);
  uint32_t self = thread.linear;
  for (uint32_t b = offset; b < offset + bytes; ++b) {
    if (isMbarrier[b])
      fail(thread, instr,
           "TMA destination overlaps mbarrier at " + describeShared(b & ~7u) +
               " (destination " + describeShared(offset) + ", " +
               std::to_string(bytes) + " bytes)");
    if (pending[b])
      fail(thread, instr,
           "TMA destination " + describeShared(b) +
               " overlaps an asynchronous copy that has not landed");
    if (genericWriteEpoch[b] == proxyFenceEpoch)
      fail(thread, instr,
           "TMA write into " + describeShared(b) +
               ", which the generic proxy wrote (PTX line " +
               std::to_string(shadow[b].write.line) +
               ") with no fence.proxy.async since");
    // Earlier generic accesses of the destination must be ordered before
    // the copy is issued.
    if (const Access *access = findUnorderedAccess(thread, shadow[b]))
      fail(thread, instr,
           "race on shared memory " + describeShared(b) +
               ": the TMA write conflicts with an access by " +
               describeThread(threads[access->thread]) + " at PTX line " +
               std::to_string(access->line) + ": " +
               getLineText(module, access->line) +
               ", with no barrier between them");
  }
  TensorCopy copy;
  copy.sharedOffset = offset;
  copy.bytes = static_cast<uint32_t>(bytes);
  copy.thread = self;
  copy.line = instr.line;
  copy.map = map;
  for (unsigned d = 0; d < map.rank; ++d)
    copy.coords[d] = static_cast<int32_t>(
        thread.regs[thread.function->vectorRegs[ops[2].vecStart + d]]);
  std::fill(pending.begin() + offset, pending.begin() + offset + bytes,
            TensorPending | mbarrierOffset);
  pendingBytes += bytes;
  barrier.inFlight.push_back(copy);
  tryCompletePhase(barrier);
  ++progressEpoch;
}

void Executor::landTensorCopy(const TensorCopy &copy) {
  // PTX ISA 5.5 (tensors): the bounding box, innermost dimension first, is
  // stored densely; elements outside the tensor are zero. Its swizzling
  // modes XOR the 16-byte chunk index with the 128-byte row index
  // (swizzleSharedOffset).
  const TensorMap &map = copy.map;
  unsigned elementBytes = map.elementBytes;
  uint64_t elements = copy.bytes / elementBytes;
  for (uint64_t linear = 0; linear < elements; ++linear) {
    uint64_t rest = linear;
    bool inside = true;
    uint64_t address = map.address;
    int64_t coordinates[5];
    for (unsigned d = 0; d < map.rank; ++d) {
      int64_t index = static_cast<int64_t>(rest % map.box[d]);
      rest /= map.box[d];
      int64_t coordinate = copy.coords[d] + index;
      coordinates[d] = coordinate;
      if (coordinate < 0 || coordinate >= static_cast<int64_t>(map.dims[d]))
        inside = false;
      else
        address += coordinate * (d == 0 ? elementBytes : map.strides[d - 1]);
    }
    uint64_t target = swizzleSharedOffset(
        copy.sharedOffset + linear * elementBytes, map.swizzle);
    if (target + elementBytes > shared.size())
      fail(threads[copy.thread], copy.line,
           "swizzled TMA destination past the end of shared memory");
    uint8_t *destination = shared.data() + target;
    if (!inside) {
      std::memset(destination, 0, elementBytes);
      continue;
    }
    if (!isGlobal(address, elementBytes)) {
      // Name the element as the PTX does (innermost first) and the usual
      // cause: a host tensor the kernel reaches without registering it.
      std::string element;
      for (unsigned d = 0; d < map.rank; ++d)
        element += (d ? "," : "") + std::to_string(coordinates[d]);
      fail(threads[copy.thread], copy.line,
           "TMA source element {" + element + "} of the tensor at " +
               hex(map.address) + " (" + hex(address) +
               ") is outside every allocation (host memory not "
               "registered, or freed?)");
    }
    std::memcpy(destination, reinterpret_cast<const void *>(address),
                elementBytes);
  }
  for (uint32_t b = copy.sharedOffset; b < copy.sharedOffset + copy.bytes;
       ++b) {
    pending[b] = 0;
    clearReads(shadow[b]);
    shadow[b].write = Access();
  }
  pendingBytes -= copy.bytes;
}

Step Executor::executeAsync(Thread &thread, const Instruction &instr) {
  switch (instr.op) {
  case Op::CpAsync:
    issueCpAsync(thread, instr);
    break;
  case Op::CpAsyncCommit:
    thread.groupEnds.push_back(thread.copies.size());
    break;
  case Op::CpAsyncWait:
  case Op::CpAsyncWaitAll:
    waitCpAsync(thread, instr);
    break;
  case Op::MbarInit:
  case Op::MbarInval:
  case Op::MbarArrive:
  case Op::MbarExpectTx:
  case Op::MbarTestWait:
  case Op::MbarTryWait: {
    uint32_t pc = thread.pc;
    executeMbarrier(thread, instr);
    // Blocked, or a failed poll that moved on and lets the others run.
    if (thread.state != ThreadState::Runnable || thread.pc != pc)
      return Step::Yield;
    break;
  }
  case Op::CpAsyncBulkTensor:
    issueTensorCopy(thread, instr);
    break;
  case Op::FenceProxyAsync:
  case Op::FenceMbarrierInit:
    fence(thread, instr.op == Op::FenceProxyAsync);
    break;
  case Op::FenceTensormapAcquire:
  case Op::PrefetchTensormap:
    thread.acquiredTensorMaps.push_back(getAddress(thread, instr.ops[0]));
    break;
  default: // fence.sc, fence.acq_rel, membar
    break;
  }
  return Step::Next;
}

} // namespace vx::ptxsim
