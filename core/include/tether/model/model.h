// A validated DAE model (shared/DESIGN.md §3), built from a JSON spec in one of the registered
// forms (tether/model/form.h; each form's equations are stated in its spec half's header,
// core/model/forms/<form>.h). Model holds the fields of every form; a form fills its own.
//
// Every expression is held with definitions already substituted, as a function of the model's
// variables, its parameters (symbols, so a session can override them) and the time symbol `t`.
// The spec format is documented in docs/models.md.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tether/expr/expr.h"
#include "tether/model/form.h"
#include "tether/structure/implicit_dae.h"

namespace tether::model {

// One problem found in a spec: where (JSON path, and column inside an expression) and what.
struct SpecProblem {
  std::string path;  // e.g. "constraints[0]", "mass[1][0]", "parameters.m", "" for the document
  int column = 0;    // 1-based column inside the expression text; 0 when not in an expression
  std::string message;

  // "constraints[0], col 7: unknown name 'lenght' (did you mean 'length'?)"
  [[nodiscard]] std::string ToString() const;
};

// Size limits that make a hostile spec be refused rather than processed.
struct SpecLimits {
  std::size_t max_document_bytes = 1 << 20;  // bytes of JSON text
  std::size_t max_expression_length = 1 << 14;  // characters of one expression
  int max_expression_depth = 200;            // parse nesting depth of one expression
  std::size_t max_nodes = 200000;            // DAG nodes of the whole model after substitution
  std::size_t max_variables = 512;           // states (coordinates + velocities, or x + y)
  std::size_t max_parameters = 1024;
  std::size_t max_constraints = 512;         // equality plus inequality constraints
  std::size_t max_outputs = 256;
  std::size_t max_definitions = 1024;
  // Longest path of one expression's DAG once definitions are substituted (bounds the
  // recursion of every later symbolic pass: differentiation, import, printing).
  std::size_t max_expanded_depth = 2000;

  // False (with the reason in `why`, if given) when a limit is zero.
  bool IsValid(std::string* why) const;
  // These limits, each raised to `floor`'s where that is larger.
  [[nodiscard]] SpecLimits AtLeast(const SpecLimits& floor) const;
};

struct Parameter {
  std::string name;
  double value = 0.0;      // default, overridable per session
  std::string unit;        // optional, e.g. "kg"
  std::string description;  // optional
  // The closed range [minimum, maximum] a session's value must lie in, in `unit`; an absent
  // bound leaves that side unbounded. The spec reader guarantees finite bounds, minimum <
  // maximum when both are given, and minimum ≤ value ≤ maximum.
  std::optional<double> minimum;
  std::optional<double> maximum;
  expr::Expr symbol;

  // True when `x` lies in the range (always, without one); false for NaN with a range.
  [[nodiscard]] bool InRange(double x) const;
  // The range as a condition for messages: "in [0.01, 10]", ">= 0" or "<= 5"; "" without one.
  [[nodiscard]] std::string RangeText() const;
};

// A state variable (coordinate, velocity, differential or algebraic variable).
struct Variable {
  std::string name;
  std::string unit;
  expr::Expr symbol;
};

struct Output {
  std::string name;
  std::string unit;
  std::string description;  // optional
  expr::Expr value;  // function of variables, parameters and t
};

// The implicit form as the user wrote it and what its structural analysis found. The reduced
// system lives in Model's index1 fields; this keeps what a description and the invariants need.
struct ImplicitForm {
  std::vector<Variable> variables;            // x_j as written (each is a z or w entry)
  std::vector<std::string> equation_names;    // "equations[2]" unless the spec names it
  std::vector<expr::Expr> equations;          // F_i = lhs − rhs, definitions substituted
  // H_ℓ, ℓ = 0 … k−1: the differentiated equations (level 0 as written, level ℓ their ℓ-th
  // total derivatives), functions of t, z and parameters; names carry ℓ primes ("vertical'").
  std::vector<std::vector<expr::Expr>> invariants;
  std::vector<std::vector<std::string>> invariant_names;
  structure::StructureReport report;  // index, differentiations, states, unknowns, dof
};

struct Model {
  std::string name;         // [a-z][a-z0-9_-]{0,62}
  std::string title;
  std::string description;
  Form form = Form::kMechanical;

  std::shared_ptr<expr::Context> context;  // owns every expression below
  expr::Expr time;                         // the symbol `t`
  std::string time_unit;                   // units.t, e.g. "s"; empty if not given

  std::vector<Parameter> parameters;

  // mechanical: n coordinates q, n velocities v, mass n×n (row-major), forces n, constraints m.
  std::vector<Variable> coordinates;
  std::vector<Variable> velocities;
  std::vector<expr::Expr> mass;    // n*n, row-major (a diagonal spec is expanded)
  std::vector<expr::Expr> forces;  // n

  // index1 / index2: differential x (with rhs f), algebraic y.
  std::vector<Variable> differential;
  std::vector<Variable> algebraic;
  std::vector<expr::Expr> rhs;  // one per differential variable

  // Equality constraints: Φ(q,t) for mechanical, g for index1/index2 (as many as algebraic).
  std::vector<expr::Expr> constraints;
  std::vector<std::string> constraint_names;  // "constraints[0]" unless the spec names them
  // Inequality constraints c(x) ≥ 0 (optional).
  std::vector<expr::Expr> inequalities;

  std::vector<Output> outputs;

  // implicit only: the equations as written and their analysis.
  std::shared_ptr<const ImplicitForm> implicit;

  // Default initial values by variable name (absent ones default to 0).
  std::map<std::string, double> initial;
  // Suggested run settings from the spec ("simulation": {...}); absent fields are unset.
  std::optional<double> t_end;
  std::optional<double> output_interval;

  // Total state size (2n for mechanical, |x| + |y| otherwise).
  [[nodiscard]] std::size_t num_states() const;
  // State variables in canonical order (FormSpec::States): q then v, or x then y.
  [[nodiscard]] std::vector<const Variable*> states() const;
  // Their roles, in the same order.
  [[nodiscard]] std::vector<StateRole> state_roles() const;
  [[nodiscard]] const Parameter* FindParameter(std::string_view name) const;
};

// Either a model or every problem found; never both.
struct ModelResult {
  std::shared_ptr<const Model> model;
  std::vector<SpecProblem> problems;

  [[nodiscard]] bool ok() const { return model != nullptr; }
  // All problems, one per line.
  [[nodiscard]] std::string ErrorText() const;
};

// Parses and validates a JSON spec. Collects every problem rather than stopping at the first.
ModelResult ParseModel(std::string_view json_text, const SpecLimits& limits = {});

// True iff `name` matches [a-z][a-z0-9_-]{0,62}.
bool IsValidModelName(std::string_view name);

}  // namespace tether::model
