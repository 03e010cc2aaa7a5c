//===- Lexer.h - PTX tokens and type names ----------------------*- C++ -*-===//
//
// The parser's lexical layer (Lexer.cpp): PTX text as tokens, dotted names
// as their parts, type names as Type.
//
//===----------------------------------------------------------------------===//

#ifndef VX_LIB_PTXSIM_LEXER_H
#define VX_LIB_PTXSIM_LEXER_H

#include "Program.h"

#include <string>
#include <vector>

namespace vx::ptxsim {

struct Token {
  enum Kind { Ident, Number, Punct, End } kind;
  std::string text;
  uint32_t line;
};

/// Splits PTX into tokens: identifiers take dots and `::` (opcodes,
/// directives, `%tid.x`), numbers their PTX forms (0f/0d hex floats, 0x,
/// decimal with an optional exponent), the rest is punctuation.
std::vector<Token> tokenize(const std::string &text);

/// `a.b.c` as {"a", "b", "c"}.
std::vector<std::string> splitDots(const std::string &name);

/// The Type a PTX type name (without its dot) names; false for none.
bool lookupType(const std::string &name, Type &type);

} // namespace vx::ptxsim

#endif // VX_LIB_PTXSIM_LEXER_H
