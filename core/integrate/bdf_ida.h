// The bdf stepper's IDA engine (bdf.h): M x' = F(t, x) with a given, possibly singular, M as
// the residual G(t, x, x') = M x' − F(t, x) = 0, Newton's method on c_j M − ∂F/∂x, and the
// start derivative x' from M x' = F(t, x) on M's non-zero block. IDA has no projection
// hook: the engine projects IDA's result after the step (see bdf.h). Private to
// core/integrate.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "integrate/bdf_engine.h"
#include "integrate/bdf_linear_solver.h"

namespace tether::integrate {

class IdaEngine final : public BdfEngine {
 public:
  // Flags of this engine beyond IDA's own (which are > −100).
  static constexpr int kStartFailed = -1001;       // F failed at the (re)start state
  static constexpr int kProjectionFailed = -1002;  // the step's projection failed

  // nullptr, with the reason in *why, if M's non-zero rows and columns do not form a square
  // regular block or SUNDIALS rejects the set-up.
  static std::unique_ptr<IdaEngine> Create(const OdeSystem& system, const StepperOptions& options,
                                           std::string* why);
  ~IdaEngine() override;

  [[nodiscard]] std::string_view integrator() const override { return "IDA"; }
  // x' ← M_RD⁻¹ F_R(t, x) on the non-zero block, 0 on the algebraic columns; then IDAReInit.
  int Restart(double t, std::span<const double> x, double initial_step) override;
  int Advance(double t_stop, double h_min, double* t_reached, std::span<double> x_new) override;
  [[nodiscard]] bool resumable() const override { return resumable_; }
  bool Derivative(double t, int k, std::span<double> out) const override;
  [[nodiscard]] int last_order() const override;
  [[nodiscard]] double next_step() const override;
  [[nodiscard]] double error_norm() const override;
  [[nodiscard]] BdfCounters counters() const override;
  [[nodiscard]] FlagMeaning Meaning(int flag) const override;
  [[nodiscard]] std::string FlagName(int flag) const override;

 private:
  IdaEngine(const OdeSystem& system, const StepperOptions& options);
  bool SetUp(const OdeSystem& system, std::string* why);
  bool SetUpMassBlock(std::string* why);
  bool SetUpErrorControl(const OdeSystem& system, std::string* why);

  // IDAResFn and IDALsJacFn with this engine as user data.
  static int Residual(double t, N_Vector x, N_Vector dxdt, N_Vector residual, void* engine);
  static int Jacobian(double t, double c_j, N_Vector x, N_Vector dxdt, N_Vector residual,
                      SUNMatrix jacobian, void* engine, N_Vector, N_Vector, N_Vector);

  void* ida_ = nullptr;
  sundials::Vector x_;        // state handed to IDA and returned by it
  sundials::Vector dxdt_;     // its derivative
  sundials::Vector work_;     // dense output, local errors, F at the start
  sundials::Vector weights_;  // error weights
  sundials::Vector atol_;     // per-component absolute tolerances, or null
  sundials::Vector id_;       // 1 error-controlled, 0 excluded (variable_index ≥ 2), or null
  std::unique_ptr<BdfLinearSolver> newton_;
  std::vector<double> jacobian_values_;  // one per jacobian_pattern() entry
  std::vector<MatrixEntry> mass_pattern_;
  std::vector<double> mass_values_;
  // M's non-zero block M_RD, factored once: rows R and columns D of M with a non-zero value.
  std::vector<std::uint32_t> mass_rows_;
  std::vector<std::uint32_t> mass_columns_;
  std::unique_ptr<BdfLinearSolver> mass_block_;
  sundials::Vector block_rhs_;       // F_R
  sundials::Vector block_solution_;  // x'_D
  long start_evaluations_ = 0;       // F at the last Restart
  bool projection_ = false;
  bool resumable_ = true;
};

}  // namespace tether::integrate
