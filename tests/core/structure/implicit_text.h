// Implicit DAEs written as text for the tests: "m*der(u) = 2*x*lam", one string per equation.
// The expression parser does not know der() (core/model reads it), so der(name) is rewritten
// to a placeholder identifier before parsing and the placeholder replaced by the jet symbol
// der(name) afterwards.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "tether/expr/expr.h"
#include "tether/expr/parse.h"
#include "tether/structure/implicit_dae.h"
#include "tether/structure/jets.h"

namespace tether::testing {

// "lhs = rhs" → lhs − rhs; a text without '=' is the residual itself.
inline expr::Expr ParseImplicit(expr::Context& cx, const std::string& text) {
  static const std::regex der(R"(der\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*\))");
  const std::string rewritten = std::regex_replace(text, der, "der__$1");
  auto parse = [&cx](const std::string& part) {
    expr::ParseResult r = expr::Parse(cx, part);
    EXPECT_TRUE(r.ok()) << part << ": " << r.error.message;
    return r.expr;
  };
  const std::size_t eq = rewritten.find('=');
  expr::Expr e = eq == std::string::npos
                     ? parse(rewritten)
                     : cx.Sub(parse(rewritten.substr(0, eq)), parse(rewritten.substr(eq + 1)));
  std::vector<std::pair<expr::Expr, expr::Expr>> jets;
  for (expr::Expr symbol : cx.FreeSymbols(e)) {
    const std::string& name = cx.symbol_name(symbol);
    if (name.rfind("der__", 0) == 0) {
      jets.emplace_back(symbol, structure::JetSymbol(cx, name.substr(5), 1));
    }
  }
  return cx.Substitute(e, jets);
}

// Equations named "equations[i]" unless given as "name: text".
inline structure::ImplicitDae MakeDae(expr::Context& cx, const std::vector<std::string>& variables,
                                      const std::vector<std::string>& equations) {
  structure::ImplicitDae dae;
  dae.time = cx.Symbol("t");
  for (const std::string& v : variables) dae.variables.push_back(cx.Symbol(v));
  for (std::size_t i = 0; i < equations.size(); ++i) {
    std::string text = equations[i];
    std::string name = "equations[" + std::to_string(i) + "]";
    if (const std::size_t colon = text.find(':'); colon != std::string::npos) {
      name = text.substr(0, colon);
      text = text.substr(colon + 1);
    }
    dae.equations.push_back({name, ParseImplicit(cx, text)});
  }
  return dae;
}

// Values of symbols by name, for Context::Evaluate.
class Point {
 public:
  Point(const expr::Context& cx, std::map<std::string, double> values)
      : cx_(&cx), values_(std::move(values)) {}
  double operator()(expr::Expr symbol) const {
    auto it = values_.find(cx_->symbol_name(symbol));
    if (it == values_.end()) {
      ADD_FAILURE() << "no value for " << cx_->symbol_name(symbol);
      return 0.0;
    }
    return it->second;
  }
  double Eval(expr::Expr e) const {
    return cx_->Evaluate(e, [this](expr::Expr s) { return (*this)(s); });
  }

 private:
  const expr::Context* cx_;
  std::map<std::string, double> values_;
};

inline std::vector<std::string> Names(const expr::Context& cx,
                                      const std::vector<structure::Jet>& jets) {
  std::vector<std::string> names;
  for (const structure::Jet& j : jets) names.push_back(cx.symbol_name(j.symbol));
  return names;
}

}  // namespace tether::testing
