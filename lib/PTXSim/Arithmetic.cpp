//===- Arithmetic.cpp - PTX arithmetic on register bits -------------------===//
//
// The results the PTX ISA gives each arithmetic instruction per type
// (PTX ISA 9.7.1 integer, 9.7.3 floating point, 9.7.4 half precision,
// 9.7.9.21 cvt, 9.7.3.1 setp comparisons).
//
//===----------------------------------------------------------------------===//

#include "Arithmetic.h"

#include <algorithm>
#include <optional>

namespace vx::ptxsim {

namespace {

uint64_t saturateSigned(__int128 value, unsigned bytes) {
  __int128 max = (static_cast<__int128>(1) << (bytes * 8 - 1)) - 1;
  __int128 min = -max - 1;
  return static_cast<uint64_t>(std::clamp(value, min, max)) & maskOf(bytes);
}

double minMax(Op op, double a, double b, bool propagateNaN) {
  if (std::isnan(a) || std::isnan(b)) {
    if (propagateNaN || (std::isnan(a) && std::isnan(b)))
      return NAN;
    return std::isnan(a) ? b : a;
  }
  if (a == b) // -0 orders below +0
    return op == Op::Min ? (std::signbit(a) ? a : b)
                         : (std::signbit(a) ? b : a);
  return op == Op::Min ? std::min(a, b) : std::max(a, b);
}

/// `op` on `x`, `y` and `z` computed in `T` (float or double) under
/// `rounding`; volatile keeps the compiler from folding it outside the scope.
template <typename T>
T floatOp(Op op, const Instruction &instr, Rounding rounding, T x, T y, T z) {
  RoundingScope scope(rounding);
  volatile T vx = x, vy = y, vz = z;
  switch (op) {
  case Op::Add:
    return vx + vy;
  case Op::Sub:
    return vx - vy;
  case Op::Mul:
    return vx * vy;
  case Op::Div:
    return vx / vy;
  case Op::Fma:
  case Op::Mad:
    return std::fma(static_cast<T>(vx), static_cast<T>(vy), static_cast<T>(vz));
  case Op::Min:
  case Op::Max:
    return static_cast<T>(minMax(op, x, y, instr.flags & FlagNaN));
  default:
    return 0;
  }
}

/// `result` clamped to [0, 1] (NaN to 0) when `instr` has .sat.
template <typename T> T saturateIfSat(const Instruction &instr, T result) {
  if (!(instr.flags & FlagSat))
    return result;
  return std::isnan(result) ? T(0) : std::clamp(result, T(0), T(1));
}

/// A float binary/ternary operation on one scalar lane of `type`.
uint64_t floatScalar(Op op, const Instruction &instr, Type type, uint64_t a,
                     uint64_t b, uint64_t c) {
  bool ftz = instr.flags & FlagFtz;
  Rounding rounding =
      instr.rounding == Rounding::None ? Rounding::Rn : instr.rounding;
  if (type == Type::F32) {
    float x = toF32(a), y = toF32(b), z = toF32(c);
    if (ftz) {
      x = flushF32(x);
      y = flushF32(y);
      z = flushF32(z);
    }
    float result = floatOp(op, instr, rounding, x, y, z);
    if (ftz)
      result = flushF32(result);
    return fromF32(saturateIfSat(instr, result));
  }
  // Narrower types compute in double at round-to-nearest and round once, with
  // `rounding`, when written back.
  double result =
      floatOp(op, instr, type == Type::F64 ? rounding : Rounding::Rn,
              readFloat(a, type), readFloat(b, type), readFloat(c, type));
  return writeFloat(saturateIfSat(instr, result), type,
                    type == Type::F64 ? Rounding::Rn : rounding);
}

/// A float unary operation on one scalar lane of `type`.
uint64_t floatUnaryScalar(Op op, const Instruction &instr, Type type,
                          uint64_t a) {
  if (op == Op::Neg)
    return a ^ (1ull << (getTypeBytes(type) * 8 - 1));
  if (op == Op::Abs) {
    uint64_t result = a & ~(1ull << (getTypeBytes(type) * 8 - 1));
    if (type == Type::F32 && (instr.flags & FlagFtz))
      return fromF32(flushF32(toF32(result)));
    return result;
  }
  double x = readFloat(a, type);
  if (type == Type::F32 && (instr.flags & FlagFtz))
    x = flushF32(static_cast<float>(x));
  double result;
  switch (op) {
  case Op::Ex2:
    result = std::exp2(x);
    break;
  case Op::Lg2:
    result = std::log2(x);
    break;
  case Op::Sin:
    result = std::sin(x);
    break;
  case Op::Cos:
    result = std::cos(x);
    break;
  case Op::Sqrt:
    result = std::sqrt(x);
    break;
  case Op::Rsqrt:
    result = 1.0 / std::sqrt(x);
    break;
  case Op::Rcp:
    result = 1.0 / x;
    break;
  default:
    result = 0;
  }
  Rounding rounding =
      instr.rounding == Rounding::None ? Rounding::Rn : instr.rounding;
  uint64_t bits = writeFloat(result, type, rounding);
  if (type == Type::F32 && (instr.flags & FlagFtz))
    bits = fromF32(flushF32(toF32(bits)));
  return bits;
}

/// The lane type of a type packing two 16-bit float lanes; none otherwise.
std::optional<Type> getPackedLaneType(Type type) {
  if (type == Type::F16x2)
    return Type::F16;
  if (type == Type::BF16x2)
    return Type::BF16;
  return std::nullopt;
}

/// The two 16-bit lane results `laneOp(shift)` (shift 0 low, 16 high) packed
/// back into one register value.
template <typename LaneOp> uint64_t forEachLane(LaneOp laneOp) {
  return laneOp(0) | (laneOp(16) << 16);
}

} // namespace

uint64_t integerBinary(Op op, const Instruction &instr, uint64_t a,
                       uint64_t b) {
  unsigned bytes = getTypeBytes(instr.type);
  bool sign = isSigned(instr.type);
  int64_t sa = signExtend(a, bytes), sb = signExtend(b, bytes);
  uint64_t ua = a & maskOf(bytes), ub = b & maskOf(bytes);
  switch (op) {
  case Op::Add:
    if (instr.flags & FlagSat)
      return saturateSigned(static_cast<__int128>(sa) + sb, bytes);
    return (a + b) & maskOf(bytes);
  case Op::Sub:
    if (instr.flags & FlagSat)
      return saturateSigned(static_cast<__int128>(sa) - sb, bytes);
    return (a - b) & maskOf(bytes);
  case Op::Div:
    // Division by zero has no trap in PTX; the hardware returns all ones.
    if (ub == 0)
      return maskOf(bytes);
    if (sign)
      return (sb == -1 ? static_cast<uint64_t>(-sa) : sa / sb) & maskOf(bytes);
    return ua / ub;
  case Op::Rem:
    if (ub == 0)
      return ua;
    if (sign)
      return (sb == -1 ? 0 : sa % sb) & maskOf(bytes);
    return ua % ub;
  case Op::Min:
    return sign ? static_cast<uint64_t>(std::min(sa, sb)) & maskOf(bytes)
                : std::min(ua, ub);
  case Op::Max:
    return sign ? static_cast<uint64_t>(std::max(sa, sb)) & maskOf(bytes)
                : std::max(ua, ub);
  default:
    return 0;
  }
}

uint64_t integerMultiply(const Instruction &instr, uint64_t a, uint64_t b) {
  unsigned bytes = getTypeBytes(instr.type);
  bool sign = isSigned(instr.type);
  __int128 wa = sign ? static_cast<__int128>(signExtend(a, bytes))
                     : static_cast<__int128>(a & maskOf(bytes));
  __int128 wb = sign ? static_cast<__int128>(signExtend(b, bytes))
                     : static_cast<__int128>(b & maskOf(bytes));
  unsigned __int128 product = static_cast<unsigned __int128>(wa * wb);
  if (!sign && bytes == 8)
    product = static_cast<unsigned __int128>(a) * b;
  if (instr.flags & FlagWide)
    return static_cast<uint64_t>(product) & maskOf(bytes * 2);
  if (instr.flags & FlagHi)
    return static_cast<uint64_t>(product >> (bytes * 8)) & maskOf(bytes);
  return static_cast<uint64_t>(product) & maskOf(bytes);
}

uint64_t floatOp(Op op, const Instruction &instr, uint64_t a, uint64_t b,
                 uint64_t c) {
  if (std::optional<Type> lane = getPackedLaneType(instr.type))
    return forEachLane([&](unsigned shift) {
      return floatScalar(op, instr, *lane, (a >> shift) & 0xffff,
                         (b >> shift) & 0xffff, (c >> shift) & 0xffff);
    });
  return floatScalar(op, instr, instr.type, a, b, c);
}

uint64_t floatUnary(Op op, const Instruction &instr, uint64_t a) {
  if (std::optional<Type> lane = getPackedLaneType(instr.type))
    return forEachLane([&](unsigned shift) {
      return floatUnaryScalar(op, instr, *lane, (a >> shift) & 0xffff);
    });
  return floatUnaryScalar(op, instr, instr.type, a);
}

bool compare(const Instruction &instr, uint64_t a, uint64_t b) {
  Type type = instr.type;
  if (isFloat(type)) {
    double x = readFloat(a, type), y = readFloat(b, type);
    if (type == Type::F32 && (instr.flags & FlagFtz)) {
      x = flushF32(static_cast<float>(x));
      y = flushF32(static_cast<float>(y));
    }
    bool unordered = std::isnan(x) || std::isnan(y);
    switch (instr.cmp) {
    case Cmp::Eq:
      return !unordered && x == y;
    case Cmp::Ne:
      return !unordered && x != y;
    case Cmp::Lt:
      return !unordered && x < y;
    case Cmp::Le:
      return !unordered && x <= y;
    case Cmp::Gt:
      return !unordered && x > y;
    case Cmp::Ge:
      return !unordered && x >= y;
    case Cmp::Equ:
      return unordered || x == y;
    case Cmp::Neu:
      return unordered || x != y;
    case Cmp::Ltu:
      return unordered || x < y;
    case Cmp::Leu:
      return unordered || x <= y;
    case Cmp::Gtu:
      return unordered || x > y;
    case Cmp::Geu:
      return unordered || x >= y;
    case Cmp::Num:
      return !unordered;
    case Cmp::Nan:
      return unordered;
    default:
      return false;
    }
  }
  unsigned bytes = getTypeBytes(type);
  int64_t sa = signExtend(a, bytes), sb = signExtend(b, bytes);
  uint64_t ua = a & maskOf(bytes), ub = b & maskOf(bytes);
  bool sign = isSigned(type);
  switch (instr.cmp) {
  case Cmp::Eq:
    return ua == ub;
  case Cmp::Ne:
    return ua != ub;
  case Cmp::Lt:
    return sign ? sa < sb : ua < ub;
  case Cmp::Le:
    return sign ? sa <= sb : ua <= ub;
  case Cmp::Gt:
    return sign ? sa > sb : ua > ub;
  case Cmp::Ge:
    return sign ? sa >= sb : ua >= ub;
  case Cmp::Lo:
    return ua < ub;
  case Cmp::Ls:
    return ua <= ub;
  case Cmp::Hi:
    return ua > ub;
  case Cmp::Hs:
    return ua >= ub;
  default:
    return false;
  }
}

uint64_t convert(const Instruction &instr, uint64_t value) {
  Type to = instr.type, from = instr.type2;
  unsigned toBytes = getTypeBytes(to), fromBytes = getTypeBytes(from);
  bool saturate = instr.flags & FlagSat;
  if (!isFloat(to) && !isFloat(from)) {
    __int128 wide = isSigned(from)
                        ? static_cast<__int128>(signExtend(value, fromBytes))
                        : static_cast<__int128>(value & maskOf(fromBytes));
    if (saturate) {
      __int128 max = isSigned(to)
                         ? (static_cast<__int128>(1) << (toBytes * 8 - 1)) - 1
                         : static_cast<__int128>(maskOf(toBytes));
      __int128 min = isSigned(to) ? -max - 1 : 0;
      wide = std::clamp(wide, min, max);
    }
    return static_cast<uint64_t>(wide) & maskOf(toBytes);
  }
  if (isFloat(from) && !isFloat(to)) {
    // Float to integer rounds per .rni/.rzi/.rmi/.rpi and saturates to the
    // destination's range; NaN becomes 0.
    double x = readFloat(value, from);
    if (from == Type::F32 && (instr.flags & FlagFtz))
      x = flushF32(static_cast<float>(x));
    if (std::isnan(x))
      return 0;
    x = roundIntegral(x, instr.rounding);
    if (isSigned(to)) {
      double max = std::ldexp(1.0, toBytes * 8 - 1);
      if (x >= max)
        return static_cast<uint64_t>(max - 1) & maskOf(toBytes);
      if (x < -max)
        return static_cast<uint64_t>(static_cast<int64_t>(-max)) &
               maskOf(toBytes);
      return static_cast<uint64_t>(static_cast<int64_t>(x)) & maskOf(toBytes);
    }
    if (x <= 0)
      return 0;
    if (x >= std::ldexp(1.0, toBytes * 8))
      return maskOf(toBytes);
    return static_cast<uint64_t>(x);
  }
  Rounding rounding =
      instr.rounding == Rounding::None ? Rounding::Rn : instr.rounding;
  if (!isFloat(from)) {
    // Integer to float: exact in long double for 64-bit sources, then one
    // rounding to the destination.
    if (to == Type::F32 || to == Type::F64) {
      RoundingScope scope(rounding);
      if (isSigned(from)) {
        volatile int64_t v = signExtend(value, fromBytes);
        if (to == Type::F32) {
          volatile float f = static_cast<float>(v);
          return fromF32(f);
        }
        volatile double d = static_cast<double>(v);
        return fromF64(d);
      }
      volatile uint64_t v = value & maskOf(fromBytes);
      if (to == Type::F32) {
        volatile float f = static_cast<float>(v);
        return fromF32(f);
      }
      volatile double d = static_cast<double>(v);
      return fromF64(d);
    }
    double x = isSigned(from)
                   ? static_cast<double>(signExtend(value, fromBytes))
                   : static_cast<double>(value & maskOf(fromBytes));
    return writeFloat(x, to, rounding);
  }
  // Float to float: exact widening, rounded narrowing, or rounding to an
  // integral value in the same type (cvt.rzi.f32.f32).
  double x = readFloat(value, from);
  if (from == Type::F32 && (instr.flags & FlagFtz))
    x = flushF32(static_cast<float>(x));
  bool integral =
      instr.rounding == Rounding::Rni || instr.rounding == Rounding::Rzi ||
      instr.rounding == Rounding::Rmi || instr.rounding == Rounding::Rpi;
  if (integral)
    x = roundIntegral(x, instr.rounding);
  if (saturate)
    x = std::isnan(x) ? 0.0 : std::clamp(x, 0.0, 1.0);
  uint64_t bits = writeFloat(x, to, integral ? Rounding::Rn : rounding);
  if (to == Type::F32 && (instr.flags & FlagFtz))
    bits = fromF32(flushF32(toF32(bits)));
  return bits;
}

} // namespace vx::ptxsim
