// Recursive-descent parser for the grammar in parse.h. Every recursive step (a parenthesis,
// a unary operator, a call, the exponent of ^) counts one level towards
// ParseLimits::max_depth, so the recursion is bounded whatever the input; sums and products
// are loops.

#include "tether/expr/parse.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include "expr/functions.h"
#include "tether/expr/suggest.h"

namespace tether::expr {
namespace {

bool IsDigit(char ch) { return ch >= '0' && ch <= '9'; }
bool IsNameStart(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
}
bool IsNameChar(char ch) { return IsNameStart(ch) || IsDigit(ch); }

// A literal out of double range whose magnitude is below it: a negative exponent, or no
// exponent and a leading zero ("0.000…1").
bool IsUnderflow(std::string_view number) {
  const std::size_t e = number.find_first_of("eE");
  if (e != std::string_view::npos) return e + 1 < number.size() && number[e + 1] == '-';
  return number.front() == '0' || number.front() == '.';
}

// The closest function name to `name`, or empty when none is close (distance ≤ 2 and less
// than the name's length, so that 'f' does not suggest 'exp').
std::string_view ClosestFunction(std::string_view name) {
  if (name == "ln") return "log";
  if (name == "arctan") return "atan";
  std::string_view best;
  std::size_t best_distance = 3;
  for (const internal::FunctionInfo& f : internal::Functions()) {
    const std::size_t d = EditDistance(name, f.name);
    if (d < best_distance && d < name.size()) {
      best = f.name;
      best_distance = d;
    }
  }
  return best;
}

// The derivative operator of implicit models (ParseOptions::derivatives).
constexpr std::string_view kDerivative = "der";

enum class TokenKind { kEnd, kNumber, kName, kSymbol };

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string_view text;
  int column = 1;
  double number = 0.0;
};

class Parser {
 public:
  Parser(Context& context, std::string_view text, const ParseLimits& limits,
         const ParseOptions& options)
      : context_(context), text_(text), limits_(limits), options_(options) {}

  ParseResult Run() {
    ParseResult result;
    std::string why;
    if (!limits_.IsValid(&why)) {
      Fail(1, why);
    } else if (text_.size() > limits_.max_length) {
      Fail(1, "expression is " + std::to_string(text_.size()) + " characters long; the limit is " +
                  std::to_string(limits_.max_length));
    } else if (Advance()) {
      const std::optional<Expr> e = options_.equation ? ParseEquation() : ParseSum();
      if (e && token_.kind != TokenKind::kEnd) {
        Fail(token_.column, "expected an operator or end of input, found " + Describe(token_));
      } else if (e) {
        result.expr = *e;
      }
    }
    result.names = std::move(names_);
    result.error = std::move(error_);
    if (!result.error.message.empty()) result.expr = Expr{};
    return result;
  }

 private:
  // Records the first error; returns nothing so that callers can `return Fail(...)`.
  //
  // Error messages are composed in separate, never-inlined functions (and the lexer is never
  // inlined either): the recursive functions then keep no std::string temporaries in their
  // frames, which keeps the stack per nesting level small (see ParseLimits::kMaxDepthLimit).
  [[gnu::noinline, gnu::cold]] std::nullopt_t Fail(int column, std::string_view message) {
    if (error_.message.empty()) error_ = ParseError{column, std::string(message)};
    return std::nullopt;
  }

  [[gnu::noinline, gnu::cold]] std::nullopt_t FailExpectedOperand(const Token& t) {
    return Fail(t.column, "expected a number, a name or '(', found " + Describe(t));
  }

  [[gnu::noinline, gnu::cold]] std::nullopt_t FailUnclosed(int open_column) {
    return Fail(token_.column, "expected ')' to close '(' at col " + std::to_string(open_column) +
                                   ", found " + Describe(token_));
  }

  [[gnu::noinline, gnu::cold]] std::nullopt_t FailNoCall(const Token& name) {
    return Fail(token_.column, "expected '(' after function '" + std::string(name.text) +
                                   "', found " + Describe(token_));
  }

  [[gnu::noinline, gnu::cold]] std::nullopt_t FailUnknownFunction(const Token& name) {
    const std::string_view hint = ClosestFunction(name.text);
    return Fail(name.column,
                "unknown function '" + std::string(name.text) + "'" +
                    (hint.empty() ? std::string() : " (did you mean '" + std::string(hint) + "'?)"));
  }

  [[gnu::noinline, gnu::cold]] std::nullopt_t FailCallSeparator(const Token& name, int open_column) {
    return Fail(token_.column, "expected ',' or ')' in the call of '" + std::string(name.text) +
                                   "' opened at col " + std::to_string(open_column) + ", found " +
                                   Describe(token_));
  }

  [[gnu::noinline, gnu::cold]] std::nullopt_t FailArgumentCount(const Token& name, int arity, std::size_t got) {
    return Fail(name.column, "'" + std::string(name.text) + "' takes " + std::to_string(arity) +
                                 " argument" + (arity == 1 ? "" : "s") + ", got " +
                                 std::to_string(got));
  }

  [[gnu::noinline, gnu::cold]] std::nullopt_t FailDerivativeNotAllowed(const Token& der) {
    return Fail(der.column,
                "der() is not allowed here: derivatives appear only in the equations of an "
                "implicit model");
  }

  [[gnu::noinline, gnu::cold]] std::nullopt_t FailDerivativeOperand(const Token& t) {
    return Fail(t.column, "der() applies to a variable name only, found " + Describe(t));
  }

  [[gnu::noinline, gnu::cold]] std::nullopt_t FailDerivativeClose(int open_column) {
    return Fail(token_.column, "expected ')' to close der( at col " + std::to_string(open_column) +
                                   " (der() applies to one variable name), found " +
                                   Describe(token_));
  }

  [[gnu::noinline, gnu::cold]] std::nullopt_t FailDerivativeAlone(const Token& der) {
    return Fail(der.column, "'der' is the derivative operator: write der(x), found 'der' before " +
                                Describe(token_));
  }

  [[gnu::noinline, gnu::cold]] std::nullopt_t FailSecondEquals(int first_column) {
    return Fail(token_.column, "an equation has one '=' (the first is at col " +
                                   std::to_string(first_column) + ")");
  }

  [[gnu::noinline, gnu::cold]] std::nullopt_t FailNonFinite(int column, double value) {
    // Quote at most this many characters of the sub-expression.
    constexpr std::size_t kQuotedLength = 60;
    const std::size_t start = static_cast<std::size_t>(column - 1);
    std::string quoted(text_.substr(start, prev_end_ - start));
    if (quoted.size() > kQuotedLength) quoted = quoted.substr(0, kQuotedLength) + "...";
    const std::string name = std::isnan(value) ? "NaN" : value > 0 ? "inf" : "-inf";
    return Fail(column, "'" + quoted + "' is always " + name +
                            "; a sub-expression that is constant must be finite");
  }

  // `e`, built from the sub-expression that starts at `column` and ends with the last token
  // read, unless it folded to a non-finite constant (an error there).
  std::optional<Expr> Finite(Expr e, int column) {
    if (options_.non_finite_constants || context_.op(e) != Op::kConstant ||
        std::isfinite(context_.constant_value(e))) {
      return e;
    }
    return FailNonFinite(column, context_.constant_value(e));
  }

  [[gnu::noinline, gnu::cold]] bool FailTooDeep() {
    Fail(token_.column,
         "expression nested deeper than " + std::to_string(limits_.max_depth) + " levels");
    return false;
  }

  [[gnu::noinline, gnu::cold]] void RecordName(const Token& name, int derivative_order = 0) {
    names_.push_back(NameUse{std::string(name.text), name.column, derivative_order});
  }

  static std::string Describe(const Token& t) {
    switch (t.kind) {
      case TokenKind::kEnd: return "end of input";
      case TokenKind::kNumber: return "number '" + std::string(t.text) + "'";
      case TokenKind::kName: return "name '" + std::string(t.text) + "'";
      case TokenKind::kSymbol: return "'" + std::string(t.text) + "'";
    }
    return {};
  }

  int ColumnOf(std::size_t offset) const { return static_cast<int>(offset) + 1; }

  // Reads the next token into token_; false (with an error) on a malformed token.
  [[gnu::noinline]] bool Advance() {
    prev_end_ = pos_;
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
    const std::size_t start = pos_;
    token_ = Token{TokenKind::kEnd, {}, ColumnOf(start), 0.0};
    if (pos_ >= text_.size()) return true;
    const char ch = text_[pos_];
    if (IsDigit(ch) || (ch == '.' && pos_ + 1 < text_.size() && IsDigit(text_[pos_ + 1]))) {
      return LexNumber(start);
    }
    if (IsNameStart(ch)) {
      while (pos_ < text_.size() && IsNameChar(text_[pos_])) ++pos_;
      token_.kind = TokenKind::kName;
      token_.text = text_.substr(start, pos_ - start);
      return true;
    }
    if (std::string_view("+-*/^(),").find(ch) != std::string_view::npos ||
        (ch == '=' && options_.equation)) {
      ++pos_;
      token_.kind = TokenKind::kSymbol;
      token_.text = text_.substr(start, 1);
      return true;
    }
    const bool printable = ch >= 0x20 && ch < 0x7f;
    Fail(token_.column, printable
                            ? "unexpected character '" + std::string(1, ch) + "'"
                            : "unexpected byte " + std::to_string(static_cast<unsigned char>(ch)) +
                                  " (only ASCII is allowed)");
    return false;
  }

  // number := digits ['.' digits] | '.' digits, then optionally [eE] [+-] digits
  bool LexNumber(std::size_t start) {
    auto digits = [this] {
      const std::size_t from = pos_;
      while (pos_ < text_.size() && IsDigit(text_[pos_])) ++pos_;
      return pos_ > from;
    };
    digits();
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      if (!digits()) {
        Fail(ColumnOf(pos_), "expected a digit after '.' in number '" +
                                 std::string(text_.substr(start, pos_ - start)) + "'");
        return false;
      }
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (!digits()) {
        Fail(ColumnOf(pos_), "expected the digits of the exponent of number '" +
                                 std::string(text_.substr(start, pos_ - start)) + "'");
        return false;
      }
    }
    token_.kind = TokenKind::kNumber;
    token_.text = text_.substr(start, pos_ - start);
    const auto [end, ec] =
        std::from_chars(token_.text.data(), token_.text.data() + token_.text.size(), token_.number);
    if (ec == std::errc::result_out_of_range && IsUnderflow(token_.text)) {
      // A tiny literal is a fine value (zero or subnormal); strtod gives it exactly.
      token_.number = std::strtod(std::string(token_.text).c_str(), nullptr);
      return true;
    }
    if (ec == std::errc::result_out_of_range) {
      Fail(token_.column, "number '" + std::string(token_.text) + "' is out of range");
      return false;
    }
    if (ec != std::errc() || end != token_.text.data() + token_.text.size()) {
      Fail(token_.column, "malformed number '" + std::string(token_.text) + "'");
      return false;
    }
    return true;
  }

  bool IsSymbol(char ch) const { return token_.kind == TokenKind::kSymbol && token_.text[0] == ch; }

  // Enters one level of nesting; false (with an error) beyond the limit.
  bool Enter() { return ++depth_ <= limits_.max_depth || FailTooDeep(); }

  // equation := expr ['=' expr], the residual lhs − rhs.
  std::optional<Expr> ParseEquation() {
    const int column = token_.column;
    const std::optional<Expr> lhs = ParseSum();
    if (!lhs || !IsSymbol('=')) return lhs;
    const int equals_column = token_.column;
    if (!Advance()) return std::nullopt;
    const std::optional<Expr> rhs = ParseSum();
    if (!rhs) return std::nullopt;
    if (IsSymbol('=')) return FailSecondEquals(equals_column);
    return Finite(context_.Sub(*lhs, *rhs), column);
  }

  // expr := term (('+' | '-') term)*
  std::optional<Expr> ParseSum() {
    const int column = token_.column;
    std::optional<Expr> left = ParseProduct();
    while (left && (IsSymbol('+') || IsSymbol('-'))) {
      const char op = token_.text[0];
      if (!Advance()) return std::nullopt;
      const std::optional<Expr> right = ParseProduct();
      if (!right) return std::nullopt;
      left = Finite(op == '+' ? context_.Add(*left, *right) : context_.Sub(*left, *right), column);
    }
    return left;
  }

  // term := unary (('*' | '/') unary)*
  std::optional<Expr> ParseProduct() {
    const int column = token_.column;
    std::optional<Expr> left = ParseUnary();
    while (left && (IsSymbol('*') || IsSymbol('/'))) {
      const char op = token_.text[0];
      if (!Advance()) return std::nullopt;
      const std::optional<Expr> right = ParseUnary();
      if (!right) return std::nullopt;
      left = Finite(op == '*' ? context_.Mul(*left, *right) : context_.Div(*left, *right), column);
    }
    return left;
  }

  // unary := ('-' | '+') unary | power
  std::optional<Expr> ParseUnary() {
    if (!IsSymbol('-') && !IsSymbol('+')) return ParsePower();
    const bool negate = token_.text[0] == '-';
    if (!Enter() || !Advance()) return std::nullopt;
    std::optional<Expr> result = ParseUnary();
    --depth_;
    if (result && negate) result = context_.Neg(*result);
    return result;
  }

  // power := primary ('^' unary)?
  std::optional<Expr> ParsePower() {
    const int column = token_.column;
    const std::optional<Expr> base = ParsePrimary();
    if (!base || !IsSymbol('^')) return base;
    if (!Enter() || !Advance()) return std::nullopt;
    const std::optional<Expr> exponent = ParseUnary();
    --depth_;
    if (!exponent) return std::nullopt;
    return Finite(context_.Pow(*base, *exponent), column);
  }

  // primary := number | name | name '(' expr (',' expr)* ')' | '(' expr ')'
  std::optional<Expr> ParsePrimary() {
    const Token t = token_;
    switch (t.kind) {
      case TokenKind::kNumber:
        if (!Advance()) return std::nullopt;
        return context_.Constant(t.number);
      case TokenKind::kName: return ParseName(t);
      case TokenKind::kSymbol:
        if (IsSymbol('(')) return ParseGroup(t);
        break;
      case TokenKind::kEnd: break;
    }
    return FailExpectedOperand(t);
  }

  std::optional<Expr> ParseGroup(const Token& open) {
    if (!Enter() || !Advance()) return std::nullopt;
    const std::optional<Expr> inner = ParseSum();
    --depth_;
    if (!inner) return std::nullopt;
    if (!IsSymbol(')')) return FailUnclosed(open.column);
    if (!Advance()) return std::nullopt;
    return inner;
  }

  std::optional<Expr> ParseName(const Token& name) {
    if (!Advance()) return std::nullopt;
    const internal::FunctionInfo* function = internal::FindFunction(name.text);
    const bool call = IsSymbol('(');
    if (name.text == "pi") {
      if (call) return Fail(name.column, "'pi' is a constant, not a function");
      return context_.Constant(std::numbers::pi);
    }
    if (name.text == kDerivative && (call || options_.derivatives)) {
      if (!options_.derivatives) return FailDerivativeNotAllowed(name);
      if (!call) return FailDerivativeAlone(name);
      return ParseDerivative();
    }
    if (!call) {
      if (function != nullptr) return FailNoCall(name);
      RecordName(name);
      return context_.Symbol(name.text);
    }
    if (function == nullptr) return FailUnknownFunction(name);
    return ParseCall(name, *function);
  }

  // After `der`, at '(': der(name) or der(der(…(name)…)), one nesting level per der.
  std::optional<Expr> ParseDerivative() {
    std::vector<int> open_columns;
    while (true) {
      open_columns.push_back(token_.column);
      if (!Enter() || !Advance()) return std::nullopt;
      if (token_.kind != TokenKind::kName) return FailDerivativeOperand(token_);
      const Token operand = token_;
      if (!Advance()) return std::nullopt;
      if (operand.text == kDerivative && IsSymbol('(')) continue;  // der(der(…
      if (operand.text == kDerivative || operand.text == "pi" ||
          internal::FindFunction(operand.text) != nullptr) {
        return FailDerivativeOperand(operand);
      }
      for (auto open = open_columns.rbegin(); open != open_columns.rend(); ++open) {
        if (!IsSymbol(')')) return FailDerivativeClose(*open);
        if (!Advance()) return std::nullopt;
        --depth_;
      }
      const int order = static_cast<int>(open_columns.size());
      RecordName(operand, order);
      std::string symbol(operand.text);
      for (int k = 0; k < order; ++k) symbol = DerivativeName(symbol);
      return context_.Symbol(symbol);
    }
  }

  std::optional<Expr> ParseCall(const Token& name, const internal::FunctionInfo& function) {
    const int open_column = token_.column;
    if (!Enter() || !Advance()) return std::nullopt;
    std::vector<Expr> args;
    bool ok = true;
    if (IsSymbol(')')) {
      ok = true;  // no arguments: reported as a count below
    } else {
      while (ok) {
        const std::optional<Expr> arg = ParseSum();
        if (!arg) {
          ok = false;
          break;
        }
        args.push_back(*arg);
        if (!IsSymbol(',')) break;
        ok = Advance();
      }
    }
    --depth_;
    if (!ok) return std::nullopt;
    if (!IsSymbol(')')) return FailCallSeparator(name, open_column);
    if (!Advance()) return std::nullopt;
    if (static_cast<int>(args.size()) != function.arity) {
      return FailArgumentCount(name, function.arity, args.size());
    }
    if (name.text == "mod") return Finite(Mod(args[0], args[1]), name.column);
    switch (function.arity) {
      case 1: return Finite(context_.Unary(function.op, args[0]), name.column);
      case 2: return Finite(context_.Binary(function.op, args[0], args[1]), name.column);
      default: return context_.Select(args[0], args[1], args[2]);
    }
  }

  // mod(a, b) = a − b·floor(a/b), Modelica's and Python's %: the result has b's sign.
  Expr Mod(Expr a, Expr b) {
    return context_.Sub(a, context_.Mul(b, context_.Unary(Op::kFloor, context_.Div(a, b))));
  }

  Context& context_;
  std::string_view text_;
  const ParseLimits& limits_;
  const ParseOptions& options_;
  std::size_t pos_ = 0;
  std::size_t prev_end_ = 0;  // offset just past the last token read
  Token token_;
  int depth_ = 0;
  std::vector<NameUse> names_;
  ParseError error_;
};

}  // namespace

bool ParseLimits::IsValid(std::string* why) const {
  std::string problem;
  if (max_length < 1 || max_length > kMaxLengthLimit) {
    problem = "ParseLimits::max_length = " + std::to_string(max_length) + "; must be in [1, " +
              std::to_string(kMaxLengthLimit) + "]";
  } else if (max_depth < 1 || max_depth > kMaxDepthLimit) {
    problem = "ParseLimits::max_depth = " + std::to_string(max_depth) + "; must be in [1, " +
              std::to_string(kMaxDepthLimit) + "]";
  }
  if (why != nullptr) *why = problem;
  return problem.empty();
}

std::string Describe(const ParseError& error) {
  return "col " + std::to_string(error.column) + ": " + error.message;
}

bool IsReservedName(std::string_view name) {
  return name == "pi" || internal::FindFunction(name) != nullptr;
}

std::string DerivativeName(std::string_view operand) {
  std::string name = "der(";
  name += operand;
  name += ')';
  return name;
}

ParseResult Parse(Context& context, std::string_view text, const ParseLimits& limits,
                  const ParseOptions& options) {
  return Parser(context, text, limits, options).Run();
}

}  // namespace tether::expr
