// Structural analysis and symbolic index reduction of a fully implicit DAE
//
//   F_i(t, x, x′) = 0,   i = 1..n,   n unknown functions x_j(t),
//
// to the semi-explicit index-1 system every tether form is reduced to:
//
//   z′ = φ(t, z, w),   0 = G(t, z, w)   (G_w regular),   invariants H_ℓ(t, z) = 0, ℓ = 0..k−1,
//
// with z the state a stepper advances and w the unknowns solved inside each stage.
//
// Method: Pryce's Σ-method (Pryce, "A simple structural analysis method for DAEs", BIT 41
// (2001) 364–394; Nedialkov & Pryce, "Solving differential-algebraic equations by Taylor
// series (I)", BIT 45 (2005) 561–591). It was chosen over Pantelides' algorithm (SIAM J. Sci.
// Stat. Comput. 9 (1988) 213–231) with dummy derivatives (Mattsson & Söderlind, SIAM J. Sci.
// Comput. 14 (1993) 677–692) because one linear assignment problem gives, at once and
// without iterating over augmenting-path failures, how often each equation is differentiated
// (c_i), the highest order of each variable (d_j) and the structural index; its success test
// is one matrix, the system Jacobian; and it needs no state selection, which tether does by
// projection anyway (below).
//
// Jets are symbols named by tether/structure/jets.h: x, der(x), der(der(x)), …; the input
// may contain x_j and der(x_j) only. Every symbol other than t and the jets is a parameter
// (constant in t).
//
// The steps, each with its mathematics in the file named:
//  1. Incidence check (Dulmage–Mendelsohn, dulmage_mendelsohn.h): no finite transversal → the
//     over- and under-determined parts are reported (kStructurallySingular).
//  2. Dependent derivatives (derivative_elimination.h): rows affine in x′ with derivative-free
//     coefficients whose coefficient matrix is rank deficient are combined by fraction-free
//     Bareiss elimination into derivative-free equations, each replacing one of them. Step 1
//     runs again on the result (a row that becomes 0 = 0 is reported there).
//  3. Σ-method (sigma_method.h): σ_ij, a highest-value transversal T, the smallest offsets
//     c_i ≥ 0, d_j with d_j − c_i ≥ σ_ij (= on T), and ν_S = max c_i + [some d_j = 0].
//  4. System Jacobian J_ij = ∂F_i/∂x_j^(d_j−c_i) where d_j − c_i = σ_ij (else 0): its rank at
//     random points (probe.h, row_dependencies.h) is its generic rank; singular everywhere →
//     kSingularJacobian naming the dependent equations and highest derivatives (what the
//     linear elimination of step 2 could not reach).
//  5. Trivial equations. An equation F_i is trivial for x_j when
//       (a) ∂F_i/∂x_j′ is the constant s = ±1 (F_i is then affine in x_j′: F_i = s·x_j′ + r_i),
//       (b) e_j = −s·r_i contains no derivative (only t, jets of order 0, parameters), and
//       (c) d_j = c_i + 1 (x_j′ is tight in F_i, as on the transversal);
//     the first such equation in input order claims x_j. It says x_j′ = e_j(t, x), so every
//     x_j^(k), 1 ≤ k ≤ d_j, equals D^(k−1) e_j: x_j′ … x_j^(d_j) leave z and w, F_i and its
//     derivatives leave G and the invariants, and the total derivative uses (x_j)′ = e_j.
//     Well defined: e_j's variables x_l have d_l ≥ c_i + σ_il ≥ c_i = d_j − 1, so D^(k−1) e_j,
//     which has jets of order ≤ k − 1 ≤ d_j − 1, stays within every x_l's orders. Regular:
//     row i of J is x_j′'s unit column minus e_j's derivatives, so eliminating x_j^(d_j) with it
//     is a Schur complement with pivot 1 and det J is unchanged. This turns x′ = u, m u′ = …
//     written as an implicit system into exactly the mechanical form's reduction.
//  6. Reduction, with the total derivative D e = ∂e/∂t + Σ ∂e/∂x_j^(k)·x_j^(k+1)
//     (total_derivative.h) and S the substitution x_j′ → e_j of step 5:
//       z = the jets x_j^(k), 0 ≤ k < d_j (only x_j itself for a substituted x_j), ordered by
//           derivative order first and variable second (x, y, …, then der(x), …), like the
//           mechanical form's q before v;
//       w = the highest jets x_j^(d_j) of the variables not substituted, in variable order (for
//           d_j = 0 the algebraic variable itself);
//       φ: (x_j^(k))′ = x_j^(k+1), a z or w entry, or e_j for a substituted x_j;
//       G_i = D^(c_i) S F_i for the equations that are not trivial, named F_i's name with c_i
//           primes; square in w;
//       H_ℓ = (D^ℓ S F_i)_{i : c_i > ℓ}, the level-ℓ invariants, named F_i's name with ℓ primes.
//     Level 0 holds the equations that were differentiated, as written; level ℓ their ℓ-th
//     derivatives. Since d_j − c_i ≥ σ_ij, D^ℓ F_i with ℓ < c_i contains jets of order < d_j
//     only: every invariant depends on z (and t) alone, φ and G on z and w.
//
// State selection. Pantelides' method needs dummy derivatives: a choice, valid only locally,
// of which jets are states. Here z keeps every candidate (the pendulum's z = (x, y, u, v)
// holds both coordinates although only one is free) and the projector pulls z back onto
// H_0 = … = H_(k−1) = 0 after every step: the "selection" is the projection's, made afresh at
// each step and never wrong for a whole run. The result exposes what a selection would
// choose from: each level's invariants with the z entries they depend on, and the number of
// degrees of freedom |z| − Σ_ℓ |H_ℓ| (when the invariants are independent, which the
// projector checks numerically at run time).
//
// Scope. The structural index is an upper bound of the differentiation index whenever J is
// regular at a consistent point (Pryce 2001). What stays out of reach: systems
// whose J is singular everywhere for reasons step 2 does not cover (derivatives entering
// nonlinearly or with derivative-dependent coefficients, dependencies visible only among the
// differentiated equations), reported by step 4; and rank changes at particular states (J or
// the Bareiss pivots singular on part of the state space only, J singular exactly on the
// consistent manifold), which show up at run time as singular Newton matrices at that state.
// Structural decisions hold for generic parameter values: a parameter value that cancels a
// term (C = 0) changes the structure and is reported at run time the same way.
//
// Cost: n ≤ StructureOptions::max_equations; the assignment is O(n³) time and O(n²) memory,
// everything else O(n·|σ|) plus the expression work, which is bounded by
// StructureOptions::max_new_nodes (kBudgetExceeded rather than an unbounded swell).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "tether/expr/expr.h"

namespace tether::structure {

inline constexpr std::size_t kNone = static_cast<std::size_t>(-1);

struct ImplicitEquation {
  std::string name;     // used in messages and derived names, e.g. "equations[4]" or "vertical"
  expr::Expr residual;  // F_i(t, x, x′); the equation is F_i = 0
};

struct ImplicitDae {
  expr::Expr time;                          // the symbol t
  std::vector<expr::Expr> variables;        // x_j, symbols with distinct plain names
  std::vector<ImplicitEquation> equations;  // as many as variables, or step 1 reports why not
};

struct StructureOptions {
  // Step 2 of the header: replace dependent derivative combinations before the Σ-method.
  bool eliminate_dependent_derivatives = true;
  // Step 5 of the header: substitute x_j′ = e_j equations. Off, the reduction is Pryce's
  // plain one (z holds every x_j^(k), k < d_j).
  bool substitute_trivial_equations = true;
  // Most equations (and variables) accepted: the assignment costs O(n³) time, O(n²) memory;
  // 1024 takes about a second. 1 ≤ max_equations ≤ kMaxJetOrder (jets.h: the orders of the
  // jets of n first-order equations stay ≤ n).
  std::size_t max_equations = 1024;
  // Most expression nodes the reduction may add to the caller's context (elimination and
  // differentiation together); at 1,000,000 the context holds on the order of 100 MB. ≥ 1.
  std::size_t max_new_nodes = 1'000'000;
  // Random points of every zero test and generic-rank check (probe.h: each independent point
  // multiplies the probability of a wrong "zero" by about 10⁻¹⁵). ≥ 1.
  int probe_points = 4;

  // Names the first field out of range: "StructureOptions::probe_points = 0; must be >= 1".
  bool IsValid(std::string* why) const;
};

// A jet x_j^(order) of the result.
struct Jet {
  std::size_t variable = 0;  // index into ImplicitDae::variables
  int order = 0;
  expr::Expr symbol;  // JetSymbol(name of x_j, order) in the caller's context
};

struct Invariant {
  std::string name;           // the equation's name with `order` primes: "vertical", "vertical'"
  std::size_t equation = 0;   // index into ImplicitDae::equations
  int order = 0;              // ℓ: this is D^ℓ S F_i
  expr::Expr value;           // function of t, z and parameters
};

struct InvariantLevel {
  std::vector<Invariant> invariants;  // in equation order
  std::vector<std::size_t> states;    // indices into SemiExplicitSystem::states they depend on
};

struct EquationReport {
  std::string name;
  int differentiations = 0;   // c_i (of the analyzed equation, before substitution)
  std::size_t assigned_variable = kNone;  // T(i)
  // Step 2: F_i was replaced by F_i − A_iP A_PP⁻¹ F_P, derivative-free; P listed here.
  bool derivatives_eliminated = false;
  std::vector<std::size_t> combined_with;
  // Step 5: F_i is x_j′ = e_j for this variable (then it is in neither G nor the invariants).
  std::size_t defines_derivative_of = kNone;
};

struct VariableReport {
  std::string name;
  int highest_order = 0;            // d_j
  bool derivative_substituted = false;  // x_j′ = e_j by a trivial equation (step 5)
  // Where x_j itself lives: states[state] when d_j ≥ 1, else unknowns[unknown].
  std::size_t state = kNone;
  std::size_t unknown = kNone;
};

struct StructureReport {
  int structural_index = 0;  // ν_S
  std::vector<EquationReport> equations;
  std::vector<VariableReport> variables;
  // |z| − number of invariants: the dimension of the solution manifold when the invariants
  // are independent.
  std::size_t degrees_of_freedom = 0;
};

// The semi-explicit index-1 system. Every expression lives in the caller's context and is a
// function of t, the state and unknown jets, and parameters.
struct SemiExplicitSystem {
  std::vector<Jet> states;                     // z
  std::vector<expr::Expr> state_derivatives;   // φ, one per state
  std::vector<Jet> unknowns;                   // w
  std::vector<expr::Expr> constraints;         // G, as many as unknowns
  std::vector<std::string> constraint_names;   // F_i's name with c_i primes
  std::vector<std::size_t> constraint_equations;  // i of each G row
  std::vector<InvariantLevel> invariant_levels;   // H_0 … H_(k−1)
  StructureReport report;
};

enum class StructureErrorKind {
  kInvalidInput,          // not a first-order implicit system over the variables given
  kStructurallySingular,  // no finite transversal (Dulmage–Mendelsohn parts below)
  kSingularJacobian,      // J singular at every random point: out of reach (header, step 4)
  kBudgetExceeded,        // more than max_new_nodes expression nodes needed
};

struct StructureError {
  StructureErrorKind kind = StructureErrorKind::kInvalidInput;
  // The diagnosis in the names given, with a hint: "equations 'a', 'b' involve only the
  // variable 'x' (2 equations for 1 unknown); variable 'y' appears in no equation".
  std::string message;
  // Everything involved, as indices into ImplicitDae (sorted), so that a caller can name them
  // its own way (the spec reader turns them into JSON paths).
  std::vector<std::size_t> equations;
  std::vector<std::size_t> variables;
  // kStructurallySingular: the Dulmage–Mendelsohn parts (dulmage_mendelsohn.h).
  std::vector<std::size_t> overdetermined_equations;
  std::vector<std::size_t> overdetermined_variables;
  std::vector<std::size_t> underdetermined_equations;
  std::vector<std::size_t> underdetermined_variables;
};

// Exactly one of `system` and `error`.
struct StructureResult {
  std::optional<SemiExplicitSystem> system;
  std::optional<StructureError> error;

  [[nodiscard]] bool ok() const { return system.has_value(); }
};

// Steps 1–6 of the header. Adds jets and derived expressions to `context`; never throws or
// aborts on bad input (invalid options or input are a kInvalidInput error).
StructureResult ReduceImplicitDae(expr::Context& context, const ImplicitDae& dae,
                                  const StructureOptions& options = {});

}  // namespace tether::structure
