//===- Opcodes.cpp - Decoding PTX opcodes ---------------------------------===//
//
// A dotted opcode is decoded once, at load time, by its family: the families
// with a grammar of their own (bar, fence, mbarrier, cp.async, ...) have a
// decoder each, found by the opcode's base name in `families`; every other
// base is one of `opNames`, followed by the common modifiers (types,
// rounding, .ftz, state spaces, ignored cache and ordering qualifiers) and
// those of its own (setp's comparison, atom's operation, shfl's mode, ...).
// An opcode or modifier the interpreter does not implement is refused, so
// nothing unknown ever runs.
//
//===----------------------------------------------------------------------===//

#include "Opcodes.h"
#include "Lexer.h"

#include <algorithm>
#include <cstring>

namespace vx::ptxsim {

namespace {

/// An opcode being decoded: its text and its dotted parts.
struct Opcode {
  const std::string &text;
  std::vector<std::string> parts;
};

Rounding parseRounding(const std::string &word) {
  static const std::pair<const char *, Rounding> names[] = {
      {"rn", Rounding::Rn},   {"rz", Rounding::Rz},   {"rm", Rounding::Rm},
      {"rp", Rounding::Rp},   {"rna", Rounding::Rna}, {"rni", Rounding::Rni},
      {"rzi", Rounding::Rzi}, {"rmi", Rounding::Rmi}, {"rpi", Rounding::Rpi}};
  for (auto &[name, rounding] : names)
    if (word == name)
      return rounding;
  return Rounding::None;
}

bool parseCmp(const std::string &word, Cmp &cmp) {
  static const std::pair<const char *, Cmp> names[] = {
      {"eq", Cmp::Eq},   {"ne", Cmp::Ne},   {"lt", Cmp::Lt},
      {"le", Cmp::Le},   {"gt", Cmp::Gt},   {"ge", Cmp::Ge},
      {"lo", Cmp::Lo},   {"ls", Cmp::Ls},   {"hi", Cmp::Hi},
      {"hs", Cmp::Hs},   {"equ", Cmp::Equ}, {"neu", Cmp::Neu},
      {"ltu", Cmp::Ltu}, {"leu", Cmp::Leu}, {"gtu", Cmp::Gtu},
      {"geu", Cmp::Geu}, {"num", Cmp::Num}, {"nan", Cmp::Nan}};
  for (auto &[name, value] : names)
    if (word == name) {
      cmp = value;
      return true;
    }
  return false;
}

struct OpName {
  const char *name;
  Op op;
};
const OpName opNames[] = {
    {"abs", Op::Abs},
    {"add", Op::Add},
    {"and", Op::And},
    {"atom", Op::Atom},
    {"bfe", Op::Bfe},
    {"bfi", Op::Bfi},
    {"bra", Op::Bra},
    {"brev", Op::Brev},
    {"clz", Op::Clz},
    {"cnot", Op::Cnot},
    {"copysign", Op::Copysign},
    {"cos", Op::Cos},
    {"cvt", Op::Cvt},
    {"cvta", Op::Cvta},
    {"div", Op::Div},
    {"ex2", Op::Ex2},
    {"exit", Op::Exit},
    {"fma", Op::Fma},
    {"lg2", Op::Lg2},
    {"ld", Op::Ld},
    {"mad", Op::Mad},
    {"max", Op::Max},
    {"min", Op::Min},
    {"mov", Op::Mov},
    {"mul", Op::Mul},
    {"neg", Op::Neg},
    {"not", Op::Not},
    {"or", Op::Or},
    {"popc", Op::Popc},
    {"prmt", Op::Prmt},
    {"rcp", Op::Rcp},
    {"red", Op::Red},
    {"rem", Op::Rem},
    {"ret", Op::Ret},
    {"rsqrt", Op::Rsqrt},
    {"selp", Op::Selp},
    {"setp", Op::Setp},
    {"shfl", Op::Shfl},
    {"shl", Op::Shl},
    {"shr", Op::Shr},
    {"sin", Op::Sin},
    {"sqrt", Op::Sqrt},
    {"st", Op::St},
    {"sub", Op::Sub},
    {"vote", Op::Vote},
    {"xor", Op::Xor},
    {"membar", Op::FenceOther},
    {"nop", Op::Nop},
    {"trap", Op::Trap},
};

Space parseSpace(const std::string &word, bool &known) {
  known = true;
  if (word == "global")
    return Space::Global;
  if (word == "shared" || word == "shared::cta" || word == "shared::cluster")
    return Space::Shared;
  if (word == "local")
    return Space::Local;
  if (word == "param" || word == "param::entry" || word == "param::func")
    return Space::Param;
  if (word == "const")
    return Space::Const;
  known = false;
  return Space::Generic;
}

const TargetRequirement targetRequirements[] = {
    {"cp.async", 80, 70},                     // 9.7.9.25
    {"mbarrier", 80, 70},                     // 9.7.13.15
    {"mbarrier.try_wait", 90, 78},            // 9.7.13.15
    {"mbarrier expect_tx", 90, 80},           // 9.7.13.15
    {"cp.async.bulk.tensor", 90, 80},         // 9.7.9.25
    {"fence.proxy.async", 90, 80},            // 9.7.13.4
    {"fence.mbarrier_init", 90, 80},          // 9.7.13.4
    {"fence.proxy.tensormap", 90, 83},        // 9.7.13.4
    {"prefetch.tensormap", 90, 80},           // prefetch
    {"16-bit integer .s16x2/.u16x2", 90, 80}, // add, sub, min, max
    {"ldmatrix", 75, 65},                     // 9.7.14.5.15
    {"stmatrix", 90, 78},                     // 9.7.14.5.16
    {"mma.sync m16n8k16/m16n8k8", 80, 70},    // 9.7.14.5.14
    {"wgmma", 90, 80, true},                  // 9.7.15
};

/// PTX ISA 9.7.13.1 (bar, barrier).
bool decodeBarrier(Instruction &instr, const Opcode &opcode) {
  const std::vector<std::string> &parts = opcode.parts;
  if (parts.size() >= 2 && parts[1] == "warp") {
    instr.op = Op::BarWarpSync;
    return parts.size() == 3 && parts[2] == "sync";
  }
  size_t i = 1;
  if (i < parts.size() && parts[i] == "cta")
    ++i;
  if (i >= parts.size() || parts[i] != "sync")
    return false; // bar.arrive, bar.red: not implemented
  instr.op = Op::BarSync;
  for (++i; i < parts.size(); ++i)
    if (parts[i] != "aligned")
      return false;
  return true;
}

/// PTX ISA 9.7.13.4 (membar/fence).
bool decodeFence(Instruction &instr, const Opcode &opcode) {
  std::string rest = opcode.text.substr(6);
  if (rest == "proxy.async" || rest == "proxy.async.shared::cta" ||
      rest == "proxy.async.shared::cluster" || rest == "proxy.async.global")
    instr.op = Op::FenceProxyAsync;
  else if (rest == "mbarrier_init.release.cluster")
    instr.op = Op::FenceMbarrierInit;
  else if (rest.rfind("proxy.tensormap::generic.acquire.", 0) == 0)
    instr.op = Op::FenceTensormapAcquire;
  else if (rest == "sc.cta" || rest == "sc.gpu" || rest == "sc.sys" ||
           rest == "acq_rel.cta" || rest == "acq_rel.gpu" ||
           rest == "acq_rel.sys" || rest == "sc.cluster" ||
           rest == "acq_rel.cluster")
    instr.op = Op::FenceOther;
  else
    return false;
  return true;
}

bool decodeMembar(Instruction &instr, const Opcode &opcode) {
  const std::vector<std::string> &parts = opcode.parts;
  instr.op = Op::FenceOther;
  return parts.size() == 2 &&
         (parts[1] == "cta" || parts[1] == "gl" || parts[1] == "sys");
}

bool decodePrefetch(Instruction &instr, const Opcode &opcode) {
  const std::string &text = opcode.text;
  if (text == "prefetch.tensormap" || text == "prefetch.global.tensormap" ||
      text == "prefetch.param.tensormap" || text == "prefetch.const.tensormap")
    instr.op = Op::PrefetchTensormap;
  else if (text == "prefetch.global.L2" || text == "prefetch.global.L1" ||
           text == "prefetch.L1" || text == "prefetch.L2")
    instr.op = Op::Prefetch;
  else
    return false;
  return true;
}

/// PTX ISA 9.7.13.15 (mbarrier).
bool decodeMbarrier(Instruction &instr, const Opcode &opcode) {
  const std::vector<std::string> &parts = opcode.parts;
  if (parts.size() < 2)
    return false;
  static const std::pair<const char *, Op> operations[] = {
      {"init", Op::MbarInit},          {"inval", Op::MbarInval},
      {"arrive", Op::MbarArrive},      {"arrive_drop", Op::MbarArrive},
      {"expect_tx", Op::MbarExpectTx}, {"test_wait", Op::MbarTestWait},
      {"try_wait", Op::MbarTryWait}};
  const auto *found =
      std::find_if(std::begin(operations), std::end(operations),
                   [&](const auto &entry) { return parts[1] == entry.first; });
  if (found == std::end(operations))
    return false;
  instr.op = found->second;
  if (parts[1] == "arrive_drop")
    instr.flags |= FlagDrop;
  for (size_t i = 2; i < parts.size(); ++i) {
    const std::string &word = parts[i];
    bool known;
    if (word == "expect_tx")
      instr.flags |= FlagExpectTx;
    else if (word == "noComplete")
      instr.flags |= FlagNoComplete;
    else if (word == "parity")
      instr.flags |= FlagParity;
    else if (word == "b64")
      instr.type = Type::B64;
    else if (word == "release" || word == "acquire" || word == "cta" ||
             word == "cluster" || word == "relaxed")
      ;
    else if (!(parseSpace(word, known), known) || word == "global")
      return false;
  }
  instr.space = Space::Shared;
  return true;
}

/// PTX ISA 9.7.9.25 (cp.async, cp.async.bulk.tensor).
bool decodeAsyncCopy(Instruction &instr, const Opcode &opcode) {
  const std::vector<std::string> &parts = opcode.parts;
  static const std::pair<const char *, Op> groupOps[] = {
      {"cp.async.commit_group", Op::CpAsyncCommit},
      {"cp.async.wait_group", Op::CpAsyncWait},
      {"cp.async.wait_all", Op::CpAsyncWaitAll}};
  for (const auto &[name, op] : groupOps)
    if (opcode.text == name) {
      instr.op = op;
      return true;
    }
  // cp.async.{ca,cg}.shared{::cta}.global{.L2::{64,128,256}B}: the L2
  // prefetch size is a hint.
  std::string copy = opcode.text;
  for (const char *hint : {".L2::64B", ".L2::128B", ".L2::256B"})
    if (copy.size() > std::strlen(hint) &&
        copy.compare(copy.size() - std::strlen(hint), std::string::npos,
                     hint) == 0)
      copy.resize(copy.size() - std::strlen(hint));
  if (copy == "cp.async.ca.shared.global" ||
      copy == "cp.async.cg.shared.global" ||
      copy == "cp.async.ca.shared::cta.global" ||
      copy == "cp.async.cg.shared::cta.global") {
    instr.op = Op::CpAsync;
    return true;
  }
  if (parts.size() < 5 || parts[1] != "async" || parts[2] != "bulk" ||
      parts[3] != "tensor")
    return false;
  // .Nd.shared::cluster.global[.tile].mbarrier::complete_tx::bytes
  const std::string &dims = parts[4];
  if (dims.size() != 2 || dims[1] != 'd' || dims[0] < '1' || dims[0] > '5')
    return false;
  instr.dims = dims[0] - '0';
  std::string rest;
  for (size_t i = 5; i < parts.size(); ++i)
    if (parts[i] != "tile")
      rest += "." + parts[i];
  instr.op = Op::CpAsyncBulkTensor;
  return rest == ".shared::cluster.global.mbarrier::complete_tx::bytes" ||
         rest == ".shared::cta.global.mbarrier::complete_tx::bytes";
}

/// PTX ISA 9.7.12.3 (call): direct calls only.
bool decodeCall(Instruction &instr, const Opcode &opcode) {
  instr.op = Op::Call;
  return opcode.text == "call" || opcode.text == "call.uni";
}

/// PTX ISA 9.7.9.17 (cvta): cvta.space.size / cvta.to.space.size.
bool decodeCvta(Instruction &instr, const Opcode &opcode) {
  const std::vector<std::string> &parts = opcode.parts;
  size_t i = 1;
  instr.op = Op::Cvta;
  if (i < parts.size() && parts[i] == "to") {
    instr.op = Op::CvtaTo;
    ++i;
  }
  bool known = false;
  if (i < parts.size())
    instr.space = parseSpace(parts[i++], known);
  return known && i + 1 == parts.size() && lookupType(parts[i], instr.type);
}

/// A modifier any instruction of `opNames` may take; false when `word` is
/// none of them.
bool decodeCommonModifier(Instruction &instr, const std::string &word) {
  bool known;
  Space space = parseSpace(word, known);
  Rounding rounding = parseRounding(word);
  if (rounding != Rounding::None) {
    instr.rounding = rounding;
  } else if (word == "ftz") {
    instr.flags |= FlagFtz;
  } else if (word == "sat" || word == "satfinite") {
    instr.flags |= FlagSat;
  } else if (word == "wide") {
    instr.flags |= FlagWide;
  } else if (word == "hi") {
    instr.flags |= FlagHi;
  } else if (word == "lo") {
    // mul.lo / mad.lo: the default; setp.lo: a comparison.
    if (instr.op == Op::Setp)
      instr.cmp = Cmp::Lo;
  } else if (word == "NaN") {
    instr.flags |= FlagNaN;
  } else if (word == "v2" || word == "v4") {
    instr.vector = word[1] - '0';
  } else if ((instr.op == Op::Ld || instr.op == Op::St ||
              instr.op == Op::Atom || instr.op == Op::Red) &&
             known) {
    instr.space = space;
  } else if (word == "approx" || word == "full" || word == "uni" ||
             word == "volatile" || word == "nc" || word == "ca" ||
             word == "cg" || word == "cs" || word == "lu" || word == "cv" ||
             word == "wb" || word == "wt" || word == "relaxed" ||
             word == "acquire" || word == "release" || word == "acq_rel" ||
             word == "cta" || word == "gpu" || word == "sys" ||
             word == "cluster" || word == "weak" || word == "L1::no_allocate" ||
             word == "L2::64B" || word == "L2::128B" || word == "L2::256B") {
    // Approximation (computed exactly), uniformity, cache and
    // memory-order qualifiers: the functional result is the same
    // (execution between synchronization points is sequential).
  } else {
    return false;
  }
  return true;
}

/// The modifiers of setp (comparison, boolean operation), atom/red
/// (operation), shfl (mode) and vote (mode); false when `word` is not one
/// of `instr`'s.
bool decodeOwnModifier(Instruction &instr, const std::string &word) {
  static const std::pair<const char *, SubOp> subOps[] = {
      {"add", SubOp::AtomAdd},   {"min", SubOp::AtomMin},
      {"max", SubOp::AtomMax},   {"inc", SubOp::AtomInc},
      {"dec", SubOp::AtomDec},   {"cas", SubOp::AtomCas},
      {"exch", SubOp::AtomExch}, {"and", SubOp::AtomAnd},
      {"or", SubOp::AtomOr},     {"xor", SubOp::AtomXor},
      {"up", SubOp::ShflUp},     {"down", SubOp::ShflDown},
      {"bfly", SubOp::ShflBfly}, {"idx", SubOp::ShflIdx},
      {"all", SubOp::VoteAll},   {"any", SubOp::VoteAny},
      {"uni", SubOp::VoteUni},   {"ballot", SubOp::VoteBallot}};
  // Each instruction's sub-operations: a range of `subOps`.
  auto findSubOp = [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i)
      if (word == subOps[i].first) {
        instr.subOp = subOps[i].second;
        return true;
      }
    return false;
  };
  switch (instr.op) {
  case Op::Setp: {
    Cmp cmp;
    if (parseCmp(word, cmp)) {
      instr.cmp = cmp;
      return true;
    }
    if (word != "and" && word != "or" && word != "xor")
      return false;
    instr.boolOp = word == "and"  ? BoolOp::And
                   : word == "or" ? BoolOp::Or
                                  : BoolOp::Xor;
    return true;
  }
  case Op::Atom:
  case Op::Red:
    return findSubOp(0, 10);
  case Op::Shfl:
    return word == "sync" || findSubOp(10, 14);
  case Op::Vote:
    return word == "sync" || findSubOp(14, 18);
  default:
    return false;
  }
}

/// The forms of the instructions of `opNames` that Vx emits and the
/// interpreter implements.
bool isImplemented(const Instruction &instr, const Opcode &opcode) {
  if ((instr.op == Op::Shfl || instr.op == Op::Vote) &&
      (opcode.text.find(".sync") == std::string::npos ||
       instr.subOp == SubOp::None))
    return false; // the pre-Volta forms without a member mask
  if (instr.op == Op::Vote && instr.subOp == SubOp::VoteUni)
    return false;
  if ((instr.type == Type::S16x2 || instr.type == Type::U16x2) &&
      instr.op != Op::Add && instr.op != Op::Sub && instr.op != Op::Min &&
      instr.op != Op::Max)
    return false; // the packed integer forms Vx emits
  if ((instr.op == Op::Atom || instr.op == Op::Red) &&
      instr.subOp == SubOp::None)
    return false;
  if (instr.type == Type::None && instr.op != Op::Bra && instr.op != Op::Ret &&
      instr.op != Op::Exit && instr.op != Op::FenceOther &&
      instr.op != Op::Nop && instr.op != Op::Trap)
    return false;
  if (instr.op == Op::Cvt &&
      (instr.type2 == Type::None || instr.type2 == Type::F16x2 ||
       instr.type2 == Type::BF16x2))
    return false;
  if ((instr.op == Op::Atom || instr.op == Op::Red) &&
      (instr.type == Type::F16x2 || instr.type == Type::BF16x2))
    return false; // packed atomics
  return instr.type != Type::B128;
}

/// An instruction of `opNames` and its modifiers.
bool decodeNamed(Instruction &instr, const Opcode &opcode) {
  const std::vector<std::string> &parts = opcode.parts;
  const OpName *found = nullptr;
  for (const OpName &entry : opNames)
    if (parts[0] == entry.name)
      found = &entry;
  if (!found)
    return false;
  instr.op = found->op;
  std::vector<Type> types;
  for (size_t i = 1; i < parts.size(); ++i) {
    Type type;
    if (lookupType(parts[i], type))
      types.push_back(type);
    else if (!decodeCommonModifier(instr, parts[i]) &&
             !decodeOwnModifier(instr, parts[i]))
      return false;
  }
  if (types.size() > 2)
    return false;
  if (!types.empty())
    instr.type = types[0];
  if (types.size() == 2)
    instr.type2 = types[1];
  return isImplemented(instr, opcode);
}

using Decoder = bool (*)(Instruction &, const Opcode &);

/// The opcode families with a grammar of their own, by base name.
const std::pair<const char *, Decoder> families[] = {
    {"bar", decodeBarrier},       {"barrier", decodeBarrier},
    {"fence", decodeFence},       {"membar", decodeMembar},
    {"prefetch", decodePrefetch}, {"mbarrier", decodeMbarrier},
    {"cp", decodeAsyncCopy},      {"call", decodeCall},
    {"cvta", decodeCvta},
};

} // namespace

bool decodeInstruction(Instruction &instr, const std::string &text) {
  Opcode opcode{text, splitDots(text)};
  bool supported;
  if (decodeTensorCoreOpcode(instr, opcode.parts, supported))
    return supported;
  for (const auto &[base, decode] : families)
    if (opcode.parts[0] == base)
      return decode(instr, opcode);
  return decodeNamed(instr, opcode);
}

const TargetRequirement *getTargetRequirement(const Instruction &instr) {
  const char *feature = nullptr;
  switch (instr.op) {
  case Op::CpAsync:
  case Op::CpAsyncCommit:
  case Op::CpAsyncWait:
  case Op::CpAsyncWaitAll:
    feature = "cp.async";
    break;
  case Op::CpAsyncBulkTensor:
    feature = "cp.async.bulk.tensor";
    break;
  case Op::MbarInit:
  case Op::MbarInval:
  case Op::MbarArrive:
  case Op::MbarTestWait:
    feature = instr.flags & FlagExpectTx ? "mbarrier expect_tx" : "mbarrier";
    break;
  case Op::MbarExpectTx:
    feature = "mbarrier expect_tx";
    break;
  case Op::MbarTryWait:
    feature = "mbarrier.try_wait";
    break;
  case Op::FenceProxyAsync:
    feature = "fence.proxy.async";
    break;
  case Op::FenceMbarrierInit:
    feature = "fence.mbarrier_init";
    break;
  case Op::FenceTensormapAcquire:
    feature = "fence.proxy.tensormap";
    break;
  case Op::PrefetchTensormap:
    feature = "prefetch.tensormap";
    break;
  case Op::Ldmatrix:
    feature = "ldmatrix";
    break;
  case Op::Stmatrix:
    feature = "stmatrix";
    break;
  case Op::MmaSync:
    feature = "mma.sync m16n8k16/m16n8k8";
    break;
  case Op::WgmmaFence:
  case Op::WgmmaCommit:
  case Op::WgmmaWait:
  case Op::WgmmaMma:
    feature = "wgmma";
    break;
  default:
    if (instr.type == Type::S16x2 || instr.type == Type::U16x2)
      feature = "16-bit integer .s16x2/.u16x2";
  }
  if (!feature)
    return nullptr;
  for (const TargetRequirement &requirement : targetRequirements)
    if (std::strcmp(requirement.feature, feature) == 0)
      return &requirement;
  return nullptr;
}

} // namespace vx::ptxsim
