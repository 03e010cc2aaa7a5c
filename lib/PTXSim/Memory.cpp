//===- Memory.cpp - State spaces, bounds and racecheck --------------------===//
//
// Global memory is host memory recorded as allocations (mgpuMemAlloc,
// registered host ranges, module variables, tensor maps); every access must
// lie inside one. Shared memory is laid out as ptxas does and starts
// poisoned (0xff bytes, a NaN as f32); each byte's shadow records its last
// write and unordered reads for racecheck (RaceCheck.cpp). The memory
// instructions (ld, st, atom, red, cvta) run here.
//
//===----------------------------------------------------------------------===//

#include "Arithmetic.h"
#include "Executor.h"

#include <cinttypes>
#include <cstdio>
#include <map>
#include <mutex>

namespace vx::ptxsim {

namespace {

std::mutex globalMutex;
std::map<uint64_t, uint64_t> globalRanges; // begin -> end

std::string hex(uint64_t value) {
  char text[32];
  std::snprintf(text, sizeof(text), "0x%" PRIx64, value);
  return text;
}

/// PTX ISA 9.7.13.5 (atom): the value an atomic operation leaves in memory
/// that held `old`, with operands `b` and (cas) `c`.
uint64_t getAtomicResult(const Instruction &instr, uint64_t old, uint64_t b,
                         uint64_t c) {
  uint64_t mask = maskOf(getTypeBytes(instr.type));
  switch (instr.subOp) {
  case SubOp::AtomAdd:
    return isFloat(instr.type) ? floatOp(Op::Add, instr, old, b, 0)
                               : (old + b) & mask;
  case SubOp::AtomMin:
  case SubOp::AtomMax: {
    Op op = instr.subOp == SubOp::AtomMin ? Op::Min : Op::Max;
    return isFloat(instr.type) ? floatOp(op, instr, old, b, 0)
                               : integerBinary(op, instr, old, b);
  }
  case SubOp::AtomInc:
    return (old & mask) >= (b & mask) ? 0 : old + 1;
  case SubOp::AtomDec:
    return (old & mask) == 0 || (old & mask) > (b & mask) ? b : old - 1;
  case SubOp::AtomCas:
    return (old & mask) == (b & mask) ? c : old;
  case SubOp::AtomExch:
    return b;
  case SubOp::AtomAnd:
    return old & b;
  case SubOp::AtomOr:
    return old | b;
  case SubOp::AtomXor:
    return old ^ b;
  default:
    return old;
  }
}

} // namespace

void addGlobalRange(const void *begin, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(globalMutex);
  uint64_t start = reinterpret_cast<uint64_t>(begin);
  uint64_t &end = globalRanges[start];
  end = std::max(end, start + bytes);
}

bool removeGlobalRange(const void *begin) {
  std::lock_guard<std::mutex> lock(globalMutex);
  return globalRanges.erase(reinterpret_cast<uint64_t>(begin)) != 0;
}

bool isGlobalRange(uint64_t address, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(globalMutex);
  auto next = globalRanges.upper_bound(address);
  if (next == globalRanges.begin())
    return false;
  auto range = std::prev(next);
  return address + bytes <= range->second;
}

bool Executor::isGlobal(uint64_t address, uint64_t bytes) {
  for (const auto &[begin, end] : globalCache)
    if (address >= begin && address + bytes <= end)
      return true;
  std::lock_guard<std::mutex> lock(globalMutex);
  auto next = globalRanges.upper_bound(address);
  if (next == globalRanges.begin())
    return false;
  auto range = std::prev(next);
  if (address + bytes > range->second)
    return false;
  constexpr size_t cacheSize = 8;
  if (globalCache.size() < cacheSize)
    globalCache.emplace_back(range->first, range->second);
  else
    globalCache[globalCacheNext++ % cacheSize] = {range->first, range->second};
  return true;
}

std::string Executor::describeShared(uint32_t offset) const {
  for (const Variable &var : layout.symbols)
    if (!var.isExtern && offset >= var.offset && offset < var.offset + var.size)
      return var.name + "+" + std::to_string(offset - var.offset);
  if (offset >= layout.dynamicOffset) {
    for (const Variable &var : layout.symbols)
      if (var.isExtern)
        return var.name + "+" + std::to_string(offset - var.offset);
    return "dynamic shared memory+" +
           std::to_string(offset - layout.dynamicOffset);
  }
  return "shared offset " + std::to_string(offset);
}

void Executor::resetShared() {
  size_t bytes = layout.dynamicOffset + dynamicSharedBytes;
  shared.assign(bytes, 0xff);
  shadow.assign(bytes, ByteShadow());
  // Every read set back to the pool, keeping its capacity for the next
  // block.
  freeReadSets.clear();
  for (uint32_t set = 0; set < readSets.size(); ++set) {
    readSets[set].clear();
    freeReadSets.push_back(set + 1);
  }
  pending.assign(bytes, 0);
  genericWriteEpoch.assign(bytes, 0);
  isMbarrier.assign(bytes, 0);
  mbarriers.clear();
  pendingBytes = 0;
  proxyFenceEpoch = 1;
  resetTensorCore();
}

uint8_t *Executor::translate(Thread &thread, const Instruction &instr,
                             Space space, uint64_t address, uint64_t bytes,
                             bool write, bool atomic, const uint8_t *stored) {
  if (address % bytes)
    fail(thread, instr,
         "misaligned access of " + std::to_string(bytes) + " bytes at " +
             hex(address));
  if (space == Space::Generic) {
    if (address - SharedWindow < WindowBytes) {
      space = Space::Shared;
      address -= SharedWindow;
    } else if (address - LocalWindow < WindowBytes) {
      space = Space::Local;
      address -= LocalWindow;
    } else {
      space = Space::Global;
    }
  }
  switch (space) {
  case Space::Shared:
    if (address + bytes > shared.size())
      fail(thread, instr,
           "out-of-bounds shared memory access of " + std::to_string(bytes) +
               " bytes at offset " + std::to_string(address) +
               " (the block has " + std::to_string(shared.size()) +
               " bytes: " + std::to_string(layout.staticBytes) + " static, " +
               std::to_string(dynamicSharedBytes) + " dynamic)");
    checkShared(thread, instr, static_cast<uint32_t>(address),
                static_cast<uint32_t>(bytes), write, atomic, stored);
    return shared.data() + address;
  case Space::Local:
    if (address + bytes > kernel.localBytes)
      fail(thread, instr,
           "out-of-bounds local memory access of " + std::to_string(bytes) +
               " bytes at offset " + std::to_string(address) +
               " (the frame has " + std::to_string(kernel.localBytes) +
               " bytes)");
    return thread.local + address;
  case Space::Param: {
    // The current frame's parameter space (Function::frameParamBytes).
    if (write && thread.frames.empty() && address < kernel.paramBytes)
      fail(thread, instr, "store to a kernel parameter");
    if (address + bytes > thread.function->frameParamBytes)
      fail(thread, instr,
           "out-of-bounds parameter access at offset " +
               std::to_string(address));
    return thread.paramStack.data() + thread.paramBase + address;
  }
  default:
    if (write && space == Space::Const)
      fail(thread, instr, "store to constant memory");
    if (!isGlobal(address, bytes))
      fail(thread, instr,
           "out-of-bounds global memory access of " + std::to_string(bytes) +
               " bytes at " + hex(address) +
               " (no allocation or registered host range contains it)");
    return reinterpret_cast<uint8_t *>(address);
  }
}

void Executor::checkShared(Thread &thread, const Instruction &instr,
                           uint32_t offset, uint32_t bytes, bool write,
                           bool atomic, const uint8_t *stored) {
  if (pendingBytes)
    for (uint32_t b = offset; b < offset + bytes; ++b)
      if (pending[b]) {
        bool tensor = pending[b] & TensorPending;
        std::string what = write ? "write to " : "read of ";
        fail(thread, instr,
             what +
                 (tensor ? "a TMA destination before its mbarrier phase "
                           "completed"
                         : "a cp.async destination before its wait_group") +
                 " (" + describeShared(b) + ", copied by " +
                 (tensor ? std::string("the TMA")
                         : describeThread(threads[pending[b] - 1])) +
                 ")");
      }
  if (write && wgmmaReadBytes)
    checkWgmmaOperandWrite(thread, instr, offset, bytes);
  if (write)
    for (uint32_t b = offset; b < offset + bytes; ++b) {
      if (isMbarrier[b])
        fail(thread, instr,
             "store into the live mbarrier at " + describeShared(b & ~7u));
      genericWriteEpoch[b] = proxyFenceEpoch;
    }
  // Atomics do not race with each other; racecheck watches plain accesses.
  if (!atomic)
    checkRace(thread, instr, offset, bytes, write, stored);
}

Step Executor::executeMemory(Thread &thread, const Instruction &instr) {
  const Operand *ops = instr.ops;
  const Function &function = *thread.function;
  unsigned bytes = getTypeBytes(instr.type);
  uint64_t mask = maskOf(bytes);
  switch (instr.op) {
  case Op::Ld: {
    unsigned count = ops[0].kind == Operand::Vector ? ops[0].vecCount : 1;
    const uint8_t *memory =
        translate(thread, instr, instr.space, getAddress(thread, ops[1]),
                  bytes * count, false, false);
    for (unsigned i = 0; i < count; ++i) {
      uint32_t reg = ops[0].kind == Operand::Vector
                         ? function.vectorRegs[ops[0].vecStart + i]
                         : ops[0].reg;
      if (reg == NoReg)
        continue;
      uint64_t bits = 0;
      std::memcpy(&bits, memory + i * bytes, bytes);
      if (isSigned(instr.type))
        bits = static_cast<uint64_t>(signExtend(bits, bytes)) &
               maskOf(getTypeBytes(function.regTypes[reg]));
      thread.regs[reg] = bits;
    }
    break;
  }
  case Op::St: {
    unsigned count = ops[1].kind == Operand::Vector ? ops[1].vecCount : 1;
    uint8_t data[64];
    for (unsigned i = 0; i < count; ++i) {
      uint64_t bits =
          ops[1].kind == Operand::Vector
              ? readElement(thread, function.vectorRegs[ops[1].vecStart + i])
              : read(thread, ops[1]);
      std::memcpy(data + i * bytes, &bits, bytes);
    }
    uint8_t *memory =
        translate(thread, instr, instr.space, getAddress(thread, ops[0]),
                  bytes * count, true, false, data);
    std::memcpy(memory, data, bytes * count);
    break;
  }
  case Op::Atom:
  case Op::Red: {
    // PTX ISA 9.7.13.5 (atom), 9.7.13.6 (red). Threads run one at a time,
    // so the read-modify-write is atomic.
    unsigned base = instr.op == Op::Atom ? 1 : 0;
    uint8_t *memory =
        translate(thread, instr, instr.space, getAddress(thread, ops[base]),
                  bytes, true, true);
    uint64_t old = 0;
    std::memcpy(&old, memory, bytes);
    uint64_t c =
        instr.subOp == SubOp::AtomCas ? read(thread, ops[base + 2]) : 0;
    uint64_t result =
        getAtomicResult(instr, old, read(thread, ops[base + 1]), c) & mask;
    std::memcpy(memory, &result, bytes);
    if (instr.op == Op::Atom)
      write(thread, ops[0], old & mask);
    break;
  }
  case Op::Cvta:
  case Op::CvtaTo: {
    // PTX ISA 9.7.9.17 (cvta): shared and local windows; global and
    // const addresses are the host's.
    uint64_t address = read(thread, ops[1]);
    uint64_t window = instr.space == Space::Shared  ? SharedWindow
                      : instr.space == Space::Local ? LocalWindow
                                                    : 0;
    if (instr.op == Op::Cvta) {
      write(thread, ops[0], (address + window) & mask);
      break;
    }
    if (window && (address < window || address >= window + WindowBytes))
      fail(thread, instr,
           "cvta.to converts a generic address outside the window of the "
           "space");
    write(thread, ops[0], (address - window) & mask);
    break;
  }
  default: // prefetch: a hint
    break;
  }
  return Step::Next;
}

} // namespace vx::ptxsim
