//===- Parser.cpp - PTX text to the decoded form --------------------------===//
//
// A recursive-descent parser for the subset of PTX (PTX ISA chapters 4 to
// 11) that LLVM's NVPTX back end and inline assembly emit: directives,
// entries and functions, register/variable declarations, scoped blocks
// (inline asm declares registers and labels in `{ }`), predicated
// instructions and their operands. The tokens come from Lexer.cpp; each
// instruction's opcode is decoded once by Opcodes.cpp, where an opcode or
// modifier the interpreter does not implement is an error naming it, so
// nothing unknown ever runs.
//
//===----------------------------------------------------------------------===//

#include "Lexer.h"
#include "Opcodes.h"
#include "Program.h"

#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <unordered_map>

namespace vx::ptxsim {

namespace {

struct SpecialName {
  const char *name;
  Special special;
};
const SpecialName specialNames[] = {
    {"%tid.x", Special::TidX},
    {"%tid.y", Special::TidY},
    {"%tid.z", Special::TidZ},
    {"%ntid.x", Special::NtidX},
    {"%ntid.y", Special::NtidY},
    {"%ntid.z", Special::NtidZ},
    {"%ctaid.x", Special::CtaidX},
    {"%ctaid.y", Special::CtaidY},
    {"%ctaid.z", Special::CtaidZ},
    {"%nctaid.x", Special::NctaidX},
    {"%nctaid.y", Special::NctaidY},
    {"%nctaid.z", Special::NctaidZ},
    {"%laneid", Special::Laneid},
    {"%warpid", Special::Warpid},
    {"%nwarpid", Special::NWarpid},
    {"%smid", Special::Smid},
    {"%dynamic_smem_size", Special::DynamicSmemSize},
    {"%total_smem_size", Special::TotalSmemSize},
    {"%clock", Special::Clock},
    {"%clock64", Special::Clock64},
    {"%globaltimer", Special::Globaltimer},
    {"%lanemask_eq", Special::LanemaskEq},
    {"%lanemask_lt", Special::LanemaskLt},
    {"%lanemask_le", Special::LanemaskLe},
    {"%lanemask_gt", Special::LanemaskGt},
    {"%lanemask_ge", Special::LanemaskGe},
    {"%cluster_ctarank", Special::ClusterCtarank},
    {"%cluster_nctarank", Special::ClusterNctarank},
};

struct ParseError : std::runtime_error {
  ParseError(uint32_t line, const std::string &what)
      : std::runtime_error(what), line(line) {}
  uint32_t line;
};

uint64_t alignTo(uint64_t value, uint64_t align) {
  return align ? (value + align - 1) / align * align : value;
}

/// A `{ }` scope of registers and labels.
struct Scope {
  std::unordered_map<std::string, uint32_t> regs;
  std::unordered_map<std::string, uint32_t> labels;
  // .param variables declared for calls: their frame offsets.
  std::unordered_map<std::string, uint64_t> params;
  // Branches in this scope to labels not yet resolved: instruction index,
  // operand index, label name.
  struct Fixup {
    size_t instr;
    unsigned operand;
    std::string label;
    uint32_t line;
  };
  std::vector<Fixup> fixups;
};

/// A symbol operand whose value is known once the module is parsed.
struct SymbolFixup {
  Function *function;
  size_t instr;
  unsigned operand;
  std::string symbol;
  uint32_t line;
};

class Parser {
public:
  explicit Parser(const std::string &text)
      : tokens(tokenize(text)), module(std::make_unique<Module>()) {
    size_t start = 0;
    for (size_t i = 0; i <= text.size(); ++i)
      if (i == text.size() || text[i] == '\n') {
        module->lines.push_back(text.substr(start, i - start));
        start = i + 1;
      }
  }

  std::unique_ptr<Module> parse();

private:
  const Token &peek(size_t ahead = 0) const {
    return tokens[std::min(pos + ahead, tokens.size() - 1)];
  }
  const Token &next() {
    const Token &token = peek();
    if (pos < tokens.size() - 1)
      ++pos;
    return token;
  }
  bool accept(const char *text) {
    if (peek().kind != Token::End && peek().text == text) {
      next();
      return true;
    }
    return false;
  }
  void expect(const char *text) {
    if (!accept(text))
      fail("expected '" + std::string(text) + "', got '" + peek().text + "'");
  }
  [[noreturn]] void fail(const std::string &what) const {
    throw ParseError(peek().line, what);
  }
  [[noreturn]] void fail(uint32_t line, const std::string &what) const {
    throw ParseError(line, what);
  }
  std::string expectIdent() {
    if (peek().kind != Token::Ident)
      fail("expected a name, got '" + peek().text + "'");
    return next().text;
  }
  uint64_t expectInteger() {
    bool negative = accept("-");
    if (peek().kind != Token::Number)
      fail("expected a number, got '" + peek().text + "'");
    uint64_t value = std::strtoull(next().text.c_str(), nullptr, 0);
    return negative ? -value : value;
  }

  void parseModuleDirective();
  Variable parseVariable(Space space, bool allowInit);
  void parseModuleVariable(Space space);
  void parseFunction(bool isEntry);
  void parseParamList(std::vector<Variable> &params, uint64_t &bytes);
  void parseBody(Function &function);
  void parseRegDecl(Function &function);
  void parseInstruction(Function &function);
  void decodeOpcode(Instruction &instr, const std::string &opcode);
  void checkTarget(const Instruction &instr, const std::string &opcode);
  Operand parseOperand(Function &function, Instruction &instr, unsigned index);
  Operand parseAddress(Function &function, Instruction &instr, unsigned index);
  uint32_t lookupReg(const std::string &name) const;
  bool lookupParam(const std::string &name, uint64_t &offset) const;
  void parseCall(Function &function, Instruction &instr);
  uint32_t addReg(Function &function, const std::string &name, Type type);
  void resolveSymbols();

  std::vector<Token> tokens;
  size_t pos = 0;
  std::unique_ptr<Module> module;
  std::vector<Scope> scopes;
  std::vector<SymbolFixup> symbolFixups;
};

std::unique_ptr<Module> Parser::parse() {
  while (peek().kind != Token::End) {
    const std::string &word = peek().text;
    if (word == ".version" || word == ".target" || word == ".address_size") {
      parseModuleDirective();
    } else if (word == ".visible" || word == ".weak" || word == ".extern") {
      next();
    } else if (word == ".entry" || word == ".func") {
      next();
      parseFunction(word == ".entry");
    } else if (word == ".global" || word == ".const" || word == ".shared") {
      Space space = word == ".global"  ? Space::Global
                    : word == ".const" ? Space::Const
                                       : Space::Shared;
      next();
      parseModuleVariable(space);
    } else if (word == ".file" || word == ".loc" || word == ".pragma") {
      uint32_t line = next().line;
      while (peek().kind != Token::End && peek().line == line &&
             peek().text != ";")
        next();
      accept(";");
    } else {
      fail("unsupported PTX directive '" + word + "'");
    }
  }
  resolveSymbols();
  return std::move(module);
}

/// .version, .target (the chip decides the shared-memory limit) and
/// .address_size.
void Parser::parseModuleDirective() {
  std::string word = next().text;
  if (word == ".target") {
    module->target = expectIdent();
    if (module->target.rfind("sm_", 0) == 0)
      module->smVersion = std::atoi(module->target.c_str() + 3);
    module->archSpecific = module->target.back() == 'a';
    while (accept(","))
      expectIdent();
    return;
  }
  if (word == ".version") {
    // The lexer keeps X.Y as one number.
    std::string version = next().text;
    size_t dot = version.find('.');
    module->ptxVersion =
        10 * std::atoi(version.c_str()) +
        (dot == std::string::npos ? 0 : std::atoi(version.c_str() + dot + 1));
    return;
  }
  // .address_size 64
  next();
}

/// `[.align N] [.vN] .type name[N]...[ = init]` after the state space.
Variable Parser::parseVariable(Space space, bool allowInit) {
  Variable var;
  var.space = space;
  Type type = Type::None;
  unsigned vector = 1;
  uint64_t explicitAlign = 0;
  bool isPointer = false;
  while (peek().kind == Token::Ident && peek().text[0] == '.') {
    std::string word = next().text;
    if (word == ".align") {
      explicitAlign = expectInteger();
    } else if (word == ".v2" || word == ".v4") {
      vector = word[2] - '0';
    } else if (word == ".ptr" || word == ".global" || word == ".shared" ||
               word == ".const" || word == ".local") {
      // .param .u64 .ptr .global .align 1: the .align is the pointee's.
      isPointer = true;
    } else if (!lookupType(word.substr(1), type)) {
      fail("unsupported variable attribute '" + word + "'");
    }
  }
  var.name = expectIdent();
  uint64_t elementBytes = getTypeBytes(type) * vector;
  var.align = explicitAlign && !isPointer ? explicitAlign
                                          : std::max<uint64_t>(1, elementBytes);
  uint64_t count = 1;
  bool unsized = false;
  while (accept("[")) {
    if (accept("]")) {
      unsized = true;
      continue;
    }
    count *= expectInteger();
    expect("]");
  }
  var.size = unsized ? 0 : count * elementBytes;
  var.isExtern = unsized;
  if (allowInit && accept("=")) {
    std::vector<uint64_t> values;
    bool braced = accept("{");
    do {
      if (peek().kind != Token::Number && peek().text != "-")
        fail("unsupported initializer '" + peek().text + "'");
      bool negative = accept("-");
      std::string text = next().text;
      uint64_t value;
      if (text.size() > 2 && text[0] == '0' &&
          (text[1] == 'f' || text[1] == 'd'))
        value = std::strtoull(text.c_str() + 2, nullptr, 16);
      else
        value = std::strtoull(text.c_str(), nullptr, 0);
      values.push_back(negative ? -value : value);
    } while (braced && accept(","));
    if (braced)
      expect("}");
    var.init.assign(var.size, 0);
    for (size_t i = 0; i < values.size() && (i + 1) * elementBytes <= var.size;
         ++i)
      std::memcpy(var.init.data() + i * elementBytes, &values[i],
                  std::min<uint64_t>(elementBytes, 8));
  }
  return var;
}

void Parser::parseModuleVariable(Space space) {
  Variable var = parseVariable(space, /*allowInit=*/true);
  expect(";");
  if (space == Space::Shared) {
    module->moduleShareds.push_back(std::move(var));
    return;
  }
  var.offset = alignTo(module->globalData.size(), var.align);
  module->globalData.resize(var.offset + var.size);
  if (!var.init.empty())
    std::memcpy(module->globalData.data() + var.offset, var.init.data(),
                var.size);
  module->globals.push_back(std::move(var));
}

void Parser::parseParamList(std::vector<Variable> &params, uint64_t &bytes) {
  expect("(");
  if (accept(")"))
    return;
  do {
    std::string space = expectIdent();
    if (space != ".param" && space != ".reg")
      fail("unsupported parameter space '" + space + "'");
    Variable var = parseVariable(Space::Param, /*allowInit=*/false);
    var.offset = alignTo(bytes, var.align);
    bytes = var.offset + var.size;
    params.push_back(std::move(var));
  } while (accept(","));
  expect(")");
}

void Parser::parseFunction(bool isEntry) {
  auto function = std::make_unique<Function>();
  function->isEntry = isEntry;
  if (!isEntry && peek().text == "(")
    parseParamList(function->returns, function->paramBytes);
  function->name = expectIdent();
  if (peek().text == "(")
    parseParamList(function->params, function->paramBytes);
  function->frameParamBytes = function->paramBytes;
  // Performance directives up to the body.
  while (peek().kind == Token::Ident && peek().text[0] == '.') {
    std::string word = next().text;
    uint32_t *bounds = word == ".maxntid"   ? function->maxntid
                       : word == ".reqntid" ? function->reqntid
                                            : nullptr;
    unsigned index = 0;
    do {
      if (peek().kind != Token::Number)
        break;
      uint64_t value = expectInteger();
      if (bounds && index < 3)
        bounds[index++] = static_cast<uint32_t>(value);
    } while (accept(","));
    if (bounds)
      for (; index < 3; ++index)
        bounds[index] = 1;
  }
  if (accept(";"))
    return; // a prototype
  Function &ref = *function;
  module->functionsByName[function->name] = function.get();
  module->functions.push_back(std::move(function));
  expect("{");
  scopes.clear();
  scopes.emplace_back();
  parseBody(ref);
  Instruction ret;
  ret.op = Op::Ret;
  ret.line = peek().line;
  ref.code.push_back(ret);
  expect("}");
}

bool Parser::lookupParam(const std::string &name, uint64_t &offset) const {
  for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
    auto found = it->params.find(name);
    if (found != it->params.end()) {
      offset = found->second;
      return true;
    }
  }
  return false;
}

void Parser::parseCall(Function &function, Instruction &instr) {
  // call{.uni} (ret), name, (args); -- the lists name .param variables.
  CallSite site;
  site.line = instr.line;
  auto parseList = [&](std::vector<uint64_t> &offsets) {
    expect("(");
    if (accept(")"))
      return;
    do {
      std::string name = expectIdent();
      uint64_t offset;
      if (!lookupParam(name, offset))
        fail("call operand '" + name + "' is not a .param variable");
      offsets.push_back(offset);
    } while (accept(","));
    expect(")");
  };
  if (peek().text == "(") {
    parseList(site.returnOffsets);
    expect(",");
  }
  site.callee = expectIdent();
  if (accept(","))
    parseList(site.argumentOffsets);
  if (peek().text != ";")
    fail("unsupported: indirect calls (call through a prototype)");
  instr.numOps = 1;
  instr.ops[0].kind = Operand::Imm;
  instr.ops[0].imm = static_cast<int64_t>(function.callSites.size());
  function.callSites.push_back(std::move(site));
}

uint32_t Parser::lookupReg(const std::string &name) const {
  for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
    auto found = it->regs.find(name);
    if (found != it->regs.end())
      return found->second;
  }
  return NoReg;
}

uint32_t Parser::addReg(Function &function, const std::string &name,
                        Type type) {
  uint32_t slot = function.numRegs++;
  function.regNames.push_back(name);
  function.regTypes.push_back(type);
  scopes.back().regs[name] = slot;
  return slot;
}

void Parser::parseRegDecl(Function &function) {
  Type type = Type::None;
  while (peek().kind == Token::Ident && peek().text[0] == '.') {
    std::string word = next().text;
    if (word == ".v2" || word == ".v4" || word == ".align")
      fail("unsupported register declaration '" + word + "'");
    if (!lookupType(word.substr(1), type))
      fail("unsupported register type '" + word + "'");
  }
  do {
    std::string name = expectIdent();
    if (accept("<")) {
      uint64_t count = expectInteger();
      expect(">");
      for (uint64_t i = 0; i < count; ++i)
        addReg(function, name + std::to_string(i), type);
    } else {
      addReg(function, name, type);
    }
  } while (accept(","));
  expect(";");
}

void Parser::parseBody(Function &function) {
  while (peek().text != "}") {
    if (peek().kind == Token::End)
      fail("unterminated function body");
    const Token &token = peek();
    if (token.text == "{") {
      next();
      scopes.emplace_back();
      parseBody(function);
      expect("}");
      // Resolve the scope's branches; the rest go to the enclosing scope.
      Scope inner = std::move(scopes.back());
      scopes.pop_back();
      for (Scope::Fixup &fixup : inner.fixups) {
        auto found = inner.labels.find(fixup.label);
        if (found != inner.labels.end())
          function.code[fixup.instr].ops[fixup.operand].imm = found->second;
        else
          scopes.back().fixups.push_back(std::move(fixup));
      }
      continue;
    }
    if (token.text == ".reg") {
      next();
      parseRegDecl(function);
      continue;
    }
    if (token.text == ".extern") {
      // `.extern .shared .align 16 .b8 name[];`: the unsized array says it.
      next();
      continue;
    }
    if (token.text == ".shared" || token.text == ".local" ||
        token.text == ".param") {
      Space space = token.text == ".shared"  ? Space::Shared
                    : token.text == ".local" ? Space::Local
                                             : Space::Param;
      next();
      Variable var = parseVariable(space, /*allowInit=*/false);
      expect(";");
      if (space == Space::Shared) {
        function.shareds.push_back(std::move(var));
      } else if (space == Space::Local) {
        if (!function.isEntry)
          fail(token.line, "unsupported: .local variables in a .func");
        var.offset = alignTo(function.localBytes, var.align);
        function.localBytes = var.offset + var.size;
        function.locals.push_back(std::move(var));
      } else {
        var.offset = alignTo(function.frameParamBytes, var.align);
        function.frameParamBytes = var.offset + var.size;
        scopes.back().params[var.name] = var.offset;
      }
      continue;
    }
    if (token.text == ".pragma" || token.text == ".loc") {
      uint32_t line = next().line;
      while (peek().line == line && peek().text != ";")
        next();
      accept(";");
      continue;
    }
    if (token.kind == Token::Ident && peek(1).text == ":" &&
        token.text[0] != '.') {
      scopes.back().labels[token.text] =
          static_cast<uint32_t>(function.code.size());
      next();
      next();
      continue;
    }
    parseInstruction(function);
  }
  // Labels of the function scope resolve the remaining branches.
  if (scopes.size() == 1) {
    for (Scope::Fixup &fixup : scopes.back().fixups) {
      auto found = scopes.back().labels.find(fixup.label);
      if (found == scopes.back().labels.end())
        fail(fixup.line, "unknown label '" + fixup.label + "'");
      function.code[fixup.instr].ops[fixup.operand].imm = found->second;
    }
    scopes.back().fixups.clear();
  }
}

/// An instruction newer than the module's .target or .version is an error,
/// as ptxas makes it ("Feature ... requires .target sm_90 or higher").
void Parser::checkTarget(const Instruction &instr, const std::string &opcode) {
  const TargetRequirement *requirement = getTargetRequirement(instr);
  if (!requirement)
    return;
  if (module->smVersion < requirement->smVersion ||
      (requirement->archSpecific && !module->archSpecific))
    fail("'" + opcode + "' (" + requirement->feature +
         ") requires .target sm_" + std::to_string(requirement->smVersion) +
         (requirement->archSpecific ? "a" : " or higher") +
         ", the module's is " +
         (module->target.empty() ? "missing" : module->target));
  if (module->ptxVersion < requirement->ptxVersion)
    fail("'" + opcode + "' (" + requirement->feature +
         ") requires PTX ISA .version " +
         std::to_string(requirement->ptxVersion / 10) + "." +
         std::to_string(requirement->ptxVersion % 10) +
         " or later, the module's is " +
         std::to_string(module->ptxVersion / 10) + "." +
         std::to_string(module->ptxVersion % 10));
}

void Parser::decodeOpcode(Instruction &instr, const std::string &opcode) {
  if (!decodeInstruction(instr, opcode))
    fail("unsupported PTX instruction '" + opcode + "'");
}

Operand Parser::parseAddress(Function &function, Instruction &instr,
                             unsigned index) {
  Operand operand;
  operand.kind = Operand::Address;
  operand.reg = NoReg;
  if (peek().kind == Token::Number || peek().text == "-") {
    operand.imm = static_cast<int64_t>(expectInteger());
  } else {
    std::string name = expectIdent();
    uint32_t reg = lookupReg(name);
    uint64_t paramOffset;
    if (reg != NoReg) {
      operand.reg = reg;
    } else if (lookupParam(name, paramOffset)) {
      operand.imm = static_cast<int64_t>(paramOffset);
      if (instr.space == Space::Generic)
        instr.space = Space::Param;
    } else {
      symbolFixups.push_back(
          {&function, function.code.size(), index, name, peek().line});
    }
    if (accept("+")) {
      operand.imm += static_cast<int64_t>(expectInteger());
    } else if (peek().text == "-") {
      operand.imm += static_cast<int64_t>(expectInteger());
    }
  }
  return operand;
}

int64_t parseImmediate(const std::string &text) {
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'f' || text[1] == 'F'))
    return static_cast<int64_t>(std::strtoull(text.c_str() + 2, nullptr, 16));
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'd' || text[1] == 'D'))
    return static_cast<int64_t>(std::strtoull(text.c_str() + 2, nullptr, 16));
  bool hexadecimal =
      text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  if (!hexadecimal && (text.find('.') != std::string::npos ||
                       text.find_first_of("eE") != std::string::npos)) {
    double value = std::strtod(text.c_str(), nullptr);
    int64_t bits;
    std::memcpy(&bits, &value, 8);
    return bits;
  }
  return static_cast<int64_t>(std::strtoull(text.c_str(), nullptr, 0));
}

Operand Parser::parseOperand(Function &function, Instruction &instr,
                             unsigned index) {
  Operand operand;
  if (accept("[")) {
    operand = parseAddress(function, instr, index);
    if (accept(",")) {
      // cp.async.bulk.tensor's [tensorMap, {coordinates}]: the vector goes
      // into the next operand slot.
      expect("{");
      Operand coords;
      coords.kind = Operand::Vector;
      coords.vecStart = static_cast<uint32_t>(function.vectorRegs.size());
      do {
        std::string name = expectIdent();
        uint32_t reg = lookupReg(name);
        if (reg == NoReg)
          fail("unknown register '" + name + "'");
        function.vectorRegs.push_back(reg);
      } while (accept(","));
      expect("}");
      coords.vecCount =
          static_cast<uint32_t>(function.vectorRegs.size()) - coords.vecStart;
      instr.ops[index + 1] = coords;
      ++instr.numOps;
    }
    expect("]");
    return operand;
  }
  if (accept("{")) {
    operand.kind = Operand::Vector;
    operand.vecStart = static_cast<uint32_t>(function.vectorRegs.size());
    do {
      if (peek().kind == Token::Number || peek().text == "-") {
        bool negative = accept("-");
        int64_t value = parseImmediate(next().text);
        function.vectorRegs.push_back(
            ConstantBit | static_cast<uint32_t>(function.constants.size()));
        function.constants.push_back(negative ? -value : value);
        continue;
      }
      std::string name = expectIdent();
      uint32_t reg = name == "_" ? NoReg : lookupReg(name);
      if (reg == NoReg && name != "_")
        fail("unknown register '" + name + "'");
      function.vectorRegs.push_back(reg);
    } while (accept(","));
    expect("}");
    operand.vecCount =
        static_cast<uint32_t>(function.vectorRegs.size()) - operand.vecStart;
    return operand;
  }
  if (accept("!")) {
    operand = parseOperand(function, instr, index);
    if (operand.kind != Operand::Reg)
      fail("'!' applies to a predicate register");
    operand.negate = true;
    return operand;
  }
  if (peek().kind == Token::Number || peek().text == "-") {
    bool negative = accept("-");
    if (peek().kind != Token::Number)
      fail("expected a number, got '" + peek().text + "'");
    operand.kind = Operand::Imm;
    operand.imm = parseImmediate(next().text);
    if (negative)
      operand.imm = -operand.imm;
    return operand;
  }
  std::string name = expectIdent();
  if (name == "_") {
    operand.kind = Operand::Sink;
    return operand;
  }
  uint32_t reg = lookupReg(name);
  if (reg != NoReg) {
    operand.kind = Operand::Reg;
    operand.reg = reg;
    return operand;
  }
  if (name[0] == '%') {
    for (const SpecialName &entry : specialNames)
      if (name == entry.name) {
        operand.kind = Operand::Special;
        operand.special = entry.special;
        return operand;
      }
    fail("unsupported special register or unknown register '" + name + "'");
  }
  if (instr.op == Op::Bra) {
    operand.kind = Operand::Label;
    scopes.back().fixups.push_back(
        {function.code.size(), index, name, peek().line});
    return operand;
  }
  // A symbol's address (mov.u64 %rd, sym), resolved after parsing.
  operand.kind = Operand::Imm;
  symbolFixups.push_back(
      {&function, function.code.size(), index, name, peek().line});
  return operand;
}

void Parser::parseInstruction(Function &function) {
  Instruction instr;
  instr.line = peek().line;
  if (accept("@")) {
    bool negated = accept("!");
    std::string name = expectIdent();
    instr.guard = lookupReg(name);
    if (instr.guard == NoReg)
      fail("unknown predicate '" + name + "'");
    instr.guardNegated = negated;
  }
  if (peek().kind != Token::Ident)
    fail("expected an instruction, got '" + peek().text + "'");
  std::string opcode = next().text;
  decodeOpcode(instr, opcode);
  checkTarget(instr, opcode);
  if (instr.op == Op::Call)
    parseCall(function, instr);
  // Operands up to ';'; the `p` of a `d|p` destination goes aside.
  if (peek().text != ";" && instr.op != Op::Call) {
    do {
      if (instr.numOps >= (instr.flags & FlagPair ? PairOperand : MaxOperands))
        fail("too many operands");
      unsigned index = instr.numOps++;
      instr.ops[index] = parseOperand(function, instr, index);
      if (index == 0 && accept("|")) {
        instr.ops[PairOperand] = parseOperand(function, instr, PairOperand);
        if (instr.ops[PairOperand].kind != Operand::Reg)
          fail("the second destination must be a predicate register");
        instr.flags |= FlagPair;
      }
    } while (accept(","));
  }
  expect(";");
  // ld/st.vN move N elements: the register vector must have them.
  if (instr.op == Op::Ld || instr.op == Op::St) {
    const Operand &data = instr.ops[instr.op == Op::Ld ? 0 : 1];
    unsigned count = data.kind == Operand::Vector ? data.vecCount : 1;
    if (count != instr.vector)
      fail(instr.line,
           "'" + opcode + "' moves " + std::to_string(instr.vector) +
               " element(s), its operand has " + std::to_string(count));
  }
  function.code.push_back(instr);
}

/// ptxas's layout of a kernel's shared memory: the static symbols (module
/// then function scope) in declaration order at their alignment, then the
/// extern dynamic array at its alignment (at least 16, the dynamic base's).
SharedLayout layOutShared(const Module &module, const Function &function) {
  SharedLayout shared;
  uint64_t offset = 0, externAlign = 16;
  std::vector<Variable> all = module.moduleShareds;
  all.insert(all.end(), function.shareds.begin(), function.shareds.end());
  for (Variable var : all) {
    if (var.isExtern) {
      externAlign = std::max(externAlign, var.align);
    } else {
      var.offset = alignTo(offset, var.align);
      offset = var.offset + var.size;
    }
    shared.symbols.push_back(var);
  }
  shared.staticBytes = offset;
  shared.dynamicOffset = alignTo(offset, externAlign);
  for (Variable &var : shared.symbols)
    if (var.isExtern)
      var.offset = shared.dynamicOffset;
  return shared;
}

void Parser::resolveSymbols() {
  for (auto &function : module->functions) {
    module->sharedLayouts[function.get()] = layOutShared(*module, *function);
    for (CallSite &site : function->callSites) {
      auto callee = module->functionsByName.find(site.callee);
      if (callee == module->functionsByName.end() || callee->second->isEntry)
        fail(site.line, "call of '" + site.callee +
                            "', which is not a .func defined in the module");
      const Function &target = *callee->second;
      if (site.argumentOffsets.size() != target.params.size() ||
          site.returnOffsets.size() != target.returns.size())
        fail(site.line, "call of '" + site.callee +
                            "' with the wrong number of parameters");
      site.function = &target;
    }
  }
  for (const SymbolFixup &fixup : symbolFixups) {
    Function &function = *fixup.function;
    Operand &operand = function.code[fixup.instr].ops[fixup.operand];
    Instruction &instr = function.code[fixup.instr];
    bool found = false;
    auto bind = [&](uint64_t value, Space space) {
      operand.imm += static_cast<int64_t>(value);
      found = true;
      // A symbol address in an ld/st decides the space when the
      // instruction names none.
      if (operand.kind == Operand::Address && instr.space == Space::Generic)
        instr.space = space;
    };
    for (const std::vector<Variable> *vars :
         {&function.params, &function.returns})
      for (const Variable &var : *vars)
        if (!found && var.name == fixup.symbol)
          bind(var.offset, Space::Param);
    for (const Variable &var : function.locals)
      if (!found && var.name == fixup.symbol)
        bind(var.offset, Space::Local);
    if (!found)
      for (const Variable &var : module->sharedLayouts[&function].symbols)
        if (!found && var.name == fixup.symbol)
          bind(var.offset, Space::Shared);
    for (const Variable &var : module->globals)
      if (!found && var.name == fixup.symbol)
        bind(reinterpret_cast<uint64_t>(module->globalData.data()) + var.offset,
             var.space);
    if (!found)
      fail(fixup.line, "unknown symbol '" + fixup.symbol + "'");
  }
}

} // namespace

std::unique_ptr<Module> parseModule(const std::string &text,
                                    std::string &error) {
  Parser parser(text);
  try {
    std::unique_ptr<Module> module = parser.parse();
    return module;
  } catch (const ParseError &e) {
    error = "PTX line " + std::to_string(e.line) + ": " + e.what();
    return nullptr;
  }
}

std::string getLineText(const Module &module, uint32_t line) {
  if (line == 0 || line > module.lines.size())
    return "";
  const std::string &text = module.lines[line - 1];
  size_t begin = text.find_first_not_of(" \t");
  size_t end = text.find_last_not_of(" \t\r");
  if (begin == std::string::npos)
    return "";
  return text.substr(begin, end - begin + 1);
}

} // namespace vx::ptxsim
