// Infix expression parser.
//
// Grammar (precedence from low to high; `^` is right-associative and binds tighter than unary
// minus, so `-x^2` is `-(x^2)` and `2^3^2` is `2^(3^2)`):
//   equation := expr ['=' expr]      (the start symbol with ParseOptions::equation; else expr)
//   expr    := term (('+' | '-') term)*
//   term    := unary (('*' | '/') unary)*
//   unary   := ('-' | '+') unary | power
//   power   := primary ('^' unary)?
//   primary := number | name | name '(' expr (',' expr)* ')' | '(' expr ')' | derivative
//   derivative := 'der' '(' (name | derivative) ')'     (only with ParseOptions::derivatives)
//   number  := digits ['.' digits] | '.' digits, then optionally [eE] [+-] digits
//   name    := [A-Za-z_][A-Za-z0-9_]*      (spaces, tabs and line breaks separate tokens)
// Functions: sin cos tan asin acos atan sinh cosh tanh exp log sqrt abs sign floor (one
// argument), atan2 min max pow mod (two; pow(a, b) = a^b, mod(a, b) = a − b·floor(a/b), which has
// b's sign), select (three: select(c, p, q) = c > 0 ? p : q, the node that derivatives of
// min/max use). The name `pi` is the constant π. A function name
// without '(' is an error; every other name becomes a symbol; the caller (core/model) decides
// which names are known. With ParseOptions::derivatives, der(x) is the time derivative of the
// name x: the symbol named DerivativeName("x") = "der(x)" (der(der(x)) = "der(der(x))"), recorded
// in ParseResult::names as a use of x with derivative_order 1 (2, …); der() of anything but a
// name or another der() is an error at that operand, and `der` alone is an error. Without the
// option `der(` is an error saying where derivatives belong, and `der` alone is an ordinary
// name. With ParseOptions::equation, `lhs = rhs` parses to the residual lhs − rhs and a text
// without '=' to itself (the equations of implicit models). Numbers out of double range are
// errors (tiny ones become 0 or a subnormal), and so is a sub-expression that folds to NaN or
// ±inf (expr.h: `1/0`, `0*log(0)`, `0/(x-x)`) unless ParseOptions::non_finite_constants.
// Construction goes through the simplifying Context methods, so `x - x` parses to the constant 0
// (its names are still recorded).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "tether/expr/expr.h"

namespace tether::expr {

// One use of a name in the text, for validation messages (did-you-mean, column).
struct NameUse {
  std::string name;
  int column = 0;            // 1-based column of the name's first character
  int derivative_order = 0;  // k for a use inside k nested der(): der(x) is x with order 1
};

// The symbol name of der(operand): "der(" + operand + ")". One definition for the parser and
// for everything that builds derivative symbols (tether/structure/jets.h nests it).
std::string DerivativeName(std::string_view operand);

// What the language accepts beyond the default grammar.
struct ParseOptions {
  // der(name), nested der(der(name)): the time derivative symbols of fully implicit models.
  bool derivatives = false;
  // `lhs = rhs` (at most one '='), parsed to lhs − rhs.
  bool equation = false;
  // Accept sub-expressions that fold to NaN or ±inf (the texts ToString prints for
  // non-finite constants: (0/0), (1/0), (-1/0)). Without it such a sub-expression is an error at
  // its first column: "'0/(x-x)' is always NaN; a sub-expression that is constant must be finite".
  bool non_finite_constants = false;
};

struct ParseError {
  int column = 0;       // 1-based column where the problem was found
  std::string message;  // says what was found and what was expected; does not repeat `column`
};

// "col 5: expected ')' to close '(' at col 1, found end of input".
std::string Describe(const ParseError& error);

struct ParseResult {
  Expr expr;                   // valid iff `error.message` is empty
  std::vector<NameUse> names;  // every symbol use, in text order (functions and `pi` excluded)
  ParseError error;

  [[nodiscard]] bool ok() const { return error.message.empty(); }
};

// Limits that keep a hostile input from being processed (checked while parsing).
struct ParseLimits {
  std::size_t max_length = 1 << 16;  // characters of one expression
  int max_depth = 200;               // nesting: each open '(' or call, unary sign and '^'
                                     // exponent counts one level while it is open

  // Largest max_depth accepted. Each level costs a few frames of the recursive parser, measured
  // under 400 bytes in all (GCC 12, -O2), so 2000 levels need under 1 MiB of stack; a gRPC or
  // std::thread stack is 8 MiB by default on Linux.
  static constexpr int kMaxDepthLimit = 2000;

  // Largest max_length accepted: columns are `int`.
  static constexpr std::size_t kMaxLengthLimit = 1u << 30;

  // 1 ≤ max_length ≤ kMaxLengthLimit and 1 ≤ max_depth ≤ kMaxDepthLimit.
  bool IsValid(std::string* why) const;
};

// Whether `name` has a meaning of its own in the language: a function name (sin … pow,
// select) or the constant `pi`. A model may not name anything so.
bool IsReservedName(std::string_view name);

// Parses `text` into `context`. Never throws or aborts on bad input: the first error found is
// returned (and `expr` is invalid). Nodes built before an error stay in the context. Invalid
// `limits` are reported as an error at column 1.
ParseResult Parse(Context& context, std::string_view text, const ParseLimits& limits = {},
                  const ParseOptions& options = {});

}  // namespace tether::expr
