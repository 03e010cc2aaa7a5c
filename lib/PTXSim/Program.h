//===- Program.h - The decoded form of a PTX module -------------*- C++ -*-===//
//
// The parser turns PTX text into this form once; the interpreter then runs
// a tight loop over it: an opcode enum, a type, modifier bits and operand
// descriptors whose registers are indices into a flat per-thread array.
//
//===----------------------------------------------------------------------===//

#ifndef VX_LIB_PTXSIM_PROGRAM_H
#define VX_LIB_PTXSIM_PROGRAM_H

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace vx::ptxsim {

// PTX ISA 5.2 (fundamental types).
enum class Type : uint8_t {
  None,
  Pred,
  B8,
  B16,
  B32,
  B64,
  B128,
  U8,
  U16,
  U32,
  U64,
  S8,
  S16,
  S32,
  S64,
  S16x2, // packed 16-bit integers (sm_90 add/sub/min/max)
  U16x2,
  F16,
  F16x2,
  BF16,
  BF16x2,
  F32,
  F64,
};

/// Bytes of a value of `type` (a predicate counts as 1). Inline, like the
/// two below: the interpreter asks for nearly every instruction.
inline unsigned getTypeBytes(Type type) {
  switch (type) {
  case Type::None:
    return 0;
  case Type::Pred:
  case Type::B8:
  case Type::U8:
  case Type::S8:
    return 1;
  case Type::B16:
  case Type::U16:
  case Type::S16:
  case Type::F16:
  case Type::BF16:
    return 2;
  case Type::B32:
  case Type::U32:
  case Type::S32:
  case Type::F32:
  case Type::S16x2:
  case Type::U16x2:
  case Type::F16x2:
  case Type::BF16x2:
    return 4;
  case Type::B64:
  case Type::U64:
  case Type::S64:
  case Type::F64:
    return 8;
  case Type::B128:
    return 16;
  }
  return 0;
}

inline bool isSigned(Type type) {
  return type == Type::S8 || type == Type::S16 || type == Type::S32 ||
         type == Type::S64;
}

inline bool isFloat(Type type) {
  return type == Type::F16 || type == Type::F16x2 || type == Type::BF16 ||
         type == Type::BF16x2 || type == Type::F32 || type == Type::F64;
}

// PTX ISA 5.1 (state spaces).
enum class Space : uint8_t { Generic, Global, Shared, Local, Param, Const };

enum class Op : uint8_t {
  Abs,
  Add,
  And,
  Atom,
  BarSync,
  BarWarpSync,
  Bfe,
  Bfi,
  Bra,
  Brev,
  Call,
  Clz,
  Cnot,
  Copysign,
  Cos,
  CpAsync,
  CpAsyncBulkTensor,
  CpAsyncCommit,
  CpAsyncWait,
  CpAsyncWaitAll,
  Cvt,
  Cvta,
  CvtaTo,
  Div,
  Ex2,
  Exit,
  FenceMbarrierInit,
  FenceOther,
  FenceProxyAsync,
  FenceTensormapAcquire,
  Fma,
  Lg2,
  Ld,
  Ldmatrix, // TensorCore.cpp
  Mad,
  Max,
  MbarArrive,
  MbarExpectTx,
  MbarInit,
  MbarInval,
  MbarTestWait,
  MbarTryWait,
  Min,
  MmaSync, // TensorCore.cpp
  Mov,
  Mul,
  Neg,
  Nop,
  Not,
  Or,
  Popc,
  Prefetch,
  PrefetchTensormap,
  Prmt,
  Rcp,
  Red,
  Rem,
  Ret,
  Rsqrt,
  Selp,
  Setp,
  Shfl,
  Shl,
  Shr,
  Sin,
  Sqrt,
  St,
  Stmatrix, // TensorCore.cpp
  Sub,
  Trap,
  Vote,
  WgmmaCommit, // TensorCore.cpp
  WgmmaFence,
  WgmmaMma,
  WgmmaWait,
  Xor,
};

// Modifier bits of Instruction::flags.
enum Flag : uint32_t {
  FlagFtz = 1u << 0,
  FlagSat = 1u << 1,
  FlagWide = 1u << 2, // mul.wide, mad.wide
  FlagHi = 1u << 3,   // mul.hi, mad.hi
  FlagNaN = 1u << 5,  // min/max .NaN
  FlagNoComplete = 1u << 7,
  FlagParity = 1u << 8, // mbarrier waits on a phase parity
  FlagExpectTx = 1u << 9,
  FlagDrop = 1u << 10,
  FlagPair = 1u << 14,  // a `d|p` destination, p in ops[PairOperand]
  FlagTrans = 1u << 15, // ldmatrix/stmatrix .trans
  FlagTf32 = 1u << 16,  // mma.sync's A and B are tf32
};

// PTX ISA 9.7.9.21 (cvt): integer rounding (.rni...) and float rounding.
enum class Rounding : uint8_t { None, Rn, Rz, Rm, Rp, Rna, Rni, Rzi, Rmi, Rpi };

// PTX ISA 9.7.3.1 (setp) comparison operators.
enum class Cmp : uint8_t {
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  Lo,
  Ls,
  Hi,
  Hs,
  Equ,
  Neu,
  Ltu,
  Leu,
  Gtu,
  Geu,
  Num,
  Nan,
};

enum class BoolOp : uint8_t { None, And, Or, Xor };

// Sub-operation of atom/red, shfl and vote.
enum class SubOp : uint8_t {
  None,
  // atom / red
  AtomAdd,
  AtomMin,
  AtomMax,
  AtomInc,
  AtomDec,
  AtomCas,
  AtomExch,
  AtomAnd,
  AtomOr,
  AtomXor,
  // shfl
  ShflUp,
  ShflDown,
  ShflBfly,
  ShflIdx,
  // vote
  VoteAll,
  VoteAny,
  VoteUni,
  VoteBallot,
};

enum class Special : uint8_t {
  TidX,
  TidY,
  TidZ,
  NtidX,
  NtidY,
  NtidZ,
  CtaidX,
  CtaidY,
  CtaidZ,
  NctaidX,
  NctaidY,
  NctaidZ,
  Laneid,
  Warpid,
  NWarpid,
  Smid,
  DynamicSmemSize,
  TotalSmemSize,
  Clock,
  Clock64,
  Globaltimer,
  LanemaskEq,
  LanemaskLt,
  LanemaskLe,
  LanemaskGt,
  LanemaskGe,
  ClusterCtarank,
  ClusterNctarank,
};

struct Operand {
  enum Kind : uint8_t {
    None,
    Reg,     // reg: the slot
    Imm,     // imm: the bits (floats as their encoding)
    Special, // special
    Vector,  // vecStart/vecCount into Function::vectorRegs
    Address, // reg (or NoReg) + imm offset, symbol resolved into imm
    Label,   // imm: the target instruction index
    Sink,    // `_`
  };
  Kind kind = None;
  bool negate = false;       // `!%p`
  enum Special special = {}; // for Special
  uint32_t reg = 0;          // register slot, NoReg for none
  uint32_t vecStart = 0;     // for Vector
  uint32_t vecCount = 0;     // for Vector
  int64_t imm = 0;           // value, offset, label target
};

constexpr uint32_t NoReg = ~0u;
/// Where the second destination of `d|p` (setp, shfl) goes; an instruction
/// with one has fewer operands.
constexpr unsigned PairOperand = 5;
/// The most operands of an instruction (wgmma.mma_async has 8).
constexpr unsigned MaxOperands = 8;
constexpr uint32_t ConstantBit = 0x80000000u;

struct Instruction {
  Op op = Op::Nop;
  Type type = Type::None;  // the (destination) type
  Type type2 = Type::None; // the source type of cvt, the second of setp.
  Space space = Space::Generic;
  Rounding rounding = Rounding::None;
  Cmp cmp = Cmp::Eq;
  BoolOp boolOp = BoolOp::None;
  SubOp subOp = SubOp::None;
  uint8_t vector = 1; // .v2/.v4
  uint8_t numOps = 0; // operands used
  // cp.async.bulk.tensor's dimensions; mma.sync's K; wgmma's N / 8.
  uint8_t dims = 0;
  uint32_t flags = 0;
  uint32_t guard = NoReg; // predicate slot, NoReg when unguarded
  bool guardNegated = false;
  uint32_t line = 0; // 1-based PTX line
  Operand ops[MaxOperands];
};

/// A `.param` of an entry, or a variable of a state space.
struct Variable {
  std::string name;
  Space space;
  uint64_t size = 0; // bytes; 0 for an extern array
  uint64_t align = 1;
  uint64_t offset = 0;
  bool isExtern = false;
  std::vector<uint8_t> init; // initializer bytes, empty when none
};

/// A `call`: the callee and where the caller's .param variables for the
/// return value and the arguments are (offsets in the caller's frame).
struct CallSite {
  std::string callee;
  const struct Function *function = nullptr; // resolved after parsing
  std::vector<uint64_t> returnOffsets, argumentOffsets;
  uint32_t line = 0;
};

struct Function {
  std::string name;
  bool isEntry = false;
  uint32_t numRegs = 0;
  std::vector<std::string> regNames; // slot -> name, for messages
  std::vector<Type> regTypes;
  std::vector<Instruction> code;
  // Operand vectors: register slots, NoReg for `_`, or ConstantBit | an
  // index into `constants` for an immediate element.
  std::vector<uint32_t> vectorRegs;
  std::vector<uint64_t> constants;
  // The frame's parameter space: the return parameters of a .func, its (or
  // the entry's) parameters, then the .param variables the body declares
  // for its calls, up to frameParamBytes.
  std::vector<Variable> params;
  uint64_t paramBytes = 0;
  std::vector<Variable> returns;
  uint64_t frameParamBytes = 0;
  std::vector<CallSite> callSites;
  uint64_t localBytes = 0; // the function's .local frame
  std::vector<Variable> locals;
  std::vector<Variable> shareds; // function-scoped .shared, in order
  // Launch bounds (.maxntid / .reqntid), zeros when absent.
  uint32_t maxntid[3] = {0, 0, 0};
  uint32_t reqntid[3] = {0, 0, 0};
};

/// A kernel's shared memory as ptxas lays it out: static symbols in
/// declaration order, then the extern dynamic array.
struct SharedLayout {
  std::vector<Variable> symbols; // with their offsets
  uint64_t staticBytes = 0;
  uint64_t dynamicOffset = 0; // where the extern array starts
};

struct Module {
  std::string target; // sm_80, sm_90a
  unsigned smVersion = 0;
  bool archSpecific = false;      // sm_90a: the `a` features (wgmma)
  unsigned ptxVersion = 0;        // .version X.Y as 10 * X + Y
  std::vector<std::string> lines; // the source, for messages
  std::vector<std::unique_ptr<Function>> functions;
  std::map<std::string, Function *> functionsByName;
  std::vector<Variable> moduleShareds;
  std::vector<Variable> globals; // .global / .const, offsets into globalData
  std::vector<uint8_t> globalData;
  std::map<const Function *, SharedLayout> sharedLayouts;
};

/// Parses PTX text; on failure returns null and sets `error` to
/// "PTX line N: <what>".
std::unique_ptr<Module> parseModule(const std::string &text,
                                    std::string &error);

/// Decodes the tensor-core opcodes (ldmatrix, stmatrix, mma.sync, wgmma;
/// TensorCore.cpp) split at dots: false when `parts` is no tensor-core
/// opcode, else true with `supported` telling whether the simulator
/// implements this form.
bool decodeTensorCoreOpcode(Instruction &instr,
                            const std::vector<std::string> &parts,
                            bool &supported);

/// The text of an instruction's line, trimmed, for messages.
std::string getLineText(const Module &module, uint32_t line);

} // namespace vx::ptxsim

#endif // VX_LIB_PTXSIM_PROGRAM_H
