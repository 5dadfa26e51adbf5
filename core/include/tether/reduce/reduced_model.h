// A model reduced to an ODE with invariants, derived by symbolic differentiation only
// (shared/DESIGN.md §3, seeds chapters 11 and 20). The form's Formulation
// (tether/reduce/formulation.h; the mathematics of each form is in
// core/reduce/formulations/<form>.h) decides the reduction once; everything a step needs is
// compiled into a few expr::Programs so that one Evaluate call per stage gives it, and one of
// two stage kernels turns a stage's values into z':
//
//   StageKernel::kMultipliers, on z = (q, v) (stage program: M, f, Φ_q, a, Φ, h):
//     λ = S⁻¹(−(a + 2αh + β²Φ) − Φ_q M⁻¹ f), v' = M⁻¹(f + Φ_qᵀ λ), S = Φ_q M⁻¹ Φ_qᵀ, q' = v;
//     by DenseMultipliers, or by SparseMultipliers for a diagonal M
//     (ReduceOptions::linear_algebra; the stage program then computes M's diagonal and Φ_q's
//     structural non-zeros only), or in closed form for one or two constraints and a diagonal
//     M (ClosedFormMultipliers: the program computes λ and v' itself).
//   StageKernel::kAlgebraicNewton, x' = f(x, y, t) with y from the level c(x, y, t) = 0
//     (stage program: f, c, c_x, c_y, c_t; with c_y by Eigen's dense LU, or by SparseAlgebraic
//     for a large sparse c_y: the program then computes c_x's and c_y's structural non-zeros
//     only), by AlgebraicMode:
//     kSolve (default, §20.1 addendum): z = x; every stage solves c(x,y,t) = 0 for y by Newton
//       (y ← y − c_y⁻¹ c, warm-started from the previous y).
//     kOde: z = (x, y), y' = −c_y⁻¹ (c_x f + c_t).
//     kStage (implicit steppers): z = (x, y) and the system is M z' = F(t, z) with
//       M = diag(I, 0), F = (f, c): the stepper solves c = 0 inside its own stage system (HW II,
//       VI.1) instead of an inner Newton per stage.
//
// In kStage the stepper's state carries y; its projection keeps the kSolve invariants, which do
// not involve y, and then re-solves y from c = 0 at the projected x (SolveAlgebraicPart: the
// projection onto c = 0 that keeps x, whose error is already the stepper's). Samples thus hold
// the same (x, y(x)) as in kSolve, with y from the stepper's value as the Newton start.
//
// The invariants are stacked in levels, the formulation's "position level" first (it depends on
// z[0, position_size()) only) and the "velocity level" after; the sequential projector relies on
// this split. Residuals() reports the largest of level 0 and of the levels after it.
//
// Program inputs are [states in Model::states() order, t, parameters in Model order].
//
// The Jacobian ∂F/∂z of z' = F(t, z), for implicit steppers (ReduceOptions::jacobian). Every
// form's F is φ(t, z, w) with stage unknowns w defined by G(t, z, w) = 0, G_w regular (each
// formulation's header gives its φ, w and G), so by the implicit function theorem
//   ∂F/∂z = φ_z − φ_w G_w⁻¹ G_z,
// with φ_z, φ_w, G_z, G_w compiled symbolically (their structurally non-zero entries only) and
// G_w⁻¹ G_z by one LU per evaluation (Eigen's dense LU, or KLU for a large sparse G_w:
// LinearAlgebra). Entry (i, j) is structurally non-zero when φ_z's is or
// when row i of φ_w and column j of G_z both are (G_w⁻¹ is taken as full).
//
// A ReducedModel is a value: copy it for another thread or a forked run (the symbolic
// context is shared read-only; the compiled programs and the work memory are copied).
// Rhs, Invariants, Mass, Outputs do not allocate, except a copy's first factorization of a
// sparse c_y (KLU analyses the pattern again: sparse_algebraic.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "tether/expr/expr.h"
#include "tether/expr/program.h"
#include "tether/linalg/klu_factorization.h"
#include "tether/model/model.h"
#include "tether/reduce/formulation.h"
#include "tether/reduce/closed_form_multipliers.h"
#include "tether/reduce/dense_multipliers.h"
#include "tether/reduce/sparse_algebraic.h"
#include "tether/reduce/sparse_multipliers.h"

namespace tether::reduce {

enum class AlgebraicMode {
  kSolve,  // y by Newton on c = 0 inside every evaluation (index1: c = g, index2: c = h)
  kOde,    // y part of the ODE state, y' from the differentiated c
  // y part of the state of M z' = F(t, z), M = diag(I, 0), F = (f, c), solved by an implicit
  // stepper inside its stage system (radau5, bdf through IDA); forms index1, index2, implicit.
  kStage,
};

// How the stage kernel solves its linear systems: the mechanical kernel (kMultipliers) for λ,
// the algebraic one (kAlgebraicNewton) with c_y; and the Jacobian ∂F/∂z with G_w.
enum class LinearAlgebra {
  kAuto,    // mechanical: closed form where ClosedFormMultipliers applies, else sparse where
            // SparseMultipliers::Pays() for the model's pattern, else dense; algebraic: sparse
            // where SparseAlgebraic::Pays(), else dense; G_w: sparse where SparseAlgebraic's
            // crossover (kFromRows, kMaxDensity) holds for it, else dense
  kDense,   // DenseMultipliers (tether/reduce/dense_multipliers.h); Eigen's LU of c_y and G_w
  kSparse,  // SparseMultipliers (tether/reduce/sparse_multipliers.h): needs a mass matrix
            // whose off-diagonal entries are all the constant 0; SparseAlgebraic
            // (tether/reduce/sparse_algebraic.h); G_w by KLU
};

struct ReduceOptions {
  AlgebraicMode algebraic = AlgebraicMode::kSolve;
  LinearAlgebra linear_algebra = LinearAlgebra::kAuto;
  // The algebraic Newton of kSolve stops when max_i |c_i| / s_i ≤ newton_tolerance, with the
  // scale s_i = max(1, ½ Σ_j |∂c_i/∂w_j · w_j|) over all variables w = (x, y), the same scale
  // as the projector's (tether/project/projector.h). > 0.
  double newton_tolerance = 1e-12;
  // It fails after this many iterations, or as soon as the scaled residual grows. ≥ 1.
  int max_newton_iterations = 20;
  // Compile ∂F/∂z (Jacobian()): needed by implicit steppers only, it costs a program of up to
  // (N + |w|)² derivative entries.
  bool jacobian = false;

  bool IsValid(std::string* why) const;
};

enum class EvalStatus {
  kOk,
  kNonFinite,     // NaN or ±∞ in an evaluated quantity
  kSingular,      // rank-deficient Φ_q M⁻¹ Φ_qᵀ, c_y, or a mass matrix not positive definite
  kNotConverged,  // the algebraic Newton of kSolve did not converge
};

// Why the last Rhs/Invariants call returned false; the message names t, the quantity and,
// for kSingular, the constraints involved ("constraints 'c1', 'c2' are dependent").
struct EvalFailure {
  EvalStatus status = EvalStatus::kOk;
  std::string message;
};

// How Rhs turns one evaluation of the stage program into z' (file comment).
enum class StageKernel { kMultipliers, kAlgebraicNewton };

class ReducedModel;

struct ReduceResult {
  std::unique_ptr<ReducedModel> reduced;  // set iff error is empty
  std::string error;
};

class ReducedModel {
 public:
  static ReduceResult Build(std::shared_ptr<const model::Model> model,
                            const ReduceOptions& options);

  ReducedModel(const ReducedModel&) = default;
  ReducedModel& operator=(const ReducedModel&) = default;
  ~ReducedModel();

  [[nodiscard]] const model::Model& model() const { return *model_; }
  [[nodiscard]] model::Form form() const { return model_->form; }
  [[nodiscard]] const Formulation& formulation() const { return *formulation_; }
  [[nodiscard]] AlgebraicMode algebraic_mode() const { return options_.algebraic; }
  [[nodiscard]] const ReduceOptions& options() const { return options_; }

  [[nodiscard]] std::size_t ode_size() const { return ode_size_; }            // N
  [[nodiscard]] std::size_t position_size() const { return position_size_; }  // P ≤ N
  [[nodiscard]] std::size_t num_position_invariants() const { return num_pos_inv_; }
  [[nodiscard]] std::size_t num_velocity_invariants() const { return num_vel_inv_; }
  [[nodiscard]] std::size_t num_invariants() const { return num_pos_inv_ + num_vel_inv_; }
  // λ (m, mechanical) or y (index1/2).
  [[nodiscard]] std::size_t num_auxiliary() const { return aux_.size(); }
  // n for mechanical (W = diag(M, M) is available), 0 otherwise.
  [[nodiscard]] std::size_t mass_size() const { return mass_size_; }
  // True when M is diagonal by structure (sparse_multipliers()): its off-diagonal entries are
  // the constant 0, and only the diagonal is compiled.
  [[nodiscard]] bool mass_diagonal() const { return mass_diagonal_; }
  [[nodiscard]] std::size_t num_states() const { return num_states_; }
  // True when the stage program computes λ and v' in closed form (ClosedFormMultipliers).
  [[nodiscard]] bool closed_form_multipliers() const { return closed_.has_value(); }
  // True when the stage kernel solves for λ by SparseMultipliers (ReduceOptions::linear_algebra).
  [[nodiscard]] bool sparse_multipliers() const { return sparse_.has_value(); }
  // True when the algebraic kernel factors c_y by SparseAlgebraic (ReduceOptions::linear_algebra).
  [[nodiscard]] bool sparse_algebraic() const { return sparse_algebraic_.has_value(); }
  // True when Jacobian factors the stage unknowns' G_w by KLU (reduced_jacobian.cc; chosen by
  // ReduceOptions::linear_algebra as for c_y).
  [[nodiscard]] bool sparse_jacobian() const { return sparse_jacobian_.has_value(); }
  // Either: the model is large and sparse, and its W⁻¹ diagonal for every projection metric
  // (M diagonal, or no mass metric at all), so its projection takes the sparse path too.
  [[nodiscard]] bool sparse_linear_algebra() const {
    return sparse_multipliers() || sparse_algebraic();
  }
  // The constraint name each invariant row comes from (Φ_i and h_i share one).
  [[nodiscard]] const std::vector<std::string>& invariant_names() const {
    return invariant_names_;
  }

  // Parameter values in Model::parameters order (initially the model's defaults).
  void SetParameters(std::span<const double> values);
  [[nodiscard]] std::span<const double> parameters() const;
  // Acceleration-level stabilization (mechanical; α = β = 0 turns it off).
  void SetBaumgarte(double alpha, double beta);

  // z' = F(t, z). On success auxiliary() holds λ or y at (t, z). z and zdot are separate
  // arrays: parts of z' are written while z is still read.
  bool Rhs(double t, std::span<const double> z, std::span<double> zdot);
  [[nodiscard]] std::span<const double> auxiliary() const { return aux_; }
  // Sets y (warm start of kSolve, or the y used for kSolve invariants and outputs).
  void SetAuxiliary(std::span<const double> values);

  // Newton on c(x, y, t) = 0 for y from the y given (kernel kAlgebraicNewton in every mode;
  // used by Rhs in kSolve mode and by consistent initialization). `iterations` may be null.
  bool SolveAlgebraic(double t, std::span<const double> x, std::span<double> y, int* iterations);

  // Consistent initialization: the invariant levels to project onto first, then
  // InitializeAuxiliary at the projected z: λ from Rhs (kMultipliers), or y solved from
  // c = 0 starting at the full `state`'s y into auxiliary() (and z's y in kOde and kStage),
  // with the Newton iterations added to `iterations`.
  [[nodiscard]] InitializationPlan initialization_plan() const {
    return formulation_->initialization();
  }
  bool InitializeAuxiliary(double t, std::span<double> z, std::span<const double> state,
                           int* iterations);

  // H(t, z) (num_invariants()) and H_z (row-major num_invariants() × N). In kSolve mode the
  // y fed to the programs is auxiliary() (g does not depend on it).
  bool Invariants(double t, std::span<const double> z, std::span<double> h,
                  std::span<double> h_z);
  // The structurally non-zero entries of H_z: those not the constant 0 for every (t, z).
  [[nodiscard]] const SparseSchur::Pattern& invariant_jacobian_pattern() const {
    return invariant_pattern_;
  }
  // H (num_invariants()) and H_z's values at invariant_jacobian_pattern()'s entries, in its
  // order: Invariants without the dense matrix, O(non-zeros).
  bool InvariantValues(double t, std::span<const double> z, std::span<double> h,
                       std::span<double> values);
  // M(q, v, t), row-major n × n (mechanical only).
  bool Mass(double t, std::span<const double> z, std::span<double> m);
  // M's diagonal, n values: O(n) where mass_diagonal(), else read off the full M.
  bool MassDiagonal(double t, std::span<const double> z, std::span<double> diagonal);
  // kStage: the number of leading components of z with a 1 on M's diagonal (x, or z of the
  // implicit form); the other ode_size() − differential_size() rows of M are zero. M = I (0
  // here) in the other modes.
  [[nodiscard]] std::size_t stage_differential_size() const {
    return options_.algebraic == AlgebraicMode::kStage ? n_ : 0;
  }
  // kStage: per component i of z, k ≠ i if it is the derivative of x_k (x_k' = y_j by the
  // model's equations: an implicit model's der(x_k)), else i (integrate::OdeSystem::
  // derivative_of). Empty in the other modes.
  [[nodiscard]] std::span<const std::uint32_t> stage_derivative_of() const {
    return stage_derivative_of_;
  }
  // kStage: z's algebraic part y ← the solution of c(t, x, y) = 0 by the Newton of
  // SolveAlgebraic started from it, x kept, and auxiliary() ← y. A y that already satisfies
  // the Newton tolerance is left bitwise as it is. No-op (true) in the other modes.
  bool SolveAlgebraicPart(double t, std::span<double> z);
  // Evaluations of the compiled stage program (f, c and their derivatives, or M, f, Φ_q, …)
  // since Build: the work unit of Rhs, which in kSolve costs one per Newton iteration plus one.
  [[nodiscard]] std::uint64_t stage_evaluations() const { return stage_evaluations_; }

  // The largest |H| of invariant level 0 (‖Φ‖∞, or ‖g‖∞) and of the levels after it (‖h‖∞;
  // 0 when there are none) at the full state (z with auxiliary()).
  bool Residuals(double t, std::span<const double> z, double* position, double* velocity);

  // The full state over Model::states() from z (and auxiliary() y in kSolve mode), and back
  // (which also sets auxiliary() y in kSolve mode).
  void FullState(std::span<const double> z, std::span<double> state) const;
  void SetFullState(std::span<const double> state, std::span<double> z);

  // The model's named outputs at a full state.
  bool Outputs(double t, std::span<const double> state, std::span<double> out);
  [[nodiscard]] std::size_t num_outputs() const { return model_->outputs.size(); }

  [[nodiscard]] const EvalFailure& failure() const { return failure_; }

  // The structurally non-zero entries (row, column) of ∂F/∂z, row-major order; empty unless
  // built with ReduceOptions::jacobian.
  struct Entry {
    std::uint32_t row = 0;
    std::uint32_t col = 0;
  };
  [[nodiscard]] std::span<const Entry> jacobian_pattern() const { return jacobian_pattern_; }
  // values[k] ← ∂F_row/∂z_col (t, z) for entry k of jacobian_pattern(). Evaluates Rhs first
  // (for w); false as Rhs, or when G_w is singular.
  bool Jacobian(double t, std::span<const double> z, std::span<double> values);

  // The compiled programs (stage, invariants, mass, outputs, ∂F/∂z; some may be empty), for
  // benchmarks and code generators.
  [[nodiscard]] std::vector<const expr::Program*> programs() const {
    return {&stage_, &invariants_, &mass_, &outputs_, &jacobian_};
  }

 private:
  using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

  friend struct FormulationBuild;  // compiles the programs and sets the layout

  ReducedModel() = default;
  // Takes the sizes and layouts the formulation decided (formulation_build.h).
  void Apply(const FormulationBuild& build);
  void CompileInvariants(const FormulationBuild& build);
  [[nodiscard]] std::vector<expr::Expr> ImportOutputs(expr::Context& context) const;
  void LoadJacobianInputs(std::span<const double> z, std::span<const double> zdot);
  void Allocate();
  void LoadState(double t, std::span<const double> state);
  void LoadZ(double t, std::span<const double> z);
  bool RhsMechanical(double t, std::span<const double> z, std::span<double> zdot);
  [[nodiscard]] Eigen::MatrixXd JacobianOfStage() const;
  // Runs the invariants program at (t, z) and copies H into `h`.
  bool EvaluateInvariants(double t, std::span<const double> z, std::span<double> h);
  // invariants_out_ at (t, z), evaluated unless it holds them already: the program is a pure
  // function of its inputs, so equal inputs, bit for bit, give the same outputs (a sample's
  // residuals right after the projection that ended at its state). A z of all the states is
  // read where it is; a shorter one (kSolve's x) is loaded into in_ with its y.
  void EvaluateInvariantProgram(double t, std::span<const double> z);
  bool FailMassNotPositive(double t);
  bool RhsIndex(double t, std::span<const double> z, std::span<double> zdot);
  bool Fail(EvalStatus status, std::string message);
  // Failure kNonFinite naming why: a state the stepper handed over already non-finite (the
  // method's arithmetic overflowed), else the first non-finite spec expression.
  bool FailNonFinite(double t, const char* what);
  // "x = nan": the first state of the stepper's z in in_ that is not finite; "" when all are.
  [[nodiscard]] std::string NonFiniteState() const;
  // "forces[1] = '1/(x - 1)' is inf with x = 1": the first spec expression that is not finite
  // at the inputs in in_, with the values of its names; "" when all are (a derivative is not).
  [[nodiscard]] std::string DescribeNonFinite() const;
  bool FailSingularRows(double t, const Eigen::MatrixXd& rows, const char* what);
  // The algebraic kernel's c_y steps (reduced_model.cc), dense or SparseAlgebraic.
  double AlgebraicResidual(std::span<const double> x, std::span<const double> y);
  bool FactorCy(double t);
  void SolveCy(Eigen::VectorXd& b);

 public:
  // A block of H_z: `rows` × `width` values, row-major at `source` of the invariants program's
  // outputs, placed at (row, col) of H_z.
  struct InvariantBlock {
    std::size_t source = 0;
    std::size_t row = 0;
    std::size_t col = 0;
    std::size_t rows = 0;
    std::size_t width = 0;
  };
  // Values [offset, offset + count) of the invariants program's outputs: one level's residuals.
  struct ResidualLevel {
    std::size_t offset = 0;
    std::size_t count = 0;
  };

 private:
  std::shared_ptr<const model::Model> model_;
  std::shared_ptr<const expr::Context> context_;
  const Formulation* formulation_ = nullptr;  // the registry's, never null after Build
  ReduceOptions options_;

  StageKernel kernel_ = StageKernel::kMultipliers;
  std::size_t n_ = 0;    // coordinates (kMultipliers) or differential variables
  std::size_t m_ = 0;    // constraints (= algebraic variables for kAlgebraicNewton)
  std::size_t num_states_ = 0;  // Model::num_states()
  std::size_t ode_size_ = 0;
  std::size_t position_size_ = 0;
  std::size_t num_pos_inv_ = 0;
  std::size_t num_vel_inv_ = 0;
  std::size_t mass_size_ = 0;
  bool mass_diagonal_ = false;  // mass_ computes M's diagonal only
  std::vector<std::string> invariant_names_;
  // H: the first invariant_prefix_ outputs of invariants_ (its first num_invariants() values,
  // and whatever else the residual levels read); then H_z's structural non-zeros, in
  // invariant_pattern_'s order.
  std::size_t invariant_prefix_ = 0;
  // Level 0, then the levels reported together as the velocity residual.
  std::vector<ResidualLevel> residual_levels_;
  SparseSchur::Pattern invariant_pattern_;
  std::string algebraic_jacobian_name_;  // "g_y", "h_y = g_x f_y", "G_w …"
  std::vector<std::uint32_t> stage_derivative_of_;  // kStage only
  double alpha_ = 0.0;
  double beta_ = 0.0;

  expr::Program stage_;       // mechanical: M, f, Φ_q, a, Φ, h;  index: f, c, c_x, c_y, c_t
  expr::Program invariants_;  // mechanical: Φ, h, Φ_q, h_q;  index1: g, g_x, g_y;
                              // index2: g, h, g_x, h_x, h_y
  expr::Program mass_;        // mechanical: M, or its diagonal (mass_diagonal_)
  expr::Program outputs_;

  std::vector<double> in_;  // [states, t, parameters, α, β]
  std::size_t model_inputs_ = 0;  // every program but closed_stage_ reads the first ones
  [[nodiscard]] std::span<const double> model_in() const {
    return std::span<const double>(in_).first(model_inputs_);
  }
  std::vector<double> stage_out_;
  std::vector<double> invariants_out_;
  // The states and t invariants_out_ was evaluated at, when invariants_cached_ (cleared when
  // the parameters change, the program's other inputs).
  std::vector<double> invariants_at_;
  bool invariants_cached_ = false;
  std::vector<double> mass_out_;  // mass_'s values where they are not the caller's layout
  std::vector<double> aux_;

  // The closed-form multiplier, when the formulation chose it: closed_stage_ computes z' and λ
  // from z and in_'s [t, parameters, α, β] (closed_form_multipliers.h); closed_plain_ the same
  // with α = β = 0 folded in, for the runs without Baumgarte terms (the usual ones): its λ
  // no longer waits for 2α h + β² Φ, which shortens every stage's chain of dependent
  // operations. stage_ stays for the diagnosis.
  std::optional<ClosedFormMultipliers> closed_;
  expr::Program closed_stage_;
  expr::Program closed_plain_;
  std::vector<double> closed_out_;  // the closed-form layout's tail [λ, S, d]
  // The sparse multiplier solve, when the formulation chose it; the stage program is then in
  // its layout (sparse_multipliers.h).
  std::optional<SparseMultipliers> sparse_;

  // The dense multiplier solve otherwise (mechanical forms); its stage program is in the dense
  // layout (dense_multipliers.h).
  DenseMultipliers dense_;
  std::vector<double> lambda_;  // λ of the last mechanical stage solve, m
  // The index forms' c_y by sparse LU, when the formulation chose it; the stage program is
  // then in its layout (sparse_algebraic.h).
  std::optional<SparseAlgebraic> sparse_algebraic_;
  // Work memory of the index forms' algebraic Newton (Eigen's LU; c_y_ and lu_ empty when sparse).
  Eigen::MatrixXd c_y_;                        // m × m
  Eigen::PartialPivLU<Eigen::MatrixXd> lu_;
  Eigen::VectorXd work_m_;
  Eigen::VectorXd solve_m_;

  // ∂F/∂z (reduced_jacobian.cc): the program's outputs are the non-zero entries of φ_z, φ_w,
  // G_z, G_w in that order, each block row-major, at their positions in jacobian_blocks_.
  struct BlockEntry {
    std::uint8_t block = 0;  // 0 φ_z, 1 φ_w, 2 G_z, 3 G_w
    std::uint32_t row = 0;
    std::uint32_t col = 0;
  };
  expr::Program jacobian_;
  std::vector<BlockEntry> jacobian_blocks_;
  std::vector<Entry> jacobian_pattern_;
  std::size_t num_stage_unknowns_ = 0;  // |w|
  std::vector<double> jacobian_in_;
  std::vector<double> jacobian_out_;
  std::vector<double> rhs_work_;
  Eigen::MatrixXd phi_z_, phi_w_, g_z_, g_w_;  // φ_w, G_z, G_w empty on the sparse path
  Eigen::PartialPivLU<Eigen::MatrixXd> g_w_lu_;
  // The sparse path, for a G_w as large and sparse as SparseAlgebraic::Pays asks of c_y:
  // G_w factored by KLU, and φ_w G_w⁻¹ G_z formed one structurally non-zero column of G_z at
  // a time, O(|z| (nnz(LU) + nnz(φ_w))) instead of O(|w|³ + |z| |w|²).
  struct SparseJacobian {
    // One block's entries in compressed-column order, each with its jacobian_out_ index.
    struct Columns {
      std::vector<int> start;  // columns + 1 (int: KLU's column pointers)
      std::vector<int> row;
      std::vector<std::size_t> source;
    };
    Columns g_w;
    Columns g_z;
    std::vector<double> g_w_values;  // in g_w's order, as KLU takes them
    std::vector<std::size_t> phi_w;  // φ_w's entries: indices into jacobian_blocks_
    std::vector<double> column;      // |w|: a column of G_z, then G_w⁻¹ times it
    linalg::KluFactorization lu{linalg::KluFactorization::Values::kReal};
  };
  // The sparse path's lists for the Jacobian program's outputs `blocks` (z of size big_n, w
  // of size nw).
  static SparseJacobian SparseJacobianOf(const std::vector<BlockEntry>& blocks, std::size_t big_n,
                                         std::size_t nw);
  // φ_z ← φ_z − φ_w G_w⁻¹ G_z on the sparse path; false when G_w fails the rank test.
  bool SubtractSparseCoupling();
  bool FailSingularGw(double t);
  std::optional<SparseJacobian> sparse_jacobian_;

  std::uint64_t stage_evaluations_ = 0;
  EvalFailure failure_;
};

}  // namespace tether::reduce
