//===- Executor.h - Running one CTA of a launch -----------------*- C++ -*-===//
//
// A CTA's threads run one at a time, each until its next synchronization
// point (bar.sync, shfl.sync, vote.sync, bar.warp.sync, a blocking mbarrier
// wait, exit); the scheduler then releases what can be released and runs
// the runnable threads again, in the launch's order. Shared memory carries
// shadow state for racecheck (vector clocks), pending asynchronous copies
// and the proxy-fence rules.
//
//===----------------------------------------------------------------------===//

#ifndef VX_LIB_PTXSIM_EXECUTOR_H
#define VX_LIB_PTXSIM_EXECUTOR_H

#include "Program.h"
#include "Vx/PTXSim/PTXSim.h"

#include <random>
#include <unordered_map>

namespace vx::ptxsim {

/// Generic addresses of the shared and local windows (cvta): above the
/// 47-bit user address space of x86-64 and AArch64 Linux, so no host
/// pointer (global memory) can fall inside them.
constexpr uint64_t SharedWindow = 0x0001000000000000ull;
constexpr uint64_t LocalWindow = 0x0002000000000000ull;
constexpr uint64_t WindowBytes = 0x100000000ull;

/// The simulator's own tensor map (CUtensorMap is 128 opaque bytes): what
/// cuTensorMapEncodeTiled takes, dimensions innermost first.
struct TensorMap {
  uint32_t magic;
  uint8_t rank, dataType, interleave, swizzle;
  uint8_t l2Promotion, oobFill, elementBytes, reserved;
  uint32_t reserved2;
  uint64_t address;
  uint64_t dims[5];
  uint64_t strides[4]; // bytes, of dimensions 1..rank-1
  uint32_t box[5];     // element strides are 1 (Vx's maps)
  uint32_t padding[3];
};
static_assert(sizeof(TensorMap) == 128, "a CUtensorMap is 128 bytes");
constexpr uint32_t TensorMapMagic = 0x56584d50; // "VXMP"

enum class ThreadState : uint8_t {
  Runnable,
  AtBarrier,
  AtWarpSync,
  AtMbarrier,
  AtTensorCore, // ldmatrix, stmatrix, mma.sync, wgmma.mma_async
  Exited,
};

/// The shared-memory offset a swizzled layout puts `offset` at (PTX ISA
/// 5.5.2 tensor swizzling modes; what TMA writes and wgmma reads): the
/// 16-byte chunk index (bits 4..6) XORed with bits 7..9, `bits` of them:
/// 1, 2 or 3 for the 32B, 64B and 128B modes, 0 for none.
inline uint64_t swizzleSharedOffset(uint64_t offset, unsigned bits) {
  uint64_t mask = (1u << bits) - 1;
  return offset ^ (((offset >> 7) & mask) << 4);
}

/// A wgmma.mma_async of one thread, between its issue and the
/// wgmma.wait_group that completes it (TensorCore.cpp).
struct WgmmaInFlight {
  uint64_t id;    // the warpgroup's operation, for its shared-memory reads
  uint32_t group; // the thread's commit count when it was issued
  uint32_t line;
  std::vector<uint32_t> registers; // its accumulator and A registers
};

/// A thread's wgmma state, tracked from its first wgmma instruction: per
/// register of the entry, the line of the in-flight wgmma.mma_async that
/// uses it (0: none).
struct WgmmaState {
  bool tracking = false;
  bool fenced = false; // a wgmma.fence ran
  std::vector<uint32_t> inFlightLine;
  std::vector<WgmmaInFlight> inFlight; // oldest first
  uint32_t commits = 0;
};

/// A cp.async of one thread, landing at its wait_group.
struct AsyncCopy {
  uint32_t sharedOffset;
  uint32_t bytes;
  uint32_t sourceBytes; // the rest is zero-filled
  uint64_t source;
  uint32_t line;
};

/// A cp.async.bulk.tensor in flight, landing when its mbarrier phase
/// completes.
struct TensorCopy {
  uint32_t sharedOffset;
  uint32_t bytes;
  uint32_t thread;
  uint32_t line;
  TensorMap map;
  int32_t coords[5];
};

/// The caller's state while a .func runs (PTX ISA 9.7.12.3 call).
struct Frame {
  const Function *function;
  uint32_t returnPc;
  uint32_t callSite;
  size_t regBase;   // into Thread::stackRegs; the entry's are elsewhere
  size_t paramBase; // into Thread::paramStack
};

struct Thread {
  const Function *function = nullptr; // the function running
  uint32_t pc = 0;
  // Since the thread last resumed: a loop without a synchronization point
  // that runs too long is an endless loop (Executor::executeControl).
  uint64_t backwardBranches = 0;
  ThreadState state = ThreadState::Runnable;
  uint32_t linear = 0;
  uint32_t tid[3] = {0, 0, 0};
  uint64_t *regs = nullptr; // the current frame's registers
  uint8_t *local = nullptr;
  std::vector<Frame> frames;
  std::vector<uint64_t> stackRegs;   // registers of called functions
  std::vector<uint8_t> paramStack;   // parameter space of every frame
  size_t regBase = 0, paramBase = 0; // the current frame's
  uint32_t *clock = nullptr;         // this thread's vector clock
  // What a blocked thread waits for.
  uint32_t barrier = 0;
  uint32_t barrierCount = 0;
  uint32_t memberMask = 0;
  uint32_t mbarrier = 0;
  uint32_t parity = 0;
  uint64_t syncValue[3] = {0, 0, 0}; // shfl a, b, c / vote predicate
  uint32_t exitLine = 0;
  // cp.async groups: copies issued, and the end of each committed group.
  std::vector<AsyncCopy> copies;
  std::vector<size_t> groupEnds;
  std::vector<uint64_t> acquiredTensorMaps;
  WgmmaState wgmma;
  // The last failed mbarrier.test_wait: a poll loop that sees no change
  // while nothing else can run is a deadlock, not an endless loop.
  uint64_t pollEpoch = ~0ull;
};

/// An mbarrier object (PTX ISA 9.7.13.15.1): its current phase's pending
/// arrivals and transaction count, and the async copies it waits for.
struct Mbarrier {
  uint32_t expected = 0;
  int64_t pending = 0;
  int64_t txCount = 0;
  uint64_t phase = 0;
  uint32_t initThread = 0;
  uint32_t initClock = 0;
  uint32_t initLine = 0;
  bool fenced = false;                // fence.mbarrier_init / proxy.async
  std::vector<uint32_t> arrivalClock; // join of this phase's arrivals
  std::vector<uint32_t> completedClock;
  std::vector<TensorCopy> inFlight;
};

/// Racecheck's record of one shared byte: its last write and the reads
/// since that a later write must be ordered after. Two fit inline; more
/// reads, each unordered with all the others (at most one per thread),
/// go to a set of the executor's pool (`moreReads` is its index + 1).
constexpr uint16_t NoThread = 0xffff;
struct Access {
  uint16_t thread = NoThread;
  uint32_t clock = 0;
  uint32_t line = 0;
};
struct ByteShadow {
  Access write, read[2];
  uint32_t moreReads = 0;
};

/// What the dispatch loop (Executor::runThread) does after an instruction.
enum class Step : uint8_t {
  Next,  // run the next instruction
  Jump,  // run from thread.pc (and thread.function), which it set
  Yield, // stop running the thread: blocked, exited or polling
};

class Executor {
public:
  Executor(const Module &module, const Function &kernel, const uint32_t grid[3],
           const uint32_t block[3], uint32_t dynamicSharedBytes,
           std::vector<uint8_t> params, const LaunchOptions &options);
  void run();

private:
  // Interpreter.cpp: the scheduler and the dispatch loop.
  void runBlock();
  void runThread(Thread &thread);
  /// Runs one instruction whose guard holds, by its family.
  Step execute(Thread &thread, const Instruction &instr);
  // The instruction families, each one function over its opcodes.
  // Interpreter.cpp: bra, call, ret, exit, trap, nop.
  Step executeControl(Thread &thread, const Instruction &instr);
  // Interpreter.cpp: bar.sync, shfl.sync, vote.sync, bar.warp.sync.
  Step executeSync(Thread &thread, const Instruction &instr);
  // ExecuteArithmetic.cpp: integer and float arithmetic.
  Step executeArithmetic(Thread &thread, const Instruction &instr);
  // ExecuteArithmetic.cpp: logic, shifts and bit fields.
  Step executeBits(Thread &thread, const Instruction &instr);
  // ExecuteArithmetic.cpp: setp, selp, mov, cvt.
  Step executeCompareMove(Thread &thread, const Instruction &instr);
  // Memory.cpp: ld, st, atom, red, cvta, prefetch.
  Step executeMemory(Thread &thread, const Instruction &instr);
  // Async.cpp: cp.async, mbarrier, the bulk tensor copy, proxy fences.
  Step executeAsync(Thread &thread, const Instruction &instr);

  /// The bits of a source operand: a register (`!%p` negated), an
  /// immediate or a special register.
  uint64_t read(const Thread &thread, const Operand &operand) const {
    switch (operand.kind) {
    case Operand::Reg:
      return operand.negate ? !thread.regs[operand.reg]
                            : thread.regs[operand.reg];
    case Operand::Imm:
      return static_cast<uint64_t>(operand.imm);
    case Operand::Special:
      return readSpecial(thread, operand.special);
    default:
      return 0;
    }
  }
  /// Writes a destination operand; a sink `_` drops the bits.
  static void write(Thread &thread, const Operand &operand, uint64_t bits) {
    if (operand.kind == Operand::Reg)
      thread.regs[operand.reg] = bits;
  }
  /// The bits of element `reg` of a vector operand (Function::vectorRegs):
  /// a register, an immediate, or 0 for `_`.
  static uint64_t readElement(const Thread &thread, uint32_t reg) {
    return reg == NoReg        ? 0
           : reg & ConstantBit ? thread.function->constants[reg & ~ConstantBit]
                               : thread.regs[reg];
  }
  /// The address an `[reg+offset]` operand names.
  static uint64_t getAddress(const Thread &thread, const Operand &operand) {
    return operand.reg == NoReg ? operand.imm
                                : thread.regs[operand.reg] + operand.imm;
  }

  void call(Thread &thread, const Instruction &instr);
  void returnFromCall(Thread &thread);
  bool releaseBlocked();
  bool releaseBarrier(uint32_t id);
  bool releaseWarp(Thread &first);
  [[noreturn]] void reportDeadlock();
  uint64_t readSpecial(const Thread &thread, Special special) const;
  [[noreturn]] void fail(const Thread &thread, uint32_t line,
                         const std::string &what) const;
  [[noreturn]] void fail(const Thread &thread, const Instruction &instr,
                         const std::string &what) const {
    fail(thread, instr.line, what);
  }
  std::string describeThread(const Thread &thread) const;
  std::string describeWait(const Thread &thread) const;

  // Memory.cpp
  uint8_t *translate(Thread &thread, const Instruction &instr, Space space,
                     uint64_t address, uint64_t bytes, bool write, bool atomic,
                     const uint8_t *stored = nullptr);
  void checkShared(Thread &thread, const Instruction &instr, uint32_t offset,
                   uint32_t bytes, bool write, bool atomic,
                   const uint8_t *stored);
  bool isGlobal(uint64_t address, uint64_t bytes);
  std::string describeShared(uint32_t offset) const;
  void resetShared();

  // RaceCheck.cpp
  void joinClocks(const std::vector<Thread *> &group);
  bool isOrderedBefore(const Thread &thread, const Access &access) const;
  /// The first recorded read of `byte` that is not ordered before
  /// `thread`'s next access, or null.
  const Access *findUnorderedRead(const Thread &thread,
                                  const ByteShadow &byte) const;
  /// The same for its write, then its reads.
  const Access *findUnorderedAccess(const Thread &thread,
                                    const ByteShadow &byte) const;
  void recordRead(const Thread &thread, ByteShadow &byte, const Access &read);
  /// Forgets the reads of `byte`, returning its set to the pool.
  void clearReads(ByteShadow &byte);
  void checkRace(Thread &thread, const Instruction &instr, uint32_t offset,
                 uint32_t bytes, bool write, const uint8_t *stored);

  // Async.cpp
  void issueCpAsync(Thread &thread, const Instruction &instr);
  void landCpAsync(Thread &thread, size_t count);
  void waitCpAsync(Thread &thread, const Instruction &instr);
  uint32_t getSharedOffset(Thread &thread, const Instruction &instr,
                           const Operand &operand, uint32_t bytes);
  void executeMbarrier(Thread &thread, const Instruction &instr);
  Mbarrier &getMbarrier(Thread &thread, const Instruction &instr,
                        uint32_t offset);
  void completePhase(Mbarrier &barrier);
  void tryCompletePhase(Mbarrier &barrier);
  void settlePhase(Mbarrier &barrier);
  bool isPhaseComplete(const Mbarrier &barrier, uint64_t token,
                       bool parity) const;
  void issueTensorCopy(Thread &thread, const Instruction &instr);
  void landTensorCopy(const TensorCopy &copy);
  void fence(Thread &thread, bool proxyAsync);

  // TensorCore.cpp
  /// Releases the warp (warpgroup) collective `first` waits at when every
  /// member has reached it, executing it.
  bool releaseTensorCore(Thread &first);
  [[noreturn]] void reportTensorCoreDeadlock(Thread &thread);
  void executeWgmmaSync(Thread &thread, const Instruction &instr);
  /// A non-wgmma instruction's register accesses, checked against the
  /// thread's in-flight wgmma.mma_async operands.
  void checkWgmmaRegisters(Thread &thread, const Instruction &instr);
  /// A generic write into the shared operand of an in-flight wgmma.
  void checkWgmmaOperandWrite(Thread &thread, const Instruction &instr,
                              uint32_t offset, uint32_t bytes);
  void resetTensorCore();
  std::vector<Thread *> getCollectiveMembers(Thread &first);
  void executeMatrixLoadStore(const std::vector<Thread *> &warp,
                              const Instruction &instr);
  void executeMmaSync(const std::vector<Thread *> &warp,
                      const Instruction &instr);
  void executeWgmma(const std::vector<Thread *> &group,
                    const Instruction &instr);
  /// Reads a `rows` x 16 wgmma operand through its matrix descriptor into
  /// `values` (row-major), appending the 16-byte chunks it reads.
  void readWgmmaOperand(Thread &issuer, const Instruction &instr,
                        uint64_t descriptor, bool transposed, unsigned rows,
                        std::vector<float> &values,
                        std::vector<uint32_t> &chunks);

  const Module &module;
  const Function &kernel;
  const SharedLayout &layout;
  uint32_t grid[3], block[3];
  uint32_t dynamicSharedBytes;
  std::vector<uint8_t> params;
  LaunchOptions options;
  std::mt19937_64 random;

  uint32_t ctaid[3] = {0, 0, 0};
  uint32_t numThreads;
  std::vector<Thread> threads;
  std::vector<uint64_t> registers;
  std::vector<uint8_t> localMemory;
  std::vector<uint32_t> clocks; // numThreads x numThreads

  std::vector<uint8_t> shared;
  std::vector<ByteShadow> shadow;
  std::vector<std::vector<Access>> readSets; // ByteShadow::moreReads
  std::vector<uint32_t> freeReadSets;
  // Per shared byte: 0, or the owner of an async copy that has not landed
  // (thread + 1 for cp.async, mbarrier offset | TensorPending for TMA).
  std::vector<uint32_t> pending;
  uint64_t pendingBytes = 0;
  // Per shared byte: the proxy-fence epoch of its last generic write.
  std::vector<uint32_t> genericWriteEpoch;
  uint32_t proxyFenceEpoch = 1;
  std::vector<uint8_t> isMbarrier;
  // Per shared byte: how many in-flight wgmma.mma_async read it; the chunks
  // (16-byte offsets) of each operation that a wait has not completed.
  std::vector<uint16_t> wgmmaReaders;
  uint64_t wgmmaReadBytes = 0;
  std::unordered_map<uint64_t, std::vector<uint32_t>> wgmmaReads;
  uint64_t nextWgmma = 0;
  std::unordered_map<uint32_t, Mbarrier> mbarriers;
  // Bumped whenever something another thread may observe changes.
  uint64_t progressEpoch = 0;
  // The global ranges this launch has used (begin, end), so that most
  // accesses need no lookup under the registry's lock.
  std::vector<std::pair<uint64_t, uint64_t>> globalCache;
  size_t globalCacheNext = 0;
};

constexpr uint32_t TensorPending = 0x80000000u;

} // namespace vx::ptxsim

#endif // VX_LIB_PTXSIM_EXECUTOR_H
