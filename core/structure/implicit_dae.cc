// The pipeline of tether/structure/implicit_dae.h, one method per step.
#include "tether/structure/implicit_dae.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "structure/derivative_elimination.h"
#include "structure/dulmage_mendelsohn.h"
#include "structure/probe.h"
#include "structure/row_dependencies.h"
#include "structure/sigma_method.h"
#include "structure/signature_matrix.h"
#include "structure/total_derivative.h"
#include "tether/structure/jets.h"

namespace tether::structure {
namespace {

using expr::Context;
using expr::Expr;

// Longest expression text quoted in a message.
constexpr std::size_t kQuotedLength = 80;

[[noreturn]] void Fatal(const std::string& what) {
  std::fprintf(stderr, "tether::structure: %s\n", what.c_str());
  std::abort();
}

std::string Quoted(const std::vector<std::size_t>& indices,
                   const std::vector<std::string>& names) {
  std::string text;
  for (std::size_t k : indices) {
    if (!text.empty()) text += ", ";
    text += "'" + names[k] + "'";
  }
  return text;
}

// "equation 'a'" / "equations 'a', 'b'".
std::string Counted(const char* noun, const std::vector<std::size_t>& indices,
                    const std::vector<std::string>& names) {
  return std::string(noun) + (indices.size() == 1 ? " " : "s ") + Quoted(indices, names);
}

std::string Plural(std::size_t count, const char* noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

std::string Primes(std::string name, int order) {
  name.append(static_cast<std::size_t>(order), '\'');
  return name;
}

std::vector<std::size_t> Union(std::vector<std::size_t> a, const std::vector<std::size_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  std::sort(a.begin(), a.end());
  a.erase(std::unique(a.begin(), a.end()), a.end());
  return a;
}

// context.size() + budget, saturating.
std::size_t NodeLimit(std::size_t size, std::size_t budget) {
  const std::size_t most = static_cast<std::size_t>(-1);
  return budget > most - size ? most : size + budget;
}

class Reducer {
 public:
  Reducer(Context& context, const ImplicitDae& dae, const StructureOptions& options)
      : cx_(context),
        dae_(dae),
        options_(options),
        n_(dae.equations.size()),
        prober_(context, options.probe_points),
        node_limit_(NodeLimit(context.size(), options.max_new_nodes)) {}

  StructureResult Run();

 private:
  std::optional<StructureError> ValidateInput();
  std::optional<StructureError> CheckIncidence(const std::string& context_text);
  std::optional<StructureError> EliminateDerivatives();
  std::optional<StructureError> CheckSystemJacobian();
  void FindTrivialEquations();
  void Report(StructureReport* report) const;
  void ChooseJets(SemiExplicitSystem* system);
  std::optional<StructureError> Differentiate(TotalDerivative& derivative,
                                              SemiExplicitSystem* system);
  void Finish(SemiExplicitSystem* system);
  std::optional<StructureError> Build(SemiExplicitSystem* system);
  void CheckJets(Expr e, const std::unordered_set<std::uint32_t>& allowed, const char* what);
  StructureError BudgetError(const std::string& while_doing) const;

  Context& cx_;
  const ImplicitDae& dae_;
  const StructureOptions& options_;
  std::size_t n_;
  Prober prober_;
  std::size_t node_limit_;

  std::vector<std::string> equation_names_;
  std::vector<std::string> variable_names_;
  std::vector<Expr> first_derivatives_;       // x_j′
  std::optional<JetIndex> jets_;
  std::vector<Expr> equations_;               // F_i after step 2
  DerivativeElimination elimination_;
  SignatureMatrix sigma_;
  SigmaAnalysis analysis_;
  std::vector<std::size_t> trivial_for_;      // per variable: the equation defining x_j′
  std::vector<Expr> derivative_value_;        // per variable: e_j (valid if substituted)
  std::vector<std::size_t> defines_;          // per equation: the variable it substitutes
};

StructureError BadInput(std::string message, std::vector<std::size_t> equations = {},
                        std::vector<std::size_t> variables = {}) {
  StructureError error;
  error.kind = StructureErrorKind::kInvalidInput;
  error.message = std::move(message);
  error.equations = std::move(equations);
  error.variables = std::move(variables);
  return error;
}

std::optional<StructureError> Reducer::ValidateInput() {
  if (std::string why; !options_.IsValid(&why)) return BadInput(why);
  if (!dae_.time.valid() || dae_.time.id >= cx_.size() || cx_.op(dae_.time) != expr::Op::kSymbol) {
    return BadInput("the time is not a symbol of the context");
  }
  if (n_ > options_.max_equations || dae_.variables.size() > options_.max_equations) {
    return BadInput(Plural(n_, "equation") + " and " + Plural(dae_.variables.size(), "variable") +
                    "; at most StructureOptions::max_equations = " +
                    std::to_string(options_.max_equations) + " of each are accepted");
  }
  std::set<std::string, std::less<>> seen;
  for (std::size_t j = 0; j < dae_.variables.size(); ++j) {
    const Expr x = dae_.variables[j];
    if (!x.valid() || x.id >= cx_.size() || cx_.op(x) != expr::Op::kSymbol) {
      return BadInput("variables[" + std::to_string(j) + "] is not a symbol", {}, {j});
    }
    const std::string& name = cx_.symbol_name(x);
    if (name.find_first_of("()") != std::string::npos || x == dae_.time) {
      return BadInput("variable '" + name + "' cannot be a variable name (a jet or the time)",
                      {}, {j});
    }
    if (!seen.insert(name).second) {
      return BadInput("variable '" + name + "' is listed twice", {}, {j});
    }
    variable_names_.push_back(name);
  }
  jets_.emplace(cx_, dae_.variables);
  for (std::size_t i = 0; i < n_; ++i) {
    const ImplicitEquation& eq = dae_.equations[i];
    equation_names_.push_back(eq.name);
    if (!eq.residual.valid() || eq.residual.id >= cx_.size()) {
      return BadInput("equation '" + eq.name + "' has no expression", {i});
    }
    for (Expr symbol : cx_.FreeSymbols(eq.residual)) {
      if (std::string_view foreign = jets_->ForeignJetVariable(symbol); !foreign.empty()) {
        return BadInput("equation '" + eq.name + "' uses " + cx_.symbol_name(symbol) + ", but '" +
                            std::string(foreign) + "' is not a variable",
                        {i});
      }
      std::optional<JetRef> jet = jets_->Find(symbol);
      if (jet && jet->order > 1) {
        return BadInput("equation '" + eq.name + "' uses " + cx_.symbol_name(symbol) +
                            "; only first derivatives der(x) of variables may appear",
                        {i}, {jet->variable});
      }
    }
    equations_.push_back(eq.residual);
  }
  for (const std::string& name : variable_names_) {
    first_derivatives_.push_back(JetSymbol(cx_, name, 1));
  }
  return std::nullopt;
}

// Step 1 (and again after step 2): Dulmage–Mendelsohn on the incidence of equations_.
std::optional<StructureError> Reducer::CheckIncidence(const std::string& context_text) {
  sigma_ = SignatureOf(cx_, equations_, *jets_, dae_.variables.size());
  const CoarseDecomposition parts = DulmageMendelsohn(sigma_);
  if (!parts.singular()) return std::nullopt;
  std::vector<std::string> hints;
  if (!parts.over_equations.empty()) {
    const auto& e = parts.over_equations;
    const auto& v = parts.over_variables;
    if (v.empty()) {
      hints.push_back(Counted("equation", e, equation_names_) +
                      (e.size() == 1 ? " involves" : " involve") + " no unknown");
    } else {
      hints.push_back(Counted("equation", e, equation_names_) +
                      (e.size() == 1 ? " involves" : " involve") + " only the " +
                      Counted("variable", v, variable_names_) + " (" + Plural(e.size(), "equation") +
                      " for " + Plural(v.size(), "unknown") + ")");
    }
  }
  std::vector<std::size_t> absent, determined;
  for (std::size_t j : parts.under_variables) {
    bool occurs = false;
    for (const auto& row : sigma_.rows) {
      for (const SignatureEntry& entry : row) occurs = occurs || entry.variable == j;
    }
    (occurs ? determined : absent).push_back(j);
  }
  if (!absent.empty()) {
    hints.push_back(Counted("variable", absent, variable_names_) +
                    (absent.size() == 1 ? " appears" : " appear") + " in no equation");
  }
  if (!determined.empty()) {
    const auto& e = parts.under_equations;
    hints.push_back(Counted("variable", determined, variable_names_) +
                    (determined.size() == 1 ? " appears" : " appear") + " only in the " +
                    Counted("equation", e, equation_names_) + " (" +
                    Plural(determined.size(), "unknown") + " for " + Plural(e.size(), "equation") +
                    ")");
  }
  StructureError error;
  error.kind = StructureErrorKind::kStructurallySingular;
  error.message = "structurally singular: " + context_text;
  for (std::size_t k = 0; k < hints.size(); ++k) error.message += (k ? "; " : "") + hints[k];
  error.overdetermined_equations = parts.over_equations;
  error.overdetermined_variables = parts.over_variables;
  error.underdetermined_equations = parts.under_equations;
  error.underdetermined_variables = parts.under_variables;
  error.equations = Union(parts.over_equations, parts.under_equations);
  error.variables = Union(parts.over_variables, parts.under_variables);
  return error;
}

// Step 2.
std::optional<StructureError> Reducer::EliminateDerivatives() {
  elimination_.replacement.assign(n_, Expr{});
  elimination_.combined_with.assign(n_, {});
  if (!options_.eliminate_dependent_derivatives) return std::nullopt;
  elimination_ = EliminateDependentDerivatives(cx_, equations_, dae_.time, *jets_,
                                               first_derivatives_, prober_, node_limit_);
  if (elimination_.budget_exceeded) {
    return BudgetError("eliminating dependent derivative combinations");
  }
  std::string what;
  for (std::size_t i = 0; i < n_; ++i) {
    if (!elimination_.replaced(i)) continue;
    equations_[i] = elimination_.replacement[i];
    if (!what.empty()) what += ", ";
    what += "'" + equation_names_[i] + "' minus a combination of " +
            Quoted(elimination_.combined_with[i], equation_names_) + " is " +
            cx_.ToString(equations_[i], kQuotedLength) + " = 0";
  }
  if (what.empty()) return std::nullopt;
  return CheckIncidence("after eliminating dependent derivatives (" + what + "), ");
}

// Step 4: J_ij = ∂F_i/∂x_j^(σ_ij) where d_j − c_i = σ_ij, its rank at the probe points.
std::optional<StructureError> Reducer::CheckSystemJacobian() {
  const auto& c = analysis_.equation_offsets;
  const auto& d = analysis_.variable_offsets;
  std::vector<std::vector<std::pair<std::size_t, Expr>>> entries(n_);
  for (std::size_t i = 0; i < n_; ++i) {
    for (const SignatureEntry& e : sigma_.rows[i]) {
      if (d[e.variable] - c[i] != e.order) continue;
      const Expr jet = JetSymbol(cx_, variable_names_[e.variable], e.order);
      entries[i].emplace_back(e.variable, cx_.Diff(equations_[i], jet));
    }
  }
  std::optional<std::vector<double>> singular_at;
  for (int point = 0; point < prober_.points(); ++point) {
    std::vector<double> j(n_ * n_, 0.0);
    bool reliable = true;
    for (std::size_t i = 0; i < n_ && reliable; ++i) {
      for (const auto& [variable, derivative] : entries[i]) {
        const ProbeValue v = prober_.Evaluate(derivative, point);
        reliable = reliable && v.reliable;
        j[i * n_ + variable] = v.value;
      }
    }
    if (!reliable) continue;
    if (FindRowDependencies(n_, n_, j).rank == n_) return std::nullopt;
    if (!singular_at) singular_at = std::move(j);
  }
  if (!singular_at) return std::nullopt;  // undecided: regular until the run shows otherwise
  std::vector<double> transposed(n_ * n_);
  for (std::size_t i = 0; i < n_; ++i) {
    for (std::size_t j = 0; j < n_; ++j) transposed[j * n_ + i] = (*singular_at)[i * n_ + j];
  }
  StructureError error;
  error.kind = StructureErrorKind::kSingularJacobian;
  error.equations = FindRowDependencies(n_, n_, *singular_at).DependentRows();
  error.variables = FindRowDependencies(n_, n_, transposed).DependentRows();
  std::vector<std::string> highest;
  for (std::size_t j = 0; j < dae_.variables.size(); ++j) {
    highest.push_back(JetName(variable_names_[j], d[j]));
  }
  error.message = Counted("equation", error.equations, equation_names_) +
                  " determine only combinations of the highest derivatives " +
                  Quoted(error.variables, highest) +
                  ": the system Jacobian is singular at every test point although a transversal "
                  "exists (structural index " + std::to_string(analysis_.structural_index) +
                  "). Derivatives that enter nonlinearly, with coefficients depending on "
                  "derivatives, or whose dependency shows only after differentiation are out of "
                  "reach; write the dependent combination as one equation or eliminate it by hand";
  return error;
}

// Step 5: x_j′ = e_j equations (conditions (a)–(c) of the header).
void Reducer::FindTrivialEquations() {
  const std::size_t m = dae_.variables.size();
  trivial_for_.assign(m, kNone);
  derivative_value_.assign(m, Expr{});
  defines_.assign(n_, kNone);
  if (!options_.substitute_trivial_equations) return;
  for (std::size_t i = 0; i < n_; ++i) {
    if (elimination_.replaced(i)) continue;
    for (const SignatureEntry& entry : sigma_.rows[i]) {
      const std::size_t j = entry.variable;
      if (entry.order != 1 || trivial_for_[j] != kNone) continue;
      if (analysis_.variable_offsets[j] != analysis_.equation_offsets[i] + 1) continue;  // (c)
      const Expr s = cx_.Diff(equations_[i], first_derivatives_[j]);
      const bool plus = cx_.is_constant(s, 1.0);
      if (!plus && !cx_.is_constant(s, -1.0)) continue;  // (a)
      const std::pair<Expr, Expr> at_zero = {first_derivatives_[j], cx_.Constant(0.0)};
      const Expr r = cx_.Substitute(equations_[i], std::span(&at_zero, 1));
      const Expr e = plus ? cx_.Neg(r) : r;  // x_j′ = −s·r
      bool derivative_free = true;
      for (Expr symbol : cx_.FreeSymbols(e)) {
        std::optional<JetRef> jet = jets_->Find(symbol);
        derivative_free = derivative_free && !(jet && jet->order >= 1);
      }
      if (!derivative_free) continue;  // (b)
      trivial_for_[j] = i;
      derivative_value_[j] = e;
      defines_[i] = j;
      break;
    }
  }
}

StructureError Reducer::BudgetError(const std::string& while_doing) const {
  StructureError error;
  error.kind = StructureErrorKind::kBudgetExceeded;
  error.message = "the reduction needs more than StructureOptions::max_new_nodes = " +
                  std::to_string(options_.max_new_nodes) + " expression nodes (while " +
                  while_doing + "); the expressions swell beyond what can be compiled usefully";
  return error;
}

// Aborts if `e` contains a jet outside `allowed`: the header's order argument guarantees it.
void Reducer::CheckJets(Expr e, const std::unordered_set<std::uint32_t>& allowed,
                        const char* what) {
  for (Expr symbol : cx_.FreeSymbols(e)) {
    if (jets_->Find(symbol) && !allowed.contains(symbol.id)) {
      Fatal(std::string("ReduceImplicitDae: ") + what + " contains the jet " +
            cx_.symbol_name(symbol) + " outside its allowed set");
    }
  }
}

void Reducer::Report(StructureReport* report) const {
  report->structural_index = analysis_.structural_index;
  for (std::size_t i = 0; i < n_; ++i) {
    EquationReport& r = report->equations.emplace_back();
    r.name = equation_names_[i];
    r.differentiations = analysis_.equation_offsets[i];
    r.assigned_variable = analysis_.transversal[i];
    r.derivatives_eliminated = elimination_.replaced(i);
    r.combined_with = elimination_.combined_with[i];
    r.defines_derivative_of = defines_[i];
  }
  for (std::size_t j = 0; j < dae_.variables.size(); ++j) {
    VariableReport& r = report->variables.emplace_back();
    r.name = variable_names_[j];
    r.highest_order = analysis_.variable_offsets[j];
    r.derivative_substituted = trivial_for_[j] != kNone;
  }
}

// z ordered by derivative order, then variable; w by variable (header, step 6).
void Reducer::ChooseJets(SemiExplicitSystem* system) {
  const std::size_t m = dae_.variables.size();
  const auto& d = analysis_.variable_offsets;
  const int max_d = m == 0 ? 0 : *std::max_element(d.begin(), d.end());
  for (int k = 0; k < max_d; ++k) {
    for (std::size_t j = 0; j < m; ++j) {
      if (k >= d[j] || (k > 0 && trivial_for_[j] != kNone)) continue;
      system->states.push_back({j, k, JetSymbol(cx_, variable_names_[j], k)});
    }
  }
  for (std::size_t j = 0; j < m; ++j) {
    if (trivial_for_[j] != kNone) continue;
    system->unknowns.push_back({j, d[j], JetSymbol(cx_, variable_names_[j], d[j])});
  }
  auto& variables = system->report.variables;
  for (std::size_t z = 0; z < system->states.size(); ++z) {
    if (system->states[z].order == 0) variables[system->states[z].variable].state = z;
  }
  for (std::size_t w = 0; w < system->unknowns.size(); ++w) {
    if (system->unknowns[w].order == 0) variables[system->unknowns[w].variable].unknown = w;
  }
}

// G_i = D^(c_i) S F_i and the invariants D^ℓ S F_i, ℓ < c_i, of every non-trivial equation.
std::optional<StructureError> Reducer::Differentiate(TotalDerivative& derivative,
                                                     SemiExplicitSystem* system) {
  const auto& c = analysis_.equation_offsets;
  std::vector<std::pair<Expr, Expr>> substitution;  // S: x_j′ → e_j
  for (std::size_t j = 0; j < dae_.variables.size(); ++j) {
    if (trivial_for_[j] != kNone) {
      substitution.emplace_back(first_derivatives_[j], derivative_value_[j]);
    }
  }
  for (std::size_t i = 0; i < n_; ++i) {
    if (defines_[i] != kNone) continue;
    Expr e = cx_.Substitute(equations_[i], substitution);
    for (int order = 0; order < c[i]; ++order) {
      const auto level = static_cast<std::size_t>(order);
      if (system->invariant_levels.size() <= level) system->invariant_levels.resize(level + 1);
      system->invariant_levels[level].invariants.push_back(
          {Primes(equation_names_[i], order), i, order, e});
      e = derivative.Apply(e);  // D^(order+1) S F_i
      if (cx_.size() > node_limit_) {
        return BudgetError("differentiating equation '" + equation_names_[i] + "' " +
                           Plural(static_cast<std::size_t>(order + 1), "time"));
      }
    }
    system->constraints.push_back(e);
    system->constraint_names.push_back(Primes(equation_names_[i], c[i]));
    system->constraint_equations.push_back(i);
  }
  return std::nullopt;
}

// Each level's dependencies on z, and the order argument of the header as a check.
void Reducer::Finish(SemiExplicitSystem* system) {
  std::unordered_map<std::uint32_t, std::size_t> state_index;
  std::unordered_set<std::uint32_t> in_z;
  for (std::size_t z = 0; z < system->states.size(); ++z) {
    state_index.emplace(system->states[z].symbol.id, z);
    in_z.insert(system->states[z].symbol.id);
  }
  std::unordered_set<std::uint32_t> in_zw = in_z;
  for (const Jet& w : system->unknowns) in_zw.insert(w.symbol.id);
  std::size_t num_invariants = 0;
  for (InvariantLevel& level : system->invariant_levels) {
    std::set<std::size_t> states;
    for (const Invariant& h : level.invariants) {
      CheckJets(h.value, in_z, "an invariant");
      for (Expr symbol : cx_.FreeSymbols(h.value)) {
        if (auto it = state_index.find(symbol.id); it != state_index.end()) states.insert(it->second);
      }
    }
    level.states.assign(states.begin(), states.end());
    num_invariants += level.invariants.size();
  }
  for (Expr g : system->constraints) CheckJets(g, in_zw, "a constraint");
  for (Expr phi : system->state_derivatives) CheckJets(phi, in_zw, "a state derivative");
  if (system->constraints.size() != system->unknowns.size()) {
    Fatal("ReduceImplicitDae: G is not square in w");
  }
  system->report.degrees_of_freedom =
      system->states.size() > num_invariants ? system->states.size() - num_invariants : 0;
}

std::optional<StructureError> Reducer::Build(SemiExplicitSystem* system) {
  Report(&system->report);
  ChooseJets(system);
  TotalDerivative derivative(cx_, dae_.time, *jets_, variable_names_);
  for (std::size_t j = 0; j < dae_.variables.size(); ++j) {
    if (trivial_for_[j] != kNone) derivative.SetTangent(dae_.variables[j], derivative_value_[j]);
  }
  for (const Jet& z : system->states) {
    system->state_derivatives.push_back(derivative.Tangent(z.symbol));  // φ
  }
  if (auto error = Differentiate(derivative, system)) return error;
  Finish(system);
  return std::nullopt;
}

StructureResult Reducer::Run() {
  StructureResult result;
  auto fail = [&result](StructureError error) {
    result.error = std::move(error);
    return std::move(result);
  };
  if (auto error = ValidateInput()) return fail(std::move(*error));
  if (auto error = CheckIncidence("")) return fail(std::move(*error));
  if (auto error = EliminateDerivatives()) return fail(std::move(*error));
  std::optional<SigmaAnalysis> analysis = AnalyzeSignature(sigma_);
  if (!analysis) Fatal("ReduceImplicitDae: no transversal although the matching is perfect");
  analysis_ = std::move(*analysis);
  if (auto error = CheckSystemJacobian()) return fail(std::move(*error));
  FindTrivialEquations();
  SemiExplicitSystem system;
  if (auto error = Build(&system)) return fail(std::move(*error));
  result.system = std::move(system);
  return result;
}

}  // namespace

bool StructureOptions::IsValid(std::string* why) const {
  auto fail = [why](std::string message) {
    if (why) *why = std::move(message);
    return false;
  };
  if (max_equations < 1 || max_equations > static_cast<std::size_t>(kMaxJetOrder)) {
    return fail("StructureOptions::max_equations = " + std::to_string(max_equations) +
                "; must be in [1, " + std::to_string(kMaxJetOrder) + "]");
  }
  if (max_new_nodes < 1) {
    return fail("StructureOptions::max_new_nodes = 0; must be >= 1");
  }
  if (probe_points < 1) {
    return fail("StructureOptions::probe_points = " + std::to_string(probe_points) +
                "; must be >= 1");
  }
  return true;
}

StructureResult ReduceImplicitDae(Context& context, const ImplicitDae& dae,
                                  const StructureOptions& options) {
  return Reducer(context, dae, options).Run();
}

}  // namespace tether::structure
