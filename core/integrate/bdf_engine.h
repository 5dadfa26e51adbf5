// The SUNDIALS side of the bdf stepper (bdf.h): one integrator — CvodeEngine
// (bdf_cvode.h) or IdaEngine (bdf_ida.h) — built for the structure of one OdeSystem, plus
// what both share: the SUNDIALS context, the system's callbacks with their failure record,
// and the error handler that keeps SUNDIALS' last message. Private to core/integrate.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "integrate/bdf_sundials.h"
#include "tether/integrate/stepper.h"

namespace tether::integrate {

// Which of the system's callbacks failed during the current Step, and how.
struct CallbackFailure {
  enum class Kind { kNone, kReturnedFalse, kNonFinite };
  Kind kind = Kind::kNone;
  const char* callback = "";  // "Evaluate", "Jacobian" or "Project"
  double t = 0.0;
};

// SUNDIALS' counters since the integrator's last (re)initialization.
struct BdfCounters {
  long steps = 0;
  long evaluations = 0;          // F, including difference-quotient Jacobians
  long error_test_failures = 0;
  long solve_failures = 0;       // step attempts whose Newton iteration failed
  long projection_failures = 0;
  long jacobians = 0;
  long factorizations = 0;       // Newton matrix set-ups (one LU each)
  long newton_iterations = 0;
};

// How a SUNDIALS return flag ends a Step.
enum class FlagMeaning {
  kSuccess,   // a step was taken
  kStepSize,  // error test or Newton iteration failed down to the minimum step
  kCallback,  // a callback of the system failed for good
  kProjectionFailed,  // IDA: the step was taken but its projection failed (retry smaller)
  kSetup,     // illegal input or memory: the integrator cannot run
};

class BdfEngine {
 public:
  virtual ~BdfEngine() = default;
  BdfEngine(const BdfEngine&) = delete;
  BdfEngine& operator=(const BdfEngine&) = delete;

  [[nodiscard]] virtual std::string_view integrator() const = 0;  // "CVODE" or "IDA"

  // Whether this engine was built for the structure of `system`: its size, M (pattern and
  // values), Jacobian pattern, variable indices and projection.
  [[nodiscard]] bool Fits(const OdeSystem& system) const;
  // The system whose callbacks the following calls evaluate; forgets the recorded failure.
  void Bind(OdeSystem& system);

  // Starts afresh at (t, x): order 1, history dropped, first step `initial_step` (0:
  // StepperOptions::step). Returns a SUNDIALS flag (Meaning).
  virtual int Restart(double t, std::span<const double> x, double initial_step) = 0;
  // One internal step, ending at *t_reached ≤ t_stop, with minimum step h_min; x_new ← the
  // state there. Returns a SUNDIALS flag (Meaning).
  virtual int Advance(double t_stop, double h_min, double* t_reached,
                      std::span<double> x_new) = 0;
  // Whether the next step may continue this engine's history from the x_new it returned.
  [[nodiscard]] virtual bool resumable() const { return true; }

  // out ← the k-th derivative of the last step's interpolant at t (k ≤ last_order());
  // false if t lies outside that step.
  virtual bool Derivative(double t, int k, std::span<double> out) const = 0;
  [[nodiscard]] virtual int last_order() const = 0;
  [[nodiscard]] virtual double next_step() const = 0;
  // WRMS norm of SUNDIALS' estimated local error of the last step, with its weights.
  [[nodiscard]] virtual double error_norm() const = 0;
  [[nodiscard]] virtual BdfCounters counters() const = 0;
  [[nodiscard]] virtual FlagMeaning Meaning(int flag) const = 0;
  [[nodiscard]] virtual std::string FlagName(int flag) const = 0;

  [[nodiscard]] const CallbackFailure& failure() const { return failure_; }
  // SUNDIALS' last error message (empty if none since Bind).
  [[nodiscard]] std::string_view sundials_message() const { return message_.data(); }

 protected:
  // Records the structure of `system` (for Fits) and creates the SUNDIALS context; check
  // context() for null.
  BdfEngine(const OdeSystem& system, const StepperOptions& options);

  [[nodiscard]] SUNContext context() const { return context_.get(); }
  [[nodiscard]] const StepperOptions& options() const { return options_; }
  [[nodiscard]] std::size_t size() const { return n_; }
  [[nodiscard]] OdeSystem& system() const { return *system_; }

  // The absolute tolerances as a vector, or null for the scalar StepperOptions::atol;
  // false (with *why) if atol_per_component has another size than the system.
  bool MakeAbsoluteTolerances(sundials::Vector* atol, std::string* why) const;

  // f ← F(t, x). 0, or +1 (SUNDIALS' "recoverable") with the failure recorded.
  int EvaluateF(double t, std::span<const double> x, std::span<double> f);
  // values ← ∂F/∂x at (t, x) on jacobian_pattern(). 0 or +1, as EvaluateF.
  int EvaluateJacobian(double t, std::span<const double> x, std::span<double> values);
  // x (and error, if non-empty) ← projected (OdeSystem::Project). 0 or +1, as EvaluateF.
  int Project(double t, std::span<double> x, std::span<double> error);

  // For CVodeSetErrHandlerFn / IDASetErrHandlerFn with this engine as user data: keeps the
  // last error's text; warnings (SUNDIALS' "t + h = t" notes) are dropped.
  static void OnError(int code, const char* module, const char* function, char* message,
                      void* engine);
  static constexpr int kWarning = 99;  // CV_WARNING == IDA_WARNING

 private:
  int Record(CallbackFailure::Kind kind, const char* callback, double t);

  std::size_t n_;
  StepperOptions options_;
  std::vector<MatrixEntry> mass_pattern_;
  std::vector<double> mass_values_;
  std::vector<MatrixEntry> jacobian_pattern_;
  std::vector<std::uint8_t> variable_index_;
  bool projection_;
  sundials::Context context_;
  OdeSystem* system_ = nullptr;
  CallbackFailure failure_;
  std::array<char, 512> message_{};
};

}  // namespace tether::integrate
