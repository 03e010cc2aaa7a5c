//===- Arithmetic.h - PTX arithmetic on register bits -----------*- C++ -*-===//
//
// Values live in 64-bit register slots, zero-extended from their width.
// These helpers give the PTX ISA's results for each type (PTX ISA 9.7.1
// integer, 9.7.3 floating point, 9.7.4 half precision, 9.7.9.21 cvt).
// Approximate instructions (ex2.approx, rcp.approx, ...) return the exact,
// correctly rounded value: within the ISA's error bounds, and reproducible.
//
//===----------------------------------------------------------------------===//

#ifndef VX_LIB_PTXSIM_ARITHMETIC_H
#define VX_LIB_PTXSIM_ARITHMETIC_H

#include "Program.h"

#include <cfenv>
#include <cmath>
#include <cstring>

namespace vx::ptxsim {

inline uint64_t maskOf(unsigned bytes) {
  return bytes >= 8 ? ~0ull : (1ull << (bytes * 8)) - 1;
}

inline int64_t signExtend(uint64_t value, unsigned bytes) {
  if (bytes >= 8)
    return static_cast<int64_t>(value);
  unsigned shift = 64 - bytes * 8;
  return static_cast<int64_t>(value << shift) >> shift;
}

/// The value of type `To` with the bits of `from` (C++17 has no bit_cast).
template <typename To, typename From> To bitCast(From from) {
  static_assert(sizeof(To) == sizeof(From), "bitCast needs types of one size");
  To to;
  std::memcpy(&to, &from, sizeof(To));
  return to;
}

inline float toF32(uint64_t bits) {
  return bitCast<float>(static_cast<uint32_t>(bits));
}
inline uint64_t fromF32(float value) { return bitCast<uint32_t>(value); }
inline double toF64(uint64_t bits) { return bitCast<double>(bits); }
inline uint64_t fromF64(double value) { return bitCast<uint64_t>(value); }

/// .ftz: subnormal f32 inputs and results become zero of the same sign.
inline float flushF32(float value) {
  return std::fpclassify(value) == FP_SUBNORMAL ? std::copysign(0.0f, value)
                                                : value;
}

/// A binary float format narrower than f32: f16 (5 exponent bits, 10
/// mantissa bits) or bf16 (8, 7).
struct SmallFloat {
  int exponentBits, mantissaBits;
};
constexpr SmallFloat Half{5, 10};
constexpr SmallFloat BHalf{8, 7};

inline double decodeSmall(uint64_t bits, SmallFloat format) {
  int bias = (1 << (format.exponentBits - 1)) - 1;
  uint64_t mantissa = bits & ((1ull << format.mantissaBits) - 1);
  uint64_t exponent =
      (bits >> format.mantissaBits) & ((1ull << format.exponentBits) - 1);
  bool negative = (bits >> (format.mantissaBits + format.exponentBits)) & 1;
  double value;
  if (exponent == (1ull << format.exponentBits) - 1)
    value = mantissa ? NAN : INFINITY;
  else if (exponent == 0)
    value = std::ldexp(static_cast<double>(mantissa),
                       1 - bias - format.mantissaBits);
  else
    value = std::ldexp(
        static_cast<double>(mantissa | (1ull << format.mantissaBits)),
        static_cast<int>(exponent) - bias - format.mantissaBits);
  return negative ? -value : value;
}

/// Rounds `value` to an integer-valued double per `rounding` (rn: ties to
/// even, rna: ties away).
inline double roundIntegral(double value, Rounding rounding) {
  switch (rounding) {
  case Rounding::Rz:
  case Rounding::Rzi:
    return std::trunc(value);
  case Rounding::Rm:
  case Rounding::Rmi:
    return std::floor(value);
  case Rounding::Rp:
  case Rounding::Rpi:
    return std::ceil(value);
  case Rounding::Rna:
    return std::round(value);
  default:
    return std::nearbyint(value); // the default mode: ties to even
  }
}

/// Encodes `value` in `format`, rounded per `rounding` (rn by default).
inline uint64_t encodeSmall(double value, SmallFloat format,
                            Rounding rounding = Rounding::Rn) {
  int bias = (1 << (format.exponentBits - 1)) - 1;
  uint64_t sign = std::signbit(value)
                      ? 1ull << (format.mantissaBits + format.exponentBits)
                      : 0;
  uint64_t infinity = ((1ull << format.exponentBits) - 1)
                      << format.mantissaBits;
  if (std::isnan(value))
    return infinity | (1ull << (format.mantissaBits - 1));
  double magnitude = std::fabs(value);
  if (std::isinf(magnitude))
    return sign | infinity;
  if (magnitude == 0)
    return sign;
  // Directed modes round the magnitude toward or away from zero.
  Rounding magnitudeRounding = rounding;
  if (rounding == Rounding::Rm)
    magnitudeRounding = sign ? Rounding::Rp : Rounding::Rz;
  else if (rounding == Rounding::Rp)
    magnitudeRounding = sign ? Rounding::Rz : Rounding::Rp;
  int exponent;
  std::frexp(magnitude, &exponent); // magnitude in [2^(e-1), 2^e)
  int minNormal = 1 - bias;
  int quantumExponent = std::max(exponent - 1, minNormal) - format.mantissaBits;
  double units =
      roundIntegral(std::ldexp(magnitude, -quantumExponent), magnitudeRounding);
  double rounded = std::ldexp(units, quantumExponent);
  int maxExponent = (1 << format.exponentBits) - 2 - bias;
  double maxFinite =
      std::ldexp(2.0 - std::ldexp(1.0, -format.mantissaBits), maxExponent);
  if (rounded > maxFinite)
    return sign | ((magnitudeRounding == Rounding::Rz)
                       ? infinity - 1 // the largest finite value
                       : infinity);
  if (rounded < std::ldexp(1.0, minNormal))
    return sign | static_cast<uint64_t>(
                      std::ldexp(rounded, format.mantissaBits - minNormal));
  std::frexp(rounded, &exponent);
  uint64_t mantissa = static_cast<uint64_t>(
      std::ldexp(rounded, format.mantissaBits - (exponent - 1)));
  return sign |
         (static_cast<uint64_t>(exponent - 1 + bias) << format.mantissaBits) |
         (mantissa & ((1ull << format.mantissaBits) - 1));
}

/// Sets the host's rounding mode for one operation (.rz/.rm/.rp).
class RoundingScope {
public:
  explicit RoundingScope(Rounding rounding) {
    int mode = rounding == Rounding::Rz   ? FE_TOWARDZERO
               : rounding == Rounding::Rm ? FE_DOWNWARD
               : rounding == Rounding::Rp ? FE_UPWARD
                                          : FE_TONEAREST;
    if (mode != FE_TONEAREST) {
      saved = std::fegetround();
      std::fesetround(mode);
      changed = true;
    }
  }
  ~RoundingScope() {
    if (changed)
      std::fesetround(saved);
  }

private:
  int saved = FE_TONEAREST;
  bool changed = false;
};

/// A float operand of a scalar float type, widened to double exactly.
inline double readFloat(uint64_t bits, Type type) {
  switch (type) {
  case Type::F16:
    return decodeSmall(bits & 0xffff, Half);
  case Type::BF16:
    return decodeSmall(bits & 0xffff, BHalf);
  case Type::F32:
    return toF32(bits);
  default:
    return toF64(bits);
  }
}

/// `value` (exact or a double result) in `type`, rounded per `rounding`.
inline uint64_t writeFloat(double value, Type type,
                           Rounding rounding = Rounding::Rn) {
  switch (type) {
  case Type::F16:
    return encodeSmall(value, Half, rounding);
  case Type::BF16:
    return encodeSmall(value, BHalf, rounding);
  case Type::F32: {
    volatile double wide = value;
    RoundingScope scope(rounding);
    volatile float narrow = static_cast<float>(wide);
    return fromF32(narrow);
  }
  default:
    return fromF64(value);
  }
}

/// add/sub/div/rem/min/max of integers of `instr.type`.
uint64_t integerBinary(Op op, const Instruction &instr, uint64_t a, uint64_t b);
/// mul (lo/hi/wide) of integers; `instr.type` is the source type.
uint64_t integerMultiply(const Instruction &instr, uint64_t a, uint64_t b);
/// add/sub/mul/div/fma/min/max of floats, per lane of f16x2/bf16x2.
uint64_t floatOp(Op op, const Instruction &instr, uint64_t a, uint64_t b,
                 uint64_t c);
/// ex2, lg2, sin, cos, sqrt, rsqrt, rcp, abs, neg of floats, per lane of
/// f16x2/bf16x2.
uint64_t floatUnary(Op op, const Instruction &instr, uint64_t a);
/// setp's comparison of a and b.
bool compare(const Instruction &instr, uint64_t a, uint64_t b);
/// cvt.d.a (PTX ISA 9.7.9.21): `instr.type` the destination, `instr.type2`
/// the source.
uint64_t convert(const Instruction &instr, uint64_t value);

} // namespace vx::ptxsim

#endif // VX_LIB_PTXSIM_ARITHMETIC_H
