//===- Interpreter.cpp - Threads, warps and barriers of a CTA -------------===//
//
// Each thread runs the decoded instructions until a synchronization point;
// the scheduler releases barriers (PTX ISA 9.7.13.1 bar/barrier), warp
// collectives (9.7.8.6 shfl.sync, 9.7.13.8 vote.sync, 9.7.13.2
// bar.warp.sync) and mbarrier waits when every thread they need has
// arrived, and reports a deadlock, naming the threads, when nothing can
// run. runThread's loop hands each instruction to its family's execute
// function: control flow and synchronization here, the others in
// ExecuteArithmetic.cpp, Memory.cpp and Async.cpp.
//
//===----------------------------------------------------------------------===//

#include "Arithmetic.h"
#include "Executor.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace vx::ptxsim {

uint64_t Executor::readSpecial(const Thread &thread, Special special) const {
  switch (special) {
  case Special::TidX:
  case Special::TidY:
  case Special::TidZ:
    return thread
        .tid[static_cast<int>(special) - static_cast<int>(Special::TidX)];
  case Special::NtidX:
  case Special::NtidY:
  case Special::NtidZ:
    return block[static_cast<int>(special) - static_cast<int>(Special::NtidX)];
  case Special::CtaidX:
  case Special::CtaidY:
  case Special::CtaidZ:
    return ctaid[static_cast<int>(special) - static_cast<int>(Special::CtaidX)];
  case Special::NctaidX:
  case Special::NctaidY:
  case Special::NctaidZ:
    return grid[static_cast<int>(special) - static_cast<int>(Special::NctaidX)];
  case Special::Laneid:
    return thread.linear % 32;
  case Special::Warpid:
    return thread.linear / 32;
  case Special::NWarpid:
    return (numThreads + 31) / 32;
  case Special::Smid:
  case Special::ClusterCtarank:
    return 0;
  case Special::ClusterNctarank:
    return 1;
  case Special::DynamicSmemSize:
    return dynamicSharedBytes;
  case Special::TotalSmemSize:
    return shared.size();
  case Special::Clock:
  case Special::Clock64:
  case Special::Globaltimer:
    // No timing model: a counter that only moves forward.
    return progressEpoch * 1000 + thread.pc;
  case Special::LanemaskEq:
    return 1u << (thread.linear % 32);
  case Special::LanemaskLt:
    return (1u << (thread.linear % 32)) - 1;
  case Special::LanemaskLe:
    return (2ull << (thread.linear % 32)) - 1;
  case Special::LanemaskGt:
    return ~((2ull << (thread.linear % 32)) - 1) & 0xffffffffu;
  case Special::LanemaskGe:
    return ~((1ull << (thread.linear % 32)) - 1) & 0xffffffffu;
  }
  return 0;
}

std::string Executor::describeThread(const Thread &thread) const {
  std::ostringstream out;
  out << "thread (" << thread.tid[0] << "," << thread.tid[1] << ","
      << thread.tid[2] << ")";
  return out.str();
}

void Executor::fail(const Thread &thread, uint32_t line,
                    const std::string &what) const {
  std::ostringstream out;
  out << "vx_ptx_sim: error: kernel " << kernel.name << ", block (" << ctaid[0]
      << "," << ctaid[1] << "," << ctaid[2] << "), " << describeThread(thread)
      << ": " << what << " at PTX line " << line << ": "
      << getLineText(module, line);
  throw SimError(out.str());
}

Executor::Executor(const Module &module, const Function &kernel,
                   const uint32_t grid[3], const uint32_t block[3],
                   uint32_t dynamicSharedBytes, std::vector<uint8_t> params,
                   const LaunchOptions &options)
    : module(module), kernel(kernel), layout(module.sharedLayouts.at(&kernel)),
      dynamicSharedBytes(dynamicSharedBytes), params(std::move(params)),
      options(options), random(options.seed) {
  for (int i = 0; i < 3; ++i) {
    this->grid[i] = grid[i];
    this->block[i] = block[i];
  }
  numThreads = block[0] * block[1] * block[2];
}

void Executor::run() {
  // Blocks run one after another, in the launch's order too: a kernel
  // whose blocks depend on each other's order shows it.
  uint64_t blocks = uint64_t(grid[0]) * grid[1] * grid[2];
  std::vector<uint64_t> order(blocks);
  for (uint64_t i = 0; i < blocks; ++i)
    order[i] = i;
  if (options.order == Order::Reverse)
    std::reverse(order.begin(), order.end());
  else if (options.order == Order::Shuffle)
    std::shuffle(order.begin(), order.end(), random);
  for (uint64_t index : order) {
    ctaid[0] = index % grid[0];
    ctaid[1] = index / grid[0] % grid[1];
    ctaid[2] = index / (uint64_t(grid[0]) * grid[1]);
    runBlock();
  }
}

void Executor::runBlock() {
  threads.assign(numThreads, Thread());
  registers.assign(static_cast<size_t>(numThreads) * kernel.numRegs, 0);
  // Uninitialized local memory holds the poison pattern, like shared.
  localMemory.assign(static_cast<size_t>(numThreads) * kernel.localBytes, 0xff);
  clocks.assign(static_cast<size_t>(numThreads) * numThreads, 0);
  resetShared();
  for (uint32_t i = 0; i < numThreads; ++i) {
    Thread &thread = threads[i];
    thread.linear = i;
    thread.tid[0] = i % block[0];
    thread.tid[1] = (i / block[0]) % block[1];
    thread.tid[2] = i / (block[0] * block[1]);
    thread.function = &kernel;
    thread.regs = registers.data() + static_cast<size_t>(i) * kernel.numRegs;
    // The entry's parameter space: the launch's arguments, then the
    // (poisoned) .param variables of its calls.
    thread.paramStack.assign(kernel.frameParamBytes, 0xff);
    std::copy(params.begin(), params.end(), thread.paramStack.begin());
    thread.local =
        localMemory.data() + static_cast<size_t>(i) * kernel.localBytes;
    thread.clock = clocks.data() + static_cast<size_t>(i) * numThreads;
    thread.clock[i] = 1;
  }
  std::vector<Thread *> runnable;
  for (;;) {
    runnable.clear();
    bool allExited = true;
    for (Thread &thread : threads) {
      if (thread.state == ThreadState::Runnable)
        runnable.push_back(&thread);
      allExited &= thread.state == ThreadState::Exited;
    }
    if (allExited)
      return;
    if (runnable.empty()) {
      if (!releaseBlocked())
        reportDeadlock();
      continue;
    }
    if (options.order == Order::Reverse)
      std::reverse(runnable.begin(), runnable.end());
    else if (options.order == Order::Shuffle)
      std::shuffle(runnable.begin(), runnable.end(), random);
    for (Thread *thread : runnable)
      runThread(*thread);
    releaseBlocked();
  }
}

bool Executor::releaseBarrier(uint32_t id) {
  std::vector<Thread *> waiting;
  uint32_t expected = numThreads;
  for (Thread &thread : threads)
    if (thread.state == ThreadState::AtBarrier && thread.barrier == id) {
      waiting.push_back(&thread);
      if (thread.barrierCount)
        expected = thread.barrierCount;
    }
  if (waiting.size() < expected)
    return false;
  joinClocks(waiting);
  for (Thread *thread : waiting) {
    thread->state = ThreadState::Runnable;
    ++thread->pc;
  }
  ++progressEpoch;
  return true;
}

bool Executor::releaseWarp(Thread &first) {
  uint32_t warpBase = first.linear / 32 * 32;
  uint32_t mask = first.memberMask;
  const Instruction &instr = first.function->code[first.pc];
  std::vector<Thread *> members;
  for (uint32_t lane = 0; lane < 32; ++lane) {
    if (!(mask >> lane & 1))
      continue;
    if (warpBase + lane >= numThreads)
      fail(first, instr,
           "member mask names lane " + std::to_string(lane) +
               ", which does not exist in this block");
    Thread &member = threads[warpBase + lane];
    if (member.state == ThreadState::Exited)
      fail(first, instr,
           "divergent warp collective: member lane " + std::to_string(lane) +
               " (" + describeThread(member) + ") has exited (at PTX line " +
               std::to_string(member.exitLine) + ")");
    if (member.state != ThreadState::AtWarpSync || member.pc != first.pc ||
        member.memberMask != mask)
      return false;
    members.push_back(&member);
  }
  if (!(mask >> (first.linear % 32) & 1))
    fail(first, instr, "the executing thread is not in the member mask");
  if (instr.op == Op::Shfl) {
    // PTX ISA 9.7.8.6 (shfl.sync): source lane j and the in-range predicate.
    std::vector<uint64_t> results(members.size());
    std::vector<bool> inRange(members.size());
    for (size_t m = 0; m < members.size(); ++m) {
      Thread &thread = *members[m];
      int lane = thread.linear % 32;
      int b = thread.syncValue[1] & 0x1f;
      int clampValue = thread.syncValue[2] & 0x1f;
      int segment = (thread.syncValue[2] >> 8) & 0x1f;
      int maxLane = (lane & segment) | (clampValue & ~segment);
      int minLane = lane & segment;
      int j = lane;
      bool valid = false;
      switch (instr.subOp) {
      case SubOp::ShflUp:
        j = lane - b;
        valid = j >= maxLane;
        break;
      case SubOp::ShflDown:
        j = lane + b;
        valid = j <= maxLane;
        break;
      case SubOp::ShflBfly:
        j = lane ^ b;
        valid = j <= maxLane;
        break;
      default:
        j = minLane | (b & ~segment);
        valid = j <= maxLane;
        break;
      }
      if (!valid)
        j = lane;
      if (!(mask >> j & 1))
        fail(thread, instr,
             "shfl.sync reads lane " + std::to_string(j) +
                 ", which is not in the member mask");
      results[m] = threads[warpBase + j].syncValue[0];
      inRange[m] = valid;
    }
    for (size_t m = 0; m < members.size(); ++m) {
      Thread &thread = *members[m];
      if (instr.ops[0].kind == Operand::Reg)
        thread.regs[instr.ops[0].reg] = results[m] & 0xffffffffu;
      if (instr.flags & FlagPair)
        thread.regs[instr.ops[PairOperand].reg] = inRange[m];
    }
  } else if (instr.op == Op::Vote) {
    // PTX ISA 9.7.13.8 (vote.sync).
    uint32_t ballot = 0;
    for (Thread *thread : members)
      if (thread->syncValue[0])
        ballot |= 1u << (thread->linear % 32);
    uint64_t result = instr.subOp == SubOp::VoteBallot ? ballot
                      : instr.subOp == SubOp::VoteAll  ? ballot == mask
                                                       : ballot != 0;
    for (Thread *thread : members)
      if (instr.ops[0].kind == Operand::Reg)
        thread->regs[instr.ops[0].reg] = result;
  } else {
    // bar.warp.sync orders the members' memory accesses.
    joinClocks(members);
  }
  for (Thread *thread : members) {
    thread->state = ThreadState::Runnable;
    ++thread->pc;
  }
  return true;
}

bool Executor::releaseBlocked() {
  bool released = false;
  bool barrierSeen[16] = {};
  for (Thread &thread : threads) {
    if (thread.state == ThreadState::AtBarrier &&
        !barrierSeen[thread.barrier]) {
      barrierSeen[thread.barrier] = true;
      released |= releaseBarrier(thread.barrier);
    } else if (thread.state == ThreadState::AtWarpSync) {
      released |= releaseWarp(thread);
    } else if (thread.state == ThreadState::AtTensorCore) {
      released |= releaseTensorCore(thread);
    } else if (thread.state == ThreadState::AtMbarrier) {
      auto found = mbarriers.find(thread.mbarrier);
      if (found != mbarriers.end())
        settlePhase(found->second);
      if (found != mbarriers.end() &&
          isPhaseComplete(found->second, thread.syncValue[0],
                          thread.function->code[thread.pc].flags &
                              FlagParity)) {
        // The wait instruction runs again and now succeeds.
        thread.state = ThreadState::Runnable;
        released = true;
      }
    }
  }
  return released;
}

std::string Executor::describeWait(const Thread &thread) const {
  if (thread.state == ThreadState::Exited)
    return describeThread(thread) + " has exited (at PTX line " +
           std::to_string(thread.exitLine) + ")";
  const Instruction &instr = thread.function->code[thread.pc];
  return describeThread(thread) + " waits at PTX line " +
         std::to_string(instr.line) + ": " + getLineText(module, instr.line);
}

void Executor::reportDeadlock() {
  for (Thread &thread : threads) {
    const Instruction &instr = thread.function->code[thread.pc];
    if (thread.state == ThreadState::AtTensorCore)
      reportTensorCoreDeadlock(thread);
    if (thread.state == ThreadState::AtBarrier) {
      std::string missing;
      unsigned count = 0;
      for (Thread &other : threads)
        if (!(other.state == ThreadState::AtBarrier &&
              other.barrier == thread.barrier) &&
            count++ < 3)
          missing += "; " + describeWait(other);
      fail(thread, instr,
           "deadlock: barrier " + std::to_string(thread.barrier) +
               " can never complete, " + std::to_string(count) +
               " thread(s) never arrive" + missing);
    }
    if (thread.state == ThreadState::AtWarpSync) {
      uint32_t warpBase = thread.linear / 32 * 32;
      std::string missing;
      for (uint32_t lane = 0; lane < 32 && missing.empty(); ++lane) {
        if (!(thread.memberMask >> lane & 1) || warpBase + lane >= numThreads)
          continue;
        Thread &member = threads[warpBase + lane];
        if (member.state != ThreadState::AtWarpSync || member.pc != thread.pc)
          missing = "; member lane " + std::to_string(lane) + ": " +
                    describeWait(member);
      }
      fail(
          thread, instr,
          "deadlock: divergent warp collective, not every thread of member "
          "mask 0x" +
              [&] {
                char text[16];
                std::snprintf(text, sizeof(text), "%08x", thread.memberMask);
                return std::string(text);
              }() +
              " reaches it" + missing);
    }
  }
  for (Thread &thread : threads)
    if (thread.state == ThreadState::AtMbarrier) {
      auto found = mbarriers.find(thread.mbarrier);
      if (found == mbarriers.end())
        fail(thread, thread.function->code[thread.pc],
             "deadlock: waits on the mbarrier at " +
                 describeShared(thread.mbarrier) + ", which was invalidated");
      const Mbarrier &barrier = found->second;
      uint64_t inFlight = 0;
      for (const TensorCopy &copy : barrier.inFlight)
        inFlight += copy.bytes;
      fail(thread, thread.function->code[thread.pc],
           "deadlock: the mbarrier phase at " +
               describeShared(thread.mbarrier) + " can never complete (" +
               std::to_string(barrier.pending) +
               " arrival(s) pending, tx count " +
               std::to_string(barrier.txCount) + " bytes, " +
               std::to_string(inFlight) + " bytes of copies in flight)");
    }
  throw SimError("vx_ptx_sim: error: kernel " + kernel.name +
                 ": deadlock with no thread runnable");
}

void Executor::call(Thread &thread, const Instruction &instr) {
  const CallSite &site = thread.function->callSites[instr.ops[0].imm];
  const Function &callee = *site.function;
  constexpr size_t maxDepth = 256;
  if (thread.frames.size() >= maxDepth)
    fail(thread, instr, "call stack deeper than " + std::to_string(maxDepth));
  thread.frames.push_back({thread.function, thread.pc + 1,
                           static_cast<uint32_t>(instr.ops[0].imm),
                           thread.regBase, thread.paramBase});
  size_t callerParams = thread.paramBase;
  thread.regBase = thread.stackRegs.size();
  thread.paramBase = thread.paramStack.size();
  thread.stackRegs.resize(thread.regBase + callee.numRegs, 0);
  thread.paramStack.resize(thread.paramBase + callee.frameParamBytes, 0xff);
  for (size_t i = 0; i < callee.params.size(); ++i)
    std::memcpy(
        thread.paramStack.data() + thread.paramBase + callee.params[i].offset,
        thread.paramStack.data() + callerParams + site.argumentOffsets[i],
        callee.params[i].size);
  thread.function = &callee;
  thread.regs = thread.stackRegs.data() + thread.regBase;
  thread.pc = 0;
}

void Executor::returnFromCall(Thread &thread) {
  Frame caller = thread.frames.back();
  thread.frames.pop_back();
  const CallSite &site = caller.function->callSites[caller.callSite];
  const Function &callee = *thread.function;
  for (size_t i = 0; i < callee.returns.size(); ++i)
    std::memcpy(
        thread.paramStack.data() + caller.paramBase + site.returnOffsets[i],
        thread.paramStack.data() + thread.paramBase + callee.returns[i].offset,
        callee.returns[i].size);
  thread.stackRegs.resize(thread.regBase);
  thread.paramStack.resize(thread.paramBase);
  thread.function = caller.function;
  thread.pc = caller.returnPc;
  thread.regBase = caller.regBase;
  thread.paramBase = caller.paramBase;
  thread.regs = thread.frames.empty()
                    ? registers.data() +
                          static_cast<size_t>(thread.linear) * kernel.numRegs
                    : thread.stackRegs.data() + thread.regBase;
}

// A new instruction family is a case list here, calling its own execute
// function (declared in Executor.h) that switches over its opcodes. Inlined
// into the loop: one call per instruction, to its family.
[[gnu::always_inline]] inline Step Executor::execute(Thread &thread,
                                                     const Instruction &instr) {
  switch (instr.op) {
  case Op::Add:
  case Op::Sub:
  case Op::Min:
  case Op::Max:
  case Op::Div:
  case Op::Rem:
  case Op::Mul:
  case Op::Fma:
  case Op::Mad:
  case Op::Abs:
  case Op::Neg:
  case Op::Copysign:
  case Op::Ex2:
  case Op::Lg2:
  case Op::Sin:
  case Op::Cos:
  case Op::Sqrt:
  case Op::Rsqrt:
  case Op::Rcp:
    return executeArithmetic(thread, instr);
  case Op::And:
  case Op::Or:
  case Op::Xor:
  case Op::Not:
  case Op::Cnot:
  case Op::Shl:
  case Op::Shr:
  case Op::Popc:
  case Op::Clz:
  case Op::Brev:
  case Op::Bfe:
  case Op::Bfi:
  case Op::Prmt:
    return executeBits(thread, instr);
  case Op::Setp:
  case Op::Selp:
  case Op::Mov:
  case Op::Cvt:
    return executeCompareMove(thread, instr);
  case Op::Ld:
  case Op::St:
  case Op::Atom:
  case Op::Red:
  case Op::Cvta:
  case Op::CvtaTo:
  case Op::Prefetch:
    return executeMemory(thread, instr);
  case Op::CpAsync:
  case Op::CpAsyncCommit:
  case Op::CpAsyncWait:
  case Op::CpAsyncWaitAll:
  case Op::MbarInit:
  case Op::MbarInval:
  case Op::MbarArrive:
  case Op::MbarExpectTx:
  case Op::MbarTestWait:
  case Op::MbarTryWait:
  case Op::CpAsyncBulkTensor:
  case Op::FenceProxyAsync:
  case Op::FenceMbarrierInit:
  case Op::FenceTensormapAcquire:
  case Op::PrefetchTensormap:
  case Op::FenceOther:
    return executeAsync(thread, instr);
  case Op::BarSync:
  case Op::Shfl:
  case Op::Vote:
  case Op::BarWarpSync:
    return executeSync(thread, instr);
  case Op::Bra:
  case Op::Call:
  case Op::Ret:
  case Op::Exit:
  case Op::Trap:
  case Op::Nop:
    return executeControl(thread, instr);
  case Op::Ldmatrix:
  case Op::Stmatrix:
  case Op::MmaSync:
  case Op::WgmmaMma:
    // Warp- and warpgroup-collective: executed when all members arrive.
    thread.state = ThreadState::AtTensorCore;
    return Step::Yield;
  case Op::WgmmaFence:
  case Op::WgmmaCommit:
  case Op::WgmmaWait:
    executeWgmmaSync(thread, instr);
    return Step::Next;
  }
  return Step::Next;
}

void Executor::runThread(Thread &thread) {
  thread.backwardBranches = 0;
  const Instruction *code = thread.function->code.data();
  for (;;) {
    const Instruction &instr = code[thread.pc];
    if (instr.guard != NoReg &&
        (thread.regs[instr.guard] != 0) == instr.guardNegated) {
      ++thread.pc;
      continue;
    }
    // Set by the first wgmma instruction (TensorCore.cpp).
    if (thread.wgmma.tracking)
      checkWgmmaRegisters(thread, instr);
    switch (execute(thread, instr)) {
    case Step::Next:
      ++thread.pc;
      break;
    case Step::Jump:
      code = thread.function->code.data();
      break;
    case Step::Yield:
      return;
    }
  }
}

Step Executor::executeControl(Thread &thread, const Instruction &instr) {
  constexpr uint64_t maxBackwardBranches = 1ull << 26;
  switch (instr.op) {
  case Op::Bra:
    // Threads run one at a time: a loop that waits for another thread
    // without a synchronization point would never end.
    if (instr.ops[0].imm <= thread.pc &&
        ++thread.backwardBranches > maxBackwardBranches)
      fail(thread, instr,
           "more than 2^26 backward branches without a synchronization "
           "point (an endless loop, or a spin-wait on memory that another "
           "thread writes)");
    thread.pc = static_cast<uint32_t>(instr.ops[0].imm);
    return Step::Jump;
  case Op::Call:
    call(thread, instr);
    return Step::Jump;
  case Op::Ret:
    if (!thread.frames.empty()) {
      returnFromCall(thread);
      return Step::Jump;
    }
    [[fallthrough]];
  case Op::Exit:
    thread.state = ThreadState::Exited;
    thread.exitLine = instr.line;
    ++progressEpoch;
    return Step::Yield;
  case Op::Trap:
    fail(thread, instr, "trap: the kernel aborted");
  default: // nop
    return Step::Next;
  }
}

// The scheduler completes these (releaseBarrier, releaseWarp) once every
// thread they need has arrived.
Step Executor::executeSync(Thread &thread, const Instruction &instr) {
  const Operand *ops = instr.ops;
  switch (instr.op) {
  case Op::BarSync: {
    uint64_t id = instr.numOps >= 1 ? read(thread, ops[0]) : 0;
    uint64_t count = instr.numOps >= 2 ? read(thread, ops[1]) : 0;
    if (id >= 16)
      fail(thread, instr,
           "barrier id " + std::to_string(id) + " is out of range (0 to 15)");
    if (count && (count % 32 || count > numThreads))
      fail(thread, instr,
           "barrier thread count " + std::to_string(count) +
               " is not a multiple of 32 up to the block size");
    thread.state = ThreadState::AtBarrier;
    thread.barrier = static_cast<uint32_t>(id);
    thread.barrierCount = static_cast<uint32_t>(count);
    return Step::Yield;
  }
  case Op::Shfl:
    thread.syncValue[0] = read(thread, ops[1]);
    thread.syncValue[1] = read(thread, ops[2]);
    thread.syncValue[2] = read(thread, ops[3]);
    thread.memberMask = static_cast<uint32_t>(read(thread, ops[4]));
    break;
  case Op::Vote:
    thread.syncValue[0] = read(thread, ops[1]);
    thread.memberMask = static_cast<uint32_t>(read(thread, ops[2]));
    break;
  default: // bar.warp.sync
    thread.memberMask = static_cast<uint32_t>(read(thread, ops[0]));
    break;
  }
  thread.state = ThreadState::AtWarpSync;
  return Step::Yield;
}

} // namespace vx::ptxsim

namespace vx::ptxsim {

/// The most shared memory a block may use (opted in), per compute
/// capability (CUDA programming guide, technical specifications).
static uint64_t getMaxSharedBytes(unsigned smVersion) {
  switch (smVersion) {
  case 70:
  case 72:
    return 96 * 1024;
  case 75:
    return 64 * 1024;
  case 80:
  case 87:
    return 163 * 1024;
  case 86:
  case 89:
    return 99 * 1024;
  default:
    return smVersion >= 90 ? 227 * 1024 : 48 * 1024;
  }
}

std::shared_ptr<Module> loadModule(const std::string &ptx) {
  std::string error;
  std::shared_ptr<Module> module = parseModule(ptx, error);
  if (!module)
    throw SimError("vx_ptx_sim: error: " + error);
  if (!module->globalData.empty())
    addGlobalRange(module->globalData.data(), module->globalData.size());
  return module;
}

bool hasKernel(const Module &module, const std::string &kernel) {
  auto found = module.functionsByName.find(kernel);
  return found != module.functionsByName.end() && found->second->isEntry;
}

void launchKernel(const Module &module, const std::string &name,
                  const uint32_t grid[3], const uint32_t block[3],
                  uint32_t dynamicSharedBytes, void **params,
                  const LaunchOptions &options) {
  const Function &kernel = *module.functionsByName.at(name);
  auto error = [&](const std::string &what) {
    throw SimError("vx_ptx_sim: error: kernel " + name + ": " + what);
  };
  uint64_t threads = uint64_t(block[0]) * block[1] * block[2];
  if (!threads || threads > 1024 || !grid[0] || !grid[1] || !grid[2])
    error("invalid launch: grid (" + std::to_string(grid[0]) + "," +
          std::to_string(grid[1]) + "," + std::to_string(grid[2]) +
          "), block (" + std::to_string(block[0]) + "," +
          std::to_string(block[1]) + "," + std::to_string(block[2]) + ")");
  for (int i = 0; i < 3; ++i) {
    if (kernel.maxntid[0] && threads > uint64_t(kernel.maxntid[0]) *
                                           kernel.maxntid[1] *
                                           kernel.maxntid[2])
      error("block of " + std::to_string(threads) +
            " threads exceeds the kernel's .maxntid");
    if (kernel.reqntid[0] && block[i] != kernel.reqntid[i])
      error("block size differs from the kernel's .reqntid");
  }
  // The opt-in maximum of dynamic + static shared memory per block.
  uint64_t limit = getMaxSharedBytes(module.smVersion);
  const SharedLayout &layout = module.sharedLayouts.at(&kernel);
  if (layout.dynamicOffset + dynamicSharedBytes > limit)
    error(std::to_string(layout.dynamicOffset + dynamicSharedBytes) +
          " bytes of shared memory exceed the " + std::to_string(limit) +
          " bytes of " + module.target);
  std::vector<uint8_t> buffer(kernel.paramBytes);
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    const Variable &param = kernel.params[i];
    std::memcpy(buffer.data() + param.offset, params[i], param.size);
  }
  Executor executor(module, kernel, grid, block, dynamicSharedBytes,
                    std::move(buffer), options);
  executor.run();
}

} // namespace vx::ptxsim
