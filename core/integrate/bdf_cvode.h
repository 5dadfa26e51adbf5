// The bdf stepper's CVODE engine (bdf.h): x' = F(t, x) by CV_BDF with Newton's method on
// I − γ ∂F/∂x, the system's Jacobian scattered into a dense or KLU matrix
// (bdf_linear_solver.h) or SUNDIALS' difference quotients, and the system's projection
// plugged into CVodeSetProjFn. Private to core/integrate.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "integrate/bdf_engine.h"
#include "integrate/bdf_linear_solver.h"

namespace tether::integrate {

class CvodeEngine final : public BdfEngine {
 public:
  // nullptr, with the reason in *why, if SUNDIALS rejects the set-up.
  static std::unique_ptr<CvodeEngine> Create(const OdeSystem& system,
                                             const StepperOptions& options, std::string* why);
  ~CvodeEngine() override;

  [[nodiscard]] std::string_view integrator() const override { return "CVODE"; }
  int Restart(double t, std::span<const double> x, double initial_step) override;
  int Advance(double t_stop, double h_min, double* t_reached, std::span<double> x_new) override;
  bool Derivative(double t, int k, std::span<double> out) const override;
  [[nodiscard]] int last_order() const override;
  [[nodiscard]] double next_step() const override;
  [[nodiscard]] double error_norm() const override;
  [[nodiscard]] BdfCounters counters() const override;
  [[nodiscard]] FlagMeaning Meaning(int flag) const override;
  [[nodiscard]] std::string FlagName(int flag) const override;

 private:
  CvodeEngine(const OdeSystem& system, const StepperOptions& options);
  bool SetUp(const OdeSystem& system, std::string* why);

  // CVRhsFn, CVLsJacFn and CVProjFn with this engine as user data.
  static int Rhs(double t, N_Vector x, N_Vector dxdt, void* engine);
  static int Jacobian(double t, N_Vector x, N_Vector f, SUNMatrix jacobian, void* engine,
                      N_Vector, N_Vector, N_Vector);
  static int Projection(double t, N_Vector x, N_Vector correction, double tolerance,
                        N_Vector error, void* engine);

  void* cvode_ = nullptr;
  sundials::Vector x_;        // the state handed to CVODE and returned by it
  sundials::Vector work_;     // dense output, local errors
  sundials::Vector weights_;  // error weights
  sundials::Vector atol_;     // per-component absolute tolerances, or null
  std::unique_ptr<BdfLinearSolver> newton_;
  std::vector<double> jacobian_values_;  // one per jacobian_pattern() entry
  std::vector<double> projected_;        // the projection's work copy of the state
};

}  // namespace tether::integrate
