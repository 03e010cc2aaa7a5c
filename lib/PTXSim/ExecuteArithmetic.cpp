//===- ExecuteArithmetic.cpp - Arithmetic, logic, setp, mov, cvt ----------===//
//
// The instruction families that only read and write registers: integer and
// float arithmetic (PTX ISA 9.7.1, 9.7.3, 9.7.4), logic, shifts and bit
// fields (9.7.7, 9.7.8), comparison and selection (9.7.6), mov and cvt
// (9.7.9). The results per type come from Arithmetic.h.
//
//===----------------------------------------------------------------------===//

#include "Arithmetic.h"
#include "Executor.h"

#include <algorithm>

namespace vx::ptxsim {

namespace {

/// PTX ISA 9.7.1.19 (bfe): `length` bits of `a` from `position`, sign- or
/// zero-extended by the type.
uint64_t extractBits(Type type, unsigned bytes, uint64_t a, unsigned position,
                     unsigned length) {
  unsigned width = bytes * 8;
  uint64_t result = 0;
  bool signBit = false;
  if (isSigned(type) && length)
    signBit = a >> std::min(position + length - 1, width - 1) & 1;
  for (unsigned i = 0; i < width; ++i) {
    bool bit = i < length && position + i < width
                   ? (a >> (position + i) & 1)
                   : (isSigned(type) ? signBit : false);
    if (bit)
      result |= 1ull << i;
  }
  return result & maskOf(bytes);
}

/// PTX ISA 9.7.1.20 (bfi): `b` with `length` bits of `a` at `position`.
uint64_t insertBits(unsigned bytes, uint64_t a, uint64_t b, unsigned position,
                    unsigned length) {
  uint64_t result = b;
  for (unsigned i = 0; i < length && position + i < bytes * 8; ++i)
    result =
        (result & ~(1ull << (position + i))) | ((a >> i & 1) << (position + i));
  return result & maskOf(bytes);
}

/// PTX ISA 9.7.8.7 (prmt), default mode: four bytes of {b, a} picked by
/// the selector's nibbles, each optionally replicating its sign bit.
uint32_t permuteBytes(uint64_t a, uint64_t b, uint32_t selector) {
  uint64_t source = (a & 0xffffffffu) | (b & 0xffffffffu) << 32;
  uint32_t result = 0;
  for (int i = 0; i < 4; ++i) {
    uint32_t select = selector >> (4 * i) & 0xf;
    uint32_t byte = source >> (8 * (select & 7)) & 0xff;
    if (select & 8)
      byte = byte & 0x80 ? 0xff : 0;
    result |= byte << (8 * i);
  }
  return result;
}

/// An instruction of a packed type (.s16x2, .f16x2, ...) on one half.
Instruction getLane(const Instruction &instr) {
  Instruction lane = instr;
  switch (instr.type) {
  case Type::S16x2:
    lane.type = Type::S16;
    break;
  case Type::U16x2:
    lane.type = Type::U16;
    break;
  case Type::F16x2:
    lane.type = Type::F16;
    break;
  default:
    lane.type = Type::BF16;
    break;
  }
  return lane;
}

/// PTX ISA 9.7.1 (add/sub/min/max .s16x2/.u16x2): per half. Out of line,
/// so that the copy of the instruction stays off the common path.
[[gnu::noinline]] uint64_t packedIntegerBinary(const Instruction &instr,
                                               uint64_t a, uint64_t b) {
  Instruction lane = getLane(instr);
  return integerBinary(instr.op, lane, a & 0xffff, b & 0xffff) |
         integerBinary(instr.op, lane, a >> 16 & 0xffff, b >> 16 & 0xffff)
             << 16;
}

} // namespace

Step Executor::executeArithmetic(Thread &thread, const Instruction &instr) {
  const Operand *ops = instr.ops;
  auto value = [&](unsigned index) { return read(thread, ops[index]); };
  switch (instr.op) {
  case Op::Add:
  case Op::Sub:
  case Op::Min:
  case Op::Max:
  case Op::Div:
  case Op::Rem:
    if (instr.type == Type::S16x2 || instr.type == Type::U16x2)
      write(thread, ops[0], packedIntegerBinary(instr, value(1), value(2)));
    else if (isFloat(instr.type))
      write(thread, ops[0], floatOp(instr.op, instr, value(1), value(2), 0));
    else
      write(thread, ops[0], integerBinary(instr.op, instr, value(1), value(2)));
    break;
  case Op::Mul:
    if (isFloat(instr.type))
      write(thread, ops[0], floatOp(Op::Mul, instr, value(1), value(2), 0));
    else
      write(thread, ops[0], integerMultiply(instr, value(1), value(2)));
    break;
  case Op::Fma:
    write(thread, ops[0],
          floatOp(Op::Fma, instr, value(1), value(2), value(3)));
    break;
  case Op::Mad:
    if (isFloat(instr.type)) {
      write(thread, ops[0],
            floatOp(Op::Fma, instr, value(1), value(2), value(3)));
    } else {
      uint64_t product = integerMultiply(instr, value(1), value(2));
      unsigned bytes = getTypeBytes(instr.type);
      unsigned resultBytes = instr.flags & FlagWide ? bytes * 2 : bytes;
      write(thread, ops[0], (product + value(3)) & maskOf(resultBytes));
    }
    break;
  case Op::Abs:
  case Op::Neg:
    if (isFloat(instr.type)) {
      write(thread, ops[0], floatUnary(instr.op, instr, value(1)));
    } else {
      unsigned bytes = getTypeBytes(instr.type);
      int64_t a = signExtend(value(1), bytes);
      int64_t result = instr.op == Op::Neg || a < 0 ? -a : a;
      write(thread, ops[0], static_cast<uint64_t>(result) & maskOf(bytes));
    }
    break;
  case Op::Copysign: {
    // PTX ISA 9.7.3.2: d is b with the sign of a.
    uint64_t sign = 1ull << (getTypeBytes(instr.type) * 8 - 1);
    write(thread, ops[0], (value(2) & ~sign) | (value(1) & sign));
    break;
  }
  default: // ex2, lg2, sin, cos, sqrt, rsqrt, rcp
    write(thread, ops[0], floatUnary(instr.op, instr, value(1)));
    break;
  }
  return Step::Next;
}

Step Executor::executeBits(Thread &thread, const Instruction &instr) {
  const Operand *ops = instr.ops;
  auto value = [&](unsigned index) { return read(thread, ops[index]); };
  unsigned bytes = getTypeBytes(instr.type);
  uint64_t mask = maskOf(bytes);
  uint64_t result = 0;
  switch (instr.op) {
  case Op::And:
    result = value(1) & value(2) & mask;
    break;
  case Op::Or:
    result = (value(1) | value(2)) & mask;
    break;
  case Op::Xor:
    result = (value(1) ^ value(2)) & mask;
    break;
  case Op::Not:
    result = instr.type == Type::Pred ? !value(1) : ~value(1) & mask;
    break;
  case Op::Cnot:
    result = (value(1) & mask) == 0;
    break;
  case Op::Shl: {
    uint64_t amount = value(2) & 0xffffffffu;
    result = amount >= bytes * 8 ? 0 : (value(1) << amount) & mask;
    break;
  }
  case Op::Shr: {
    uint64_t amount = value(2) & 0xffffffffu;
    uint64_t a = value(1);
    if (isSigned(instr.type))
      result = static_cast<uint64_t>(signExtend(a, bytes) >>
                                     std::min<uint64_t>(amount, 63)) &
               mask;
    else
      result = amount >= bytes * 8 ? 0 : (a & mask) >> amount;
    break;
  }
  case Op::Popc:
    result = __builtin_popcountll(value(1) & mask);
    break;
  case Op::Clz: {
    uint64_t a = value(1) & mask;
    result = a ? __builtin_clzll(a) - (64 - bytes * 8) : bytes * 8;
    break;
  }
  case Op::Brev: {
    uint64_t a = value(1);
    for (unsigned bit = 0; bit < bytes * 8; ++bit)
      if (a >> bit & 1)
        result |= 1ull << (bytes * 8 - 1 - bit);
    break;
  }
  case Op::Bfe:
    result = extractBits(instr.type, bytes, value(1), value(2) & 0xff,
                         value(3) & 0xff);
    break;
  case Op::Bfi:
    result =
        insertBits(bytes, value(1), value(2), value(3) & 0xff, value(4) & 0xff);
    break;
  default: // prmt
    result = permuteBytes(value(1), value(2), value(3));
    break;
  }
  write(thread, ops[0], result);
  return Step::Next;
}

Step Executor::executeCompareMove(Thread &thread, const Instruction &instr) {
  const Operand *ops = instr.ops;
  auto value = [&](unsigned index) { return read(thread, ops[index]); };
  bool packed = instr.type == Type::F16x2 || instr.type == Type::BF16x2;
  switch (instr.op) {
  case Op::Setp: {
    // PTX ISA, half precision comparison (setp): .f16x2 / .bf16x2 compare
    // each half, the low one into p and the high one into q of `p|q`;
    // other types set q to the complement of p.
    bool result, second;
    if (packed) {
      Instruction lane = getLane(instr);
      uint64_t a = value(1), b = value(2);
      result = compare(lane, a & 0xffff, b & 0xffff);
      second = compare(lane, a >> 16 & 0xffff, b >> 16 & 0xffff);
    } else {
      result = compare(instr, value(1), value(2));
      second = !result;
    }
    if (instr.boolOp != BoolOp::None) {
      bool c = value(3);
      auto combine = [&](bool x) {
        return instr.boolOp == BoolOp::And  ? x && c
               : instr.boolOp == BoolOp::Or ? x || c
                                            : x != c;
      };
      result = combine(result);
      second = combine(second);
    }
    write(thread, ops[0], result);
    if (instr.flags & FlagPair)
      write(thread, ops[PairOperand], second);
    break;
  }
  case Op::Selp:
    write(thread, ops[0], value(3) ? value(1) : value(2));
    break;
  case Op::Mov: {
    unsigned bytes = getTypeBytes(instr.type);
    if (ops[1].kind == Operand::Vector) {
      // Pack the elements, lowest first.
      unsigned element = bytes / ops[1].vecCount;
      uint64_t bits = 0;
      for (uint32_t i = 0; i < ops[1].vecCount; ++i) {
        uint32_t reg = thread.function->vectorRegs[ops[1].vecStart + i];
        bits |= (readElement(thread, reg) & maskOf(element))
                << (8 * element * i);
      }
      write(thread, ops[0], bits);
    } else if (ops[0].kind == Operand::Vector) {
      unsigned element = bytes / ops[0].vecCount;
      uint64_t bits = value(1);
      for (uint32_t i = 0; i < ops[0].vecCount; ++i) {
        uint32_t reg = thread.function->vectorRegs[ops[0].vecStart + i];
        if (reg != NoReg)
          thread.regs[reg] = bits >> (8 * element * i) & maskOf(element);
      }
    } else {
      write(thread, ops[0], value(1) & maskOf(bytes));
    }
    break;
  }
  default: // cvt
    if (packed) {
      // cvt.rn.f16x2.f32 d, a, b: a converted into the upper half.
      Instruction lane = getLane(instr);
      write(thread, ops[0],
            convert(lane, value(1)) << 16 | convert(lane, value(2)));
    } else {
      write(thread, ops[0], convert(instr, value(1)));
    }
    break;
  }
  return Step::Next;
}

} // namespace vx::ptxsim
