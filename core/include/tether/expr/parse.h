// Infix expression parser.
//
// Grammar (precedence from low to high; `^` is right-associative and binds tighter than unary
// minus, so `-x^2` is `-(x^2)` and `2^3^2` is `2^(3^2)`):
//   expr    := term (('+' | '-') term)*
//   term    := unary (('*' | '/') unary)*
//   unary   := ('-' | '+') unary | power
//   power   := primary ('^' unary)?
//   primary := number | name | name '(' expr (',' expr)* ')' | '(' expr ')'
//   number  := digits ['.' digits] | '.' digits, then optionally [eE] [+-] digits
// Functions: sin cos tan asin acos atan sinh cosh tanh exp log sqrt abs sign (one argument),
// atan2 min max pow (two). The name `pi` is the constant π. Every other name becomes a symbol;
// the caller (core/model) decides which names are known.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tether/expr/expr.h"

namespace tether::expr {

// One use of a name in the text, for validation messages (did-you-mean, column).
struct NameUse {
  std::string name;
  int column = 0;  // 1-based column of the name's first character
};

struct ParseError {
  int column = 0;       // 1-based column where the problem was found
  std::string message;  // says what was found and what was expected
};

struct ParseResult {
  Expr expr;                   // valid iff `error.message` is empty
  std::vector<NameUse> names;  // every symbol use, in text order (functions and `pi` excluded)
  ParseError error;

  [[nodiscard]] bool ok() const { return error.message.empty(); }
};

// Limits that keep a hostile input from being processed (checked while parsing).
struct ParseLimits {
  std::size_t max_length = 1 << 16;  // characters of one expression
  int max_depth = 200;               // nesting of parentheses, unary operators and calls
};

ParseResult Parse(Context& context, std::string_view text, const ParseLimits& limits = {});

}  // namespace tether::expr
