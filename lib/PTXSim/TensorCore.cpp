//===- TensorCore.cpp - ldmatrix, stmatrix, mma.sync and wgmma ------------===//
//
// The tensor-core instructions, from the PTX ISA's fragment layouts:
// - ldmatrix / stmatrix (9.7.14.5.15-16): eight-row 8x8 b16 matrices, row
//   addresses from lanes 8i..8i+7, lane t holding row t/4, columns 2(t%4)
//   and 2(t%4)+1 of matrix i in register i (.trans: the transpose);
// - mma.sync.aligned.m16n8k16 (f16, bf16) and m16n8k8 (tf32), row.col
//   (9.7.14.5.14, the fragments of 9.7.14.5.8 and 9.7.14.5.9);
// - wgmma.mma_async m64nNk16 (f16, bf16; 9.7.15.5), A from a shared-memory
//   matrix descriptor or registers, B from a descriptor, with the
//   descriptor format and canonical layouts of 9.7.15.5.1: core matrices
//   of eight 16-byte rows, the leading and stride byte offsets, and the
//   32B/64B/128B swizzles that TMA writes (swizzleSharedOffset).
// Products of f16, bf16 and tf32 values are exact in f32; they are summed
// into the f32 accumulator in k order, then rounded to an f16 accumulator.
// The collectives wait until every thread of the warp (warpgroup) reaches
// the same instruction; one that exited, or waits elsewhere forever, is a
// divergence error. wgmma.mma_async computes at its issue and the async
// rules make that unobservable: until a wgmma.wait_group completes it, an
// access of its registers by other instructions and a write of its shared
// operands are errors, as are a thread's first wgmma.mma_async without a
// wgmma.fence before it and a shared operand that the generic proxy wrote
// after the last fence.proxy.async. Register writes between the
// wgmma.fence and the wgmma.mma_async that uses them are no error: the ISA
// leaves them undefined, but ptxas orders them (MLIR 22 materializes the
// zero accumulators of nvgpu.warpgroup.mma after the fence).
//
//===----------------------------------------------------------------------===//

#include "Arithmetic.h"
#include "Executor.h"

#include <algorithm>

namespace vx::ptxsim {

namespace {

/// `x1`, `x2`, `x4`: the number of 8x8 matrices, else 0.
unsigned parseMatrixCount(const std::string &word) {
  return word == "x1" ? 1 : word == "x2" ? 2 : word == "x4" ? 4 : 0;
}

bool decodeMatrixLoadStore(Instruction &instr,
                           const std::vector<std::string> &parts) {
  // {ld,st}matrix.sync.aligned.m8n8.xN{.trans}{.shared{::cta}}.b16
  if (parts.size() < 7 || parts[1] != "sync" || parts[2] != "aligned" ||
      parts[3] != "m8n8" || !parseMatrixCount(parts[4]) ||
      parts.back() != "b16")
    return false;
  instr.vector = static_cast<uint8_t>(parseMatrixCount(parts[4]));
  for (size_t i = 5; i + 1 < parts.size(); ++i) {
    if (parts[i] == "trans")
      instr.flags |= FlagTrans;
    else if (parts[i] == "shared" || parts[i] == "shared::cta")
      instr.space = Space::Shared;
    else
      return false;
  }
  instr.type = Type::B16;
  return true;
}

bool decodeMmaSync(Instruction &instr, const std::vector<std::string> &parts) {
  // mma.sync.aligned.shape.row.col.dtype.atype.btype.ctype; ptxas wants
  // the same dtype and ctype for these shapes.
  if (parts.size() != 10 || parts[1] != "sync" || parts[2] != "aligned" ||
      parts[4] != "row" || parts[5] != "col" || parts[7] != parts[8] ||
      parts[6] != parts[9])
    return false;
  const std::string &d = parts[6], &ab = parts[7];
  if (parts[3] == "m16n8k16" && ab == "bf16" && d == "f32") {
    instr.type2 = Type::BF16;
  } else if (parts[3] == "m16n8k16" && ab == "f16" &&
             (d == "f32" || d == "f16")) {
    instr.type2 = Type::F16;
  } else if (parts[3] == "m16n8k8" && ab == "tf32" && d == "f32") {
    instr.type2 = Type::F32;
    instr.flags |= FlagTf32;
  } else {
    return false;
  }
  instr.type = d == "f32" ? Type::F32 : Type::F16;
  instr.dims = parts[3] == "m16n8k16" ? 16 : 8;
  return true;
}

bool decodeWgmma(Instruction &instr, const std::vector<std::string> &parts) {
  auto isSyncAligned = [&](size_t from) {
    return parts.size() == from + 2 && parts[from] == "sync" &&
           parts[from + 1] == "aligned";
  };
  if (parts.size() < 2)
    return false;
  if (parts[1] == "fence" || parts[1] == "commit_group" ||
      parts[1] == "wait_group") {
    instr.op = parts[1] == "fence"          ? Op::WgmmaFence
               : parts[1] == "commit_group" ? Op::WgmmaCommit
                                            : Op::WgmmaWait;
    return isSyncAligned(2);
  }
  // wgmma.mma_async.sync.aligned.m64nNk16.dtype.atype.btype
  instr.op = Op::WgmmaMma;
  if (parts[1] != "mma_async" || parts.size() != 8 || parts[2] != "sync" ||
      parts[3] != "aligned" || parts[6] != parts[7])
    return false;
  const std::string &shape = parts[4];
  if (shape.rfind("m64n", 0) != 0 || shape.size() < 8 ||
      shape.compare(shape.size() - 3, 3, "k16") != 0)
    return false;
  std::string columns = shape.substr(4, shape.size() - 7);
  if (columns.find_first_not_of("0123456789") != std::string::npos)
    return false;
  int n = std::atoi(columns.c_str());
  if (n < 8 || n > 256 || n % 8)
    return false;
  instr.dims = static_cast<uint8_t>(n / 8);
  const std::string &d = parts[5], &ab = parts[6];
  if (ab == "bf16" && d == "f32")
    instr.type2 = Type::BF16;
  else if (ab == "f16" && (d == "f32" || d == "f16"))
    instr.type2 = Type::F16;
  else
    return false;
  instr.type = d == "f32" ? Type::F32 : Type::F16;
  return true;
}

/// The register slots of an instruction's operands (sinks and immediates
/// left out).
template <typename Visit>
void forEachRegister(const Function &function, const Instruction &instr,
                     Visit visit) {
  auto operand = [&](const Operand &op) {
    if ((op.kind == Operand::Reg || op.kind == Operand::Address) &&
        op.reg != NoReg)
      visit(op.reg);
    if (op.kind == Operand::Vector)
      for (uint32_t i = 0; i < op.vecCount; ++i) {
        uint32_t reg = function.vectorRegs[op.vecStart + i];
        if (reg != NoReg && !(reg & ConstantBit))
          visit(reg);
      }
  };
  for (unsigned i = 0; i < instr.numOps; ++i)
    operand(instr.ops[i]);
  if (instr.flags & FlagPair)
    operand(instr.ops[PairOperand]);
}

/// Element `i` of a vector operand: its register slot, or NoReg for an
/// immediate (whose bits go to `bits`).
uint32_t getElement(const Function &function, const Operand &op, unsigned i,
                    const uint64_t *regs, uint64_t &bits) {
  uint32_t reg = op.kind == Operand::Vector
                     ? function.vectorRegs[op.vecStart + i]
                     : op.reg;
  if (reg & ConstantBit) {
    bits = function.constants[reg & ~ConstantBit];
    return NoReg;
  }
  bits = reg == NoReg ? 0 : regs[reg];
  return reg;
}

unsigned countOf(const Operand &op) {
  return op.kind == Operand::Vector ? op.vecCount
         : op.kind == Operand::Reg  ? 1
                                    : 0;
}

std::string opcodeName(const Instruction &instr) {
  switch (instr.op) {
  case Op::Ldmatrix:
    return "ldmatrix";
  case Op::Stmatrix:
    return "stmatrix";
  case Op::MmaSync:
    return "mma.sync";
  default:
    return "wgmma.mma_async";
  }
}

/// The threads that execute a tensor-core collective together.
uint32_t getCollectiveSize(const Instruction &instr) {
  return instr.op == Op::WgmmaMma ? 128 : 32;
}

const char *getCollectiveName(const Instruction &instr) {
  return instr.op == Op::WgmmaMma ? "warpgroup" : "warp";
}

/// A 16-bit half of a 32-bit register as a float.
float readHalf(uint64_t bits, unsigned half, Type type) {
  return static_cast<float>(readFloat(bits >> (16 * half) & 0xffff, type));
}

/// The accumulation of the ISA's MMA: exact products summed in f32, in k
/// order, onto the accumulator.
float accumulate(float sum, const float *a, const float *b, unsigned k,
                 unsigned bStride) {
  for (unsigned i = 0; i < k; ++i)
    sum += a[i] * b[i * bStride];
  return sum;
}

} // namespace

bool decodeTensorCoreOpcode(Instruction &instr,
                            const std::vector<std::string> &parts,
                            bool &supported) {
  const std::string &base = parts[0];
  if (base == "ldmatrix" || base == "stmatrix") {
    instr.op = base == "ldmatrix" ? Op::Ldmatrix : Op::Stmatrix;
    supported = decodeMatrixLoadStore(instr, parts);
  } else if (base == "mma") {
    instr.op = Op::MmaSync;
    supported = decodeMmaSync(instr, parts);
  } else if (base == "wgmma") {
    supported = decodeWgmma(instr, parts);
  } else {
    return false;
  }
  return true;
}

void Executor::resetTensorCore() {
  wgmmaReaders.assign(shared.size(), 0);
  wgmmaReadBytes = 0;
  wgmmaReads.clear();
}

std::vector<Thread *> Executor::getCollectiveMembers(Thread &first) {
  const Instruction &instr = first.function->code[first.pc];
  uint32_t size = getCollectiveSize(instr);
  uint32_t base = first.linear / size * size;
  if (base + size > numThreads)
    fail(first, instr,
         opcodeName(instr) + " needs all " + std::to_string(size) +
             " threads of the " + getCollectiveName(instr) +
             ", the block has " + std::to_string(numThreads));
  std::vector<Thread *> members;
  for (uint32_t i = base; i < base + size; ++i) {
    Thread &member = threads[i];
    if (member.state == ThreadState::Exited)
      fail(first, instr,
           "divergent " + opcodeName(instr) + ": " + describeThread(member) +
               " of the " + getCollectiveName(instr) +
               " has exited (at PTX line " + std::to_string(member.exitLine) +
               ")");
    if (member.state != ThreadState::AtTensorCore ||
        member.function != first.function || member.pc != first.pc)
      return {};
    members.push_back(&member);
  }
  return members;
}

bool Executor::releaseTensorCore(Thread &first) {
  std::vector<Thread *> members = getCollectiveMembers(first);
  if (members.empty())
    return false;
  const Instruction &instr = first.function->code[first.pc];
  if (instr.op == Op::MmaSync)
    executeMmaSync(members, instr);
  else if (instr.op == Op::WgmmaMma)
    executeWgmma(members, instr);
  else
    executeMatrixLoadStore(members, instr);
  for (Thread *member : members) {
    member->state = ThreadState::Runnable;
    ++member->pc;
  }
  ++progressEpoch;
  return true;
}

void Executor::reportTensorCoreDeadlock(Thread &thread) {
  const Instruction &instr = thread.function->code[thread.pc];
  uint32_t size = getCollectiveSize(instr);
  uint32_t base = thread.linear / size * size;
  std::string missing;
  for (uint32_t i = base; i < base + size && i < numThreads; ++i)
    if (threads[i].state != ThreadState::AtTensorCore ||
        threads[i].pc != thread.pc) {
      missing = "; " + describeWait(threads[i]);
      break;
    }
  fail(thread, instr,
       "deadlock: divergent " + opcodeName(instr) + ", not every thread of " +
           "the " + getCollectiveName(instr) + " reaches it" + missing);
}

void Executor::executeMatrixLoadStore(const std::vector<Thread *> &warp,
                                      const Instruction &instr) {
  // ldmatrix d, [p] / stmatrix [p], d: the row addresses come from lanes
  // 8i..8i+7 of matrix i; lane t's register i holds row t/4, columns
  // 2(t%4) and 2(t%4)+1 (.trans: column t/4, rows 2(t%4) and 2(t%4)+1).
  bool load = instr.op == Op::Ldmatrix;
  const Operand &address = instr.ops[load ? 1 : 0];
  const Operand &data = instr.ops[load ? 0 : 1];
  unsigned matrices = instr.vector;
  if (countOf(data) != matrices || address.kind != Operand::Address)
    fail(*warp[0], instr,
         opcodeName(instr) + ".x" + std::to_string(matrices) + " takes " +
             std::to_string(matrices) + " register(s) and an address");
  bool trans = instr.flags & FlagTrans;
  // rows[i][r][c]: element c of row r of matrix i.
  uint16_t rows[4][8][8];
  auto element = [&](unsigned matrix, unsigned lane, unsigned half) {
    unsigned r = lane / 4, c = 2 * (lane % 4) + half;
    return trans ? &rows[matrix][c][r] : &rows[matrix][r][c];
  };
  if (!load)
    for (unsigned lane = 0; lane < 32; ++lane)
      for (unsigned i = 0; i < matrices; ++i) {
        uint64_t bits;
        getElement(*warp[lane]->function, data, i, warp[lane]->regs, bits);
        *element(i, lane, 0) = static_cast<uint16_t>(bits);
        *element(i, lane, 1) = static_cast<uint16_t>(bits >> 16);
      }
  for (unsigned i = 0; i < matrices; ++i)
    for (unsigned r = 0; r < 8; ++r) {
      Thread &owner = *warp[8 * i + r];
      uint64_t at = address.reg == NoReg
                        ? address.imm
                        : owner.regs[address.reg] + address.imm;
      uint8_t *memory =
          translate(owner, instr, instr.space, at, 16, !load, false,
                    load ? nullptr : reinterpret_cast<uint8_t *>(rows[i][r]));
      if (load)
        std::memcpy(rows[i][r], memory, 16);
      else
        std::memcpy(memory, rows[i][r], 16);
    }
  if (load)
    for (unsigned lane = 0; lane < 32; ++lane)
      for (unsigned i = 0; i < matrices; ++i) {
        uint64_t unused;
        uint32_t reg = getElement(*warp[lane]->function, data, i,
                                  warp[lane]->regs, unused);
        if (reg != NoReg)
          warp[lane]->regs[reg] =
              *element(i, lane, 0) | uint32_t(*element(i, lane, 1)) << 16;
      }
}

void Executor::executeMmaSync(const std::vector<Thread *> &warp,
                              const Instruction &instr) {
  // PTX ISA 9.7.14.5.8-9: lane = 4 * groupID + threadID_in_group.
  const unsigned m = 16, n = 8, k = instr.dims;
  bool tf32 = instr.flags & FlagTf32;
  bool halfAccumulator = instr.type == Type::F16;
  const Operand &d = instr.ops[0], &a = instr.ops[1], &b = instr.ops[2],
                &c = instr.ops[3];
  if (instr.numOps != 4 || countOf(d) != (halfAccumulator ? 2u : 4u) ||
      countOf(a) != 4 || countOf(b) != 2 || countOf(c) != countOf(d))
    fail(*warp[0], instr,
         "mma.sync takes " + std::to_string(halfAccumulator ? 2 : 4) +
             ", 4, 2 and " + std::to_string(halfAccumulator ? 2 : 4) +
             " registers (d, a, b, c)");
  auto read = [&](const Operand &op, unsigned lane, unsigned i) {
    uint64_t bits;
    getElement(*warp[lane]->function, op, i, warp[lane]->regs, bits);
    return bits;
  };
  auto readOperand = [&](const Operand &op, unsigned lane, unsigned reg,
                         unsigned half) -> float {
    uint64_t bits = read(op, lane, reg);
    if (tf32) // .tf32: the low 13 mantissa bits are not used.
      return toF32(bits & 0xffffe000u);
    return readHalf(bits, half, instr.type2);
  };
  float aValues[16][16], bValues[16][8];
  for (unsigned row = 0; row < m; ++row)
    for (unsigned col = 0; col < k; ++col) {
      if (tf32)
        aValues[row][col] =
            readOperand(a, (row % 8) * 4 + col % 4, row / 8 + 2 * (col / 4), 0);
      else
        aValues[row][col] = readOperand(a, (row % 8) * 4 + (col % 8) / 2,
                                        row / 8 + 2 * (col / 8), col % 2);
    }
  for (unsigned row = 0; row < k; ++row)
    for (unsigned col = 0; col < n; ++col) {
      if (tf32)
        bValues[row][col] = readOperand(b, col * 4 + row % 4, row / 4, 0);
      else
        bValues[row][col] =
            readOperand(b, col * 4 + (row % 8) / 2, row / 8, row % 2);
    }
  // C and D: row groupID (+8), columns 2 * threadID_in_group (+1).
  float result[16][8];
  for (unsigned row = 0; row < m; ++row)
    for (unsigned col = 0; col < n; ++col) {
      unsigned lane = (row % 8) * 4 + col / 2;
      float sum = halfAccumulator
                      ? readHalf(read(c, lane, row / 8), col % 2, Type::F16)
                      : toF32(read(c, lane, (row / 8) * 2 + col % 2));
      result[row][col] = accumulate(sum, aValues[row], &bValues[0][col], k, n);
    }
  for (unsigned lane = 0; lane < 32; ++lane) {
    Thread &thread = *warp[lane];
    unsigned g = lane / 4, t = lane % 4;
    for (unsigned i = 0; i < countOf(d); ++i) {
      uint64_t unused;
      uint32_t reg = getElement(*thread.function, d, i, thread.regs, unused);
      if (reg == NoReg)
        continue;
      if (halfAccumulator)
        thread.regs[reg] = writeFloat(result[g + 8 * i][2 * t], Type::F16) |
                           writeFloat(result[g + 8 * i][2 * t + 1], Type::F16)
                               << 16;
      else
        thread.regs[reg] = fromF32(result[g + 8 * (i / 2)][2 * t + i % 2]);
    }
  }
}

void Executor::readWgmmaOperand(Thread &issuer, const Instruction &instr,
                                uint64_t descriptor, bool transposed,
                                unsigned rows, std::vector<float> &values,
                                std::vector<uint32_t> &chunks) {
  // PTX ISA 9.7.15.5.1: a `rows` x 16 operand (M x K of A, N x K of B),
  // K-major unless transposed. Descriptor bits 0-13: start address >> 4;
  // 16-29: leading dimension byte offset >> 4; 32-45: stride dimension
  // byte offset >> 4; 49-51: base offset; 62-63: swizzle (0 none, 1 128B,
  // 2 64B, 3 32B).
  uint64_t start = (descriptor & 0x3fff) << 4;
  uint64_t leading = (descriptor >> 16 & 0x3fff) << 4;
  uint64_t stride = (descriptor >> 32 & 0x3fff) << 4;
  unsigned baseOffset = descriptor >> 49 & 7;
  unsigned mode = descriptor >> 62;
  if (baseOffset)
    fail(issuer, instr,
         "matrix descriptor base offset " + std::to_string(baseOffset) +
             " is not modelled (the simulator needs operands aligned to "
             "their swizzle pattern)");
  // The swizzle's width in bytes and its bits for swizzleSharedOffset.
  unsigned bits = mode == 1 ? 3 : mode == 2 ? 2 : mode == 3 ? 1 : 0;
  uint64_t width = 16u << bits;
  // The canonical layouts (units of 16-byte chunks of 8 elements):
  // K-major: row r at (r % 8) * width (16 without swizzle) + (r / 8) * SBO;
  //   the K chunk j at j * 16 with swizzle, j * LBO without.
  // MN-major: k row at (k % 8) * width + (k / 8) * (swizzled ? SBO : LBO);
  //   MN chunk j at (j % (width / 16)) * 16 + (j / (width / 16)) *
  //   (swizzled ? LBO : SBO).
  auto chunkAddress = [&](unsigned mn, unsigned k) -> uint64_t {
    if (!transposed)
      return start + (mn % 8) * width + (mn / 8) * stride +
             (k / 8) * (bits ? 16 : leading);
    unsigned j = mn / 8, perRow = static_cast<unsigned>(width / 16);
    return start + (k % 8) * width + (k / 8) * (bits ? stride : leading) +
           (j % perRow) * 16 + (j / perRow) * (bits ? leading : stride);
  };
  values.assign(rows * 16, 0.0f);
  for (unsigned outer = 0; outer < (transposed ? 16 : rows); ++outer)
    for (unsigned chunk = 0; chunk < (transposed ? rows / 8 : 2); ++chunk) {
      unsigned mn = transposed ? chunk * 8 : outer;
      unsigned k = transposed ? outer : chunk * 8;
      uint64_t offset = swizzleSharedOffset(chunkAddress(mn, k), bits);
      if (offset + 16 > shared.size())
        fail(issuer, instr,
             "wgmma operand chunk at shared offset " + std::to_string(offset) +
                 " is out of bounds (the block has " +
                 std::to_string(shared.size()) + " bytes)");
      checkShared(issuer, instr, static_cast<uint32_t>(offset), 16, false,
                  false, nullptr);
      for (uint32_t byte = offset; byte < offset + 16; ++byte)
        if (genericWriteEpoch[byte] == proxyFenceEpoch)
          fail(issuer, instr,
               "wgmma.mma_async reads " + describeShared(byte) +
                   ", which the generic proxy wrote after the last "
                   "fence.proxy.async");
      chunks.push_back(static_cast<uint32_t>(offset));
      for (unsigned e = 0; e < 8; ++e) {
        uint16_t bits16;
        std::memcpy(&bits16, shared.data() + offset + 2 * e, 2);
        unsigned row = transposed ? mn + e : mn, col = transposed ? k : k + e;
        values[row * 16 + col] = readHalf(bits16, 0, instr.type2);
      }
    }
}

void Executor::executeWgmma(const std::vector<Thread *> &group,
                            const Instruction &instr) {
  // wgmma.mma_async d, a-desc|{a}, b-desc, scale-d, imm-scale-a,
  // imm-scale-b{, imm-trans-a}, imm-trans-b: D (64 x N) = A (64 x 16) *
  // B (16 x N) + (scale-d ? D : 0).
  const unsigned n = instr.dims * 8u;
  bool halfD = instr.type == Type::F16;
  const Operand *ops = instr.ops;
  bool registerA = ops[1].kind == Operand::Vector;
  unsigned numOps = registerA ? 7 : 8;
  unsigned dCount = halfD ? n / 4 : n / 2;
  Thread &issuer = *group[0];
  for (Thread *thread : group) {
    if (!thread->frames.empty())
      fail(*thread, instr, "wgmma.mma_async in a called function");
    if (!thread->wgmma.fenced)
      fail(*thread, instr,
           "wgmma.mma_async without a wgmma.fence before it in this thread");
  }
  bool shapeOk =
      instr.numOps == numOps && countOf(ops[0]) == dCount &&
      (registerA ? ops[1].vecCount == 4 : ops[1].kind == Operand::Reg) &&
      ops[2].kind == Operand::Reg;
  for (unsigned i = 4; i < numOps && shapeOk; ++i)
    shapeOk = ops[i].kind == Operand::Imm;
  if (!shapeOk)
    fail(issuer, instr,
         "wgmma.mma_async." + std::string(halfD ? "f16" : "f32") + " m64n" +
             std::to_string(n) + "k16 takes " + std::to_string(dCount) +
             " accumulator registers, A as a descriptor or 4 registers, a B "
             "descriptor, scale-d and immediate scales and transposes");
  auto imm = [&](unsigned i) { return ops[i].imm; };
  int64_t scaleA = imm(4), scaleB = imm(5);
  int64_t transA = registerA ? 0 : imm(6), transB = imm(numOps - 1);
  if ((scaleA != 1 && scaleA != -1) || (scaleB != 1 && scaleB != -1) ||
      (transA != 0 && transA != 1) || (transB != 0 && transB != 1))
    fail(issuer, instr,
         "imm-scale-a/b must be 1 or -1 and imm-trans-a/b 0 or 1");
  // Operands the warpgroup shares must agree between its threads.
  auto uniform = [&](const Operand &op, const char *what) {
    uint64_t first = op.kind == Operand::Reg ? issuer.regs[op.reg] : op.imm;
    for (Thread *thread : group)
      if ((op.kind == Operand::Reg ? thread->regs[op.reg] : op.imm) != first)
        fail(*thread, instr,
             std::string(what) +
                 " differs between the threads of the "
                 "warpgroup (" +
                 describeThread(issuer) + " has another)");
    return first;
  };
  bool scaleD = uniform(ops[3], "scale-d") & 1;
  if (ops[3].negate)
    scaleD = !scaleD;
  uint64_t bDescriptor = uniform(ops[2], "the B descriptor");
  std::vector<float> aValues, bValues;
  std::vector<uint32_t> chunks;
  if (registerA) {
    // A's fragment per warp w (rows 16w..16w+15), as mma.sync m16n8k16's.
    aValues.assign(64 * 16, 0.0f);
    for (unsigned i = 0; i < 128; ++i) {
      Thread &thread = *group[i];
      unsigned lane = i % 32, row = 16 * (i / 32) + lane / 4;
      for (unsigned reg = 0; reg < 4; ++reg) {
        uint64_t bits;
        getElement(*thread.function, ops[1], reg, thread.regs, bits);
        for (unsigned half = 0; half < 2; ++half)
          aValues[(row + 8 * (reg % 2)) * 16 + 2 * (lane % 4) + half +
                  8 * (reg / 2)] = readHalf(bits, half, instr.type2);
      }
    }
  } else {
    readWgmmaOperand(issuer, instr, uniform(ops[1], "the A descriptor"), transA,
                     64, aValues, chunks);
  }
  readWgmmaOperand(issuer, instr, bDescriptor, transB, n, bValues, chunks);
  // bValues is N x K: transpose it to K x N for accumulate().
  std::vector<float> bColumns(16 * n);
  for (unsigned col = 0; col < n; ++col)
    for (unsigned k = 0; k < 16; ++k)
      bColumns[k * n + col] = bValues[col * 16 + k] * float(scaleB);
  for (float &value : aValues)
    value *= float(scaleA);
  uint64_t id = nextWgmma++;
  for (uint32_t chunk : chunks)
    for (uint32_t byte = chunk; byte < chunk + 16; ++byte)
      wgmmaReadBytes += wgmmaReaders[byte]++ == 0;
  wgmmaReads[id] = std::move(chunks);
  // D's fragment: warp w holds rows 16w..16w+15; per 8 columns, a thread
  // holds rows groupID (+8), columns 2 * threadID_in_group (+1).
  for (unsigned i = 0; i < 128; ++i) {
    Thread &thread = *group[i];
    unsigned lane = i % 32, g = lane / 4, t = lane % 4;
    WgmmaInFlight op{id, thread.wgmma.commits, instr.line, {}};
    auto element = [&](unsigned e) {
      unsigned row = 16 * (i / 32) + g + 8 * (e / 2 % 2);
      unsigned col = e / 4 * 8 + 2 * t + e % 2;
      return std::pair<unsigned, unsigned>(row, col);
    };
    auto compute = [&](unsigned e, float accumulator) {
      auto [row, col] = element(e);
      return accumulate(scaleD ? accumulator : 0.0f, &aValues[row * 16],
                        &bColumns[col], 16, n);
    };
    for (unsigned reg = 0; reg < dCount; ++reg) {
      uint64_t bits;
      uint32_t slot =
          getElement(*thread.function, ops[0], reg, thread.regs, bits);
      if (slot == NoReg)
        fail(thread, instr, "a wgmma accumulator must be a register");
      if (halfD)
        bits = writeFloat(compute(2 * reg, readHalf(bits, 0, Type::F16)),
                          Type::F16) |
               writeFloat(compute(2 * reg + 1, readHalf(bits, 1, Type::F16)),
                          Type::F16)
                   << 16;
      else
        bits = fromF32(compute(reg, toF32(bits)));
      thread.regs[slot] = bits;
      op.registers.push_back(slot);
    }
    if (registerA)
      for (unsigned reg = 0; reg < 4; ++reg) {
        uint64_t unused;
        uint32_t slot =
            getElement(*thread.function, ops[1], reg, thread.regs, unused);
        if (slot != NoReg)
          op.registers.push_back(slot);
      }
    for (uint32_t slot : op.registers)
      thread.wgmma.inFlightLine[slot] = instr.line;
    thread.wgmma.inFlight.push_back(std::move(op));
  }
}

void Executor::executeWgmmaSync(Thread &thread, const Instruction &instr) {
  WgmmaState &state = thread.wgmma;
  if (!thread.frames.empty())
    fail(thread, instr, "wgmma in a called function");
  if (!state.tracking) {
    state.tracking = true;
    state.inFlightLine.assign(kernel.numRegs, 0);
  }
  if (instr.op == Op::WgmmaFence) {
    state.fenced = true;
    return;
  }
  if (instr.op == Op::WgmmaCommit) {
    ++state.commits;
    return;
  }
  // wgmma.wait_group N: every group but the N most recent completes.
  if (instr.numOps != 1 || instr.ops[0].kind != Operand::Imm)
    fail(thread, instr, "wgmma.wait_group takes an immediate group count");
  int64_t keep = instr.ops[0].imm;
  auto done = [&](const WgmmaInFlight &op) {
    return op
        .group<state.commits &&static_cast<int64_t>(state.commits - op.group)>
            keep;
  };
  for (const WgmmaInFlight &op : state.inFlight) {
    if (!done(op))
      continue;
    auto reads = wgmmaReads.find(op.id);
    if (reads == wgmmaReads.end())
      continue; // another thread of the warpgroup completed it
    for (uint32_t chunk : reads->second)
      for (uint32_t byte = chunk; byte < chunk + 16; ++byte)
        wgmmaReadBytes -= --wgmmaReaders[byte] == 0;
    wgmmaReads.erase(reads);
  }
  state.inFlight.erase(
      std::remove_if(state.inFlight.begin(), state.inFlight.end(), done),
      state.inFlight.end());
  std::fill(state.inFlightLine.begin(), state.inFlightLine.end(), 0);
  for (const WgmmaInFlight &op : state.inFlight)
    for (uint32_t slot : op.registers)
      state.inFlightLine[slot] = op.line;
}

void Executor::checkWgmmaRegisters(Thread &thread, const Instruction &instr) {
  if (instr.op == Op::WgmmaMma || instr.op == Op::WgmmaFence ||
      instr.op == Op::WgmmaCommit || instr.op == Op::WgmmaWait ||
      !thread.frames.empty())
    return;
  WgmmaState &state = thread.wgmma;
  forEachRegister(*thread.function, instr, [&](uint32_t reg) {
    if (uint32_t line = state.inFlightLine[reg])
      fail(thread, instr,
           "access of register " + thread.function->regNames[reg] +
               " of the wgmma.mma_async at PTX line " + std::to_string(line) +
               " before a wgmma.wait_group completes it");
  });
}

void Executor::checkWgmmaOperandWrite(Thread &thread, const Instruction &instr,
                                      uint32_t offset, uint32_t bytes) {
  for (uint32_t byte = offset; byte < offset + bytes; ++byte)
    if (wgmmaReaders[byte])
      fail(thread, instr,
           "write to " + describeShared(byte) +
               ", an operand of a wgmma.mma_async that no wgmma.wait_group "
               "has completed");
}

} // namespace vx::ptxsim
