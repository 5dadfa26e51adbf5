#include "integrate/bdf.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "integrate/bdf_cvode.h"
#include "integrate/bdf_engine.h"
#include "integrate/bdf_ida.h"
#include "integrate/stage.h"
#include "integrate/step_controller.h"

namespace tether::integrate {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The caller computes a step's end as t + h_taken or lands on an output time; both round to
// the end SUNDIALS reached within this many units in the last place.
constexpr double kEndUlps = 2.0;

bool SameTime(double a, double b) {
  return std::abs(a - b) <= kEndUlps * std::numeric_limits<double>::epsilon() * std::abs(b);
}

// How messages print numbers (10 significant digits, as core/simulate's).
std::string Num(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.10g", x);
  return buffer;
}

// M = I given explicitly: every diagonal entry once, with the value 1.
bool MassIsIdentity(const OdeSystem& system) {
  const std::span<const MatrixEntry> pattern = system.mass_pattern();
  if (pattern.empty()) return true;
  const std::span<const double> values = system.mass_values();
  if (pattern.size() != system.size()) return false;
  for (std::size_t k = 0; k < pattern.size(); ++k) {
    if (pattern[k].row != pattern[k].col || values[k] != 1.0) return false;
  }
  // n diagonal entries, each listed once (stepper.h), cover the diagonal.
  return true;
}

BdfCounters Difference(const BdfCounters& a, const BdfCounters& b) {
  return {a.steps - b.steps,
          a.evaluations - b.evaluations,
          a.error_test_failures - b.error_test_failures,
          a.solve_failures - b.solve_failures,
          a.projection_failures - b.projection_failures,
          a.jacobians - b.jacobians,
          a.factorizations - b.factorizations,
          a.newton_iterations - b.newton_iterations};
}

void Add(const BdfCounters& c, StepResult* result) {
  result->rejections +=
      static_cast<int>(c.error_test_failures + c.solve_failures + c.projection_failures);
  result->evaluations += static_cast<int>(c.evaluations);
  result->jacobians += static_cast<int>(c.jacobians);
  result->factorizations += static_cast<int>(c.factorizations);
  result->newton_iterations += static_cast<int>(c.newton_iterations);
}

StepStatus StatusOf(const CallbackFailure& failure) {
  return failure.kind == CallbackFailure::Kind::kNonFinite ? StepStatus::kNonFinite
                                                           : StepStatus::kRhsFailed;
}

}  // namespace

Bdf::Bdf(const StepperOptions& options) : options_(options) {}

Bdf::~Bdf() = default;

std::unique_ptr<Stepper> Bdf::Clone() const {
  auto clone = std::make_unique<Bdf>(options_);
  clone->Resize(n_);
  clone->x_start_ = x_start_;
  clone->x_end_ = x_end_;
  clone->t_start_ = t_start_;
  clone->t_end_ = t_end_;
  clone->has_step_ = has_step_;
  if (has_step_) clone->taylor_ = LastStepAsTaylor();
  return clone;
}

Bdf::Taylor Bdf::LastStepAsTaylor() const {
  if (!engine_live_) return taylor_;
  Taylor taylor;
  taylor.center = t_end_;
  taylor.degree = engine_->last_order();
  taylor.derivatives.assign(static_cast<std::size_t>(taylor.degree + 1) * n_, 0.0);
  for (int k = 0; k <= taylor.degree; ++k) {
    const std::span<double> d =
        std::span<double>(taylor.derivatives).subspan(static_cast<std::size_t>(k) * n_, n_);
    if (!engine_->Derivative(t_end_, k, d)) return Taylor{};
  }
  return taylor;
}

void Bdf::Resize(std::size_t n) {
  if (n != n_) engine_.reset();  // rebuilt for the next system at the next Step
  n_ = n;
  x_start_.assign(n, 0.0);
  x_end_.assign(n, 0.0);
  start_work_.assign(3 * n, 0.0);
  has_step_ = false;
  engine_live_ = false;
  taylor_ = Taylor{};
}

bool Bdf::EnsureEngine(OdeSystem& system, std::string* why) {
  if (engine_ && engine_->Fits(system)) return true;
  engine_live_ = false;
  engine_.reset();
  if (MassIsIdentity(system)) {
    engine_ = CvodeEngine::Create(system, options_, why);
  } else {
    engine_ = IdaEngine::Create(system, options_, why);
  }
  return engine_ != nullptr;
}

bool Bdf::Continues(double t, std::span<const double> x) const {
  // Bitwise on purpose, like the explicit pairs' FSAL test: only the very state SUNDIALS
  // returned continues its history; a projected or otherwise moved state restarts it.
  return has_step_ && engine_live_ && engine_->resumable() && SameTime(t, t_end_) &&
         std::memcmp(x.data(), x_end_.data(), x.size() * sizeof(double)) == 0;
}

double Bdf::StartingStep(OdeSystem& system, double t, std::span<const double> x, double h,
                         int* evaluations) {
  if (options_.step <= 0.0 || engine_->integrator() != "CVODE") return 0.0;
  double h_max = std::min(options_.step, h);
  if (options_.max_step > 0.0) h_max = std::min(h_max, options_.max_step);
  const std::span<double> work(start_work_);
  const std::span<double> f0 = work.subspan(0, n_);
  if (EvaluateStage(system, t, x, f0, evaluations) != StepStatus::kAccepted) return h_max;
  TrialStep trial;
  if (!TakeTrialStep(system, t, x, f0, h_max, options_, work.subspan(n_, n_),
                     work.subspan(2 * n_, n_), &trial, evaluations)) {
    return trial.h0;
  }
  if (!(trial.d2 > 0.0)) return h_max;  // d2 ≈ ‖x''‖
  return std::min(0.5 * std::sqrt(2.0 / trial.d2), h_max);
}

StepResult Bdf::Fail(StepResult result, StepStatus status, std::string message) {
  engine_live_ = false;
  has_step_ = false;
  result.status = status;
  result.message = std::move(message);
  return result;
}

StepResult Bdf::Failure(StepResult result, int flag, double t) {
  const CallbackFailure& failure = engine_->failure();
  const bool callback_failed = failure.kind != CallbackFailure::Kind::kNone;
  StepStatus status = StepStatus::kUnsupported;
  switch (engine_->Meaning(flag)) {
    case FlagMeaning::kStepSize:
      // Shrinking because a callback failed is not a step-size problem: say which.
      status = callback_failed ? StatusOf(failure) : StepStatus::kStepSizeUnderflow;
      break;
    case FlagMeaning::kCallback:
    case FlagMeaning::kProjectionFailed:
      status = callback_failed ? StatusOf(failure) : StepStatus::kRhsFailed;
      break;
    case FlagMeaning::kSetup:
    case FlagMeaning::kSuccess:
      break;
  }
  std::string message = "bdf (" + std::string(engine_->integrator()) + "): the step from t = " +
                        Num(t) + " failed with " + engine_->FlagName(flag);
  if (!engine_->sundials_message().empty()) {
    message += " (" + std::string(engine_->sundials_message()) + ")";
  }
  if (callback_failed) {
    message += std::string("; OdeSystem::") + failure.callback +
               (failure.kind == CallbackFailure::Kind::kNonFinite ? " gave non-finite values"
                                                                   : " returned false") +
               " at t = " + Num(failure.t);
  }
  return Fail(std::move(result), status, std::move(message));
}

StepResult Bdf::Step(OdeSystem& system, double t, std::span<const double> x, double h,
                     std::span<double> x_new) {
  CheckSizes(name(), n_, x.size(), x_new.size());
  if (system.size() != n_) {
    std::fprintf(stderr, "tether::integrate: bdf::Step got a system of size %zu after Resize(%zu)\n",
                 system.size(), n_);
    std::abort();
  }
  StepResult result;
  if (!options_.error_control) {
    return Fail(std::move(result), StepStatus::kUnsupported,
                "bdf has no fixed-step mode (StepperOptions::error_control = false): SUNDIALS "
                "always controls the step; use dp5 or dop853 with fixed steps");
  }
  if (!StepIsAboveFloor(options_, t, h)) {
    return Fail(std::move(result), StepStatus::kStepSizeUnderflow,
                "bdf: the step h = " + Num(h) + " from t = " + Num(t) +
                    " is below the minimum step " + Num(MinStep(options_, t)));
  }
  if (n_ == 0) return EmptyStep(t, h);
  std::string why;
  if (!EnsureEngine(system, &why)) return Fail(std::move(result), StepStatus::kUnsupported, why);
  engine_->Bind(system);
  const bool continues = Continues(t, x);
  std::copy(x.begin(), x.end(), x_start_.begin());  // x may alias x_new
  has_step_ = false;  // the previous step's dense output is gone
  taylor_.degree = -1;

  BdfCounters before;  // SUNDIALS' counters start from 0 at a restart
  if (continues) {
    before = counters_;
  } else if (const int flag = engine_->Restart(
                 t, x_start_, StartingStep(system, t, x_start_, h, &result.evaluations));
             flag < 0) {
    result.evaluations = static_cast<int>(engine_->counters().evaluations);
    return Failure(std::move(result), flag, t);
  }
  double t_stop = t + h;
  double t_reached = t;
  int flag = 0;
  for (int retries = 0;; ++retries) {
    flag = engine_->Advance(t_stop, MinStep(options_, t), &t_reached, x_new);
    if (engine_->Meaning(flag) != FlagMeaning::kProjectionFailed) break;
    // IDA's projection failed: retake the step from its start with a quarter of it, as
    // CVODE does after a failed projection (its eta_pfail).
    Add(Difference(engine_->counters(), before), &result);
    ++result.rejections;
    const double h_retry = 0.25 * (t_reached - t);
    if (retries + 1 >= options_.max_rejections || !StepIsAboveFloor(options_, t, h_retry)) {
      return Failure(std::move(result), flag, t);
    }
    if (const int restart = engine_->Restart(t, x_start_, h_retry); restart < 0) {
      return Failure(std::move(result), restart, t);
    }
    before = BdfCounters{};
    t_stop = t + h_retry;
  }
  counters_ = engine_->counters();
  Add(Difference(counters_, before), &result);
  if (engine_->Meaning(flag) != FlagMeaning::kSuccess) return Failure(std::move(result), flag, t);
  if (!AllFinite(x_new)) {
    return Fail(std::move(result), StepStatus::kNonFinite,
                "bdf (" + std::string(engine_->integrator()) + "): non-finite state after the "
                "step from t = " + Num(t) + " to t = " + Num(t_reached));
  }
  // The caller adds h_taken to t: give back its own h when the step reached t + h.
  result.h_taken = t_reached == t + h ? h : t_reached - t;
  result.h_next = engine_->next_step();
  result.error_norm = engine_->error_norm();
  std::copy(x_new.begin(), x_new.end(), x_end_.begin());
  t_start_ = t;
  t_end_ = t_reached;
  has_step_ = true;
  engine_live_ = true;
  return result;
}

StepResult Bdf::EmptyStep(double t, double h) {
  StepResult result;
  result.h_taken = result.h_next = h;
  t_start_ = t;
  t_end_ = t + h;
  has_step_ = true;
  return result;
}

void Bdf::Interpolate(double t_out, std::span<double> x_out) const {
  if (!has_step_) {
    std::fill(x_out.begin(), x_out.end(), kNaN);
    return;
  }
  if (t_out == t_start_) {
    std::copy(x_start_.begin(), x_start_.end(), x_out.begin());
    return;
  }
  if (SameTime(t_out, t_end_)) {
    std::copy(x_end_.begin(), x_end_.end(), x_out.begin());
    return;
  }
  if (engine_live_) {
    if (!engine_->Derivative(t_out, 0, x_out)) std::fill(x_out.begin(), x_out.end(), kNaN);
    return;
  }
  if (taylor_.degree < 0) {
    std::fill(x_out.begin(), x_out.end(), kNaN);
    return;
  }
  // Horner: x = d_0 + s(d_1 + s/2 (d_2 + s/3 (…))), s = t_out − center.
  const double s = t_out - taylor_.center;
  for (std::size_t i = 0; i < n_; ++i) {
    const auto d = [&](int k) { return taylor_.derivatives[static_cast<std::size_t>(k) * n_ + i]; };
    double value = d(taylor_.degree);
    for (int k = taylor_.degree - 1; k >= 0; --k) value = d(k) + s / (k + 1) * value;
    x_out[i] = value;
  }
}

}  // namespace tether::integrate
