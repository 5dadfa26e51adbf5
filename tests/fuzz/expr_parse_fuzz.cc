// Fuzz target: the expression parser, and what the model reader does next with a parsed
// expression: differentiate by its names, print, compile and evaluate. The first byte selects
// the ParseOptions (bit 0 derivatives, bit 1 equation, bit 2 non-finite constants); the rest is
// the expression.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tether/expr/expr.h"
#include "tether/expr/parse.h"
#include "tether/expr/program.h"

namespace {

namespace expr = tether::expr;

// The symbol a name use stands for: der(…) nested derivative_order times.
std::string SymbolName(const expr::NameUse& use) {
  std::string name = use.name;
  for (int k = 0; k < use.derivative_order; ++k) name = expr::DerivativeName(name);
  return name;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  expr::ParseOptions options;
  options.derivatives = (data[0] & 1) != 0;
  options.equation = (data[0] & 2) != 0;
  options.non_finite_constants = (data[0] & 4) != 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  expr::Context context;
  const expr::ParseResult parsed = expr::Parse(context, text, {}, options);
  if (!parsed.ok()) {
    (void)expr::Describe(parsed.error);
    return 0;
  }
  std::vector<std::string> names;
  for (const expr::NameUse& use : parsed.names) names.push_back(SymbolName(use));
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  std::vector<expr::Expr> inputs;
  for (const std::string& name : names) inputs.push_back(context.Symbol(name));
  std::vector<expr::Expr> outputs = {parsed.expr};
  // Differentiation is quadratic in the depth at worst: a few names bound the work per input.
  for (std::size_t i = 0; i < inputs.size() && i < 4; ++i) {
    outputs.push_back(context.Diff(parsed.expr, inputs[i]));
  }
  for (const expr::Expr e : outputs) (void)context.ToString(e);
  expr::Program program = expr::Compile(context, outputs, inputs);
  std::vector<double> in(inputs.size(), 0.5);
  std::vector<double> out(outputs.size());
  program.Evaluate(in, out);
  return 0;
}
