//===- Lexer.cpp - PTX tokens and type names ------------------------------===//
//
// PTX ISA 4 (syntax): identifiers, numbers and punctuation; 5.2 (types).
//
//===----------------------------------------------------------------------===//

#include "Lexer.h"

#include <cctype>

namespace vx::ptxsim {

namespace {

struct TypeName {
  const char *name;
  Type type;
};
const TypeName typeNames[] = {
    {"pred", Type::Pred},   {"b8", Type::B8},     {"b16", Type::B16},
    {"b32", Type::B32},     {"b64", Type::B64},   {"b128", Type::B128},
    {"u8", Type::U8},       {"u16", Type::U16},   {"u32", Type::U32},
    {"u64", Type::U64},     {"s8", Type::S8},     {"s16", Type::S16},
    {"s32", Type::S32},     {"s64", Type::S64},   {"f16", Type::F16},
    {"f16x2", Type::F16x2}, {"bf16", Type::BF16}, {"bf16x2", Type::BF16x2},
    {"f32", Type::F32},     {"f64", Type::F64},   {"s16x2", Type::S16x2},
    {"u16x2", Type::U16x2},
};

} // namespace

bool lookupType(const std::string &name, Type &type) {
  for (const TypeName &entry : typeNames)
    if (name == entry.name) {
      type = entry.type;
      return true;
    }
  return false;
}

/// Splits PTX into tokens: identifiers take dots and `::` (opcodes,
/// directives, `%tid.x`), numbers their PTX forms (0f/0d hex floats, 0x,
/// decimal with an optional exponent), the rest is punctuation.
std::vector<Token> tokenize(const std::string &text) {
  std::vector<Token> tokens;
  uint32_t line = 1;
  size_t i = 0, n = text.size();
  auto isIdentStart = [](char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_' ||
           c == '$' || c == '%' || c == '.';
  };
  auto isIdentChar = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
           c == '$' || c == '.';
  };
  while (i < n) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      while (i < n && text[i] != '\n')
        ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && text[i + 1] == '*') {
      i += 2;
      while (i + 1 < n && !(text[i] == '*' && text[i + 1] == '/')) {
        if (text[i] == '\n')
          ++line;
        ++i;
      }
      i += 2;
      continue;
    }
    if (c == '"') {
      size_t start = i++;
      while (i < n && text[i] != '"')
        ++i;
      ++i;
      tokens.push_back({Token::Ident, text.substr(start, i - start), line});
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t start = i;
      if (c == '0' && i + 1 < n &&
          (text[i + 1] == 'f' || text[i + 1] == 'F' || text[i + 1] == 'd' ||
           text[i + 1] == 'D' || text[i + 1] == 'x' || text[i + 1] == 'X')) {
        i += 2;
        while (i < n && std::isxdigit(static_cast<unsigned char>(text[i])))
          ++i;
      } else {
        while (i < n && (std::isdigit(static_cast<unsigned char>(text[i])) ||
                         text[i] == '.'))
          ++i;
        if (i < n && (text[i] == 'e' || text[i] == 'E')) {
          ++i;
          if (i < n && (text[i] == '+' || text[i] == '-'))
            ++i;
          while (i < n && std::isdigit(static_cast<unsigned char>(text[i])))
            ++i;
        }
      }
      if (i < n && text[i] == 'U')
        ++i;
      tokens.push_back({Token::Number, text.substr(start, i - start), line});
      continue;
    }
    if (isIdentStart(c)) {
      size_t start = i++;
      while (i < n) {
        if (isIdentChar(text[i])) {
          ++i;
        } else if (text[i] == ':' && i + 1 < n && text[i + 1] == ':') {
          i += 2;
        } else {
          break;
        }
      }
      tokens.push_back({Token::Ident, text.substr(start, i - start), line});
      continue;
    }
    tokens.push_back({Token::Punct, std::string(1, c), line});
    ++i;
  }
  tokens.push_back({Token::End, "", line});
  return tokens;
}

std::vector<std::string> splitDots(const std::string &name) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t i = 0; i <= name.size(); ++i)
    if (i == name.size() || name[i] == '.') {
      parts.push_back(name.substr(start, i - start));
      start = i + 1;
    }
  return parts;
}

} // namespace vx::ptxsim
