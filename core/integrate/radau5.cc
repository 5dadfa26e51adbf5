#include "integrate/radau5.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "integrate/stage.h"

namespace tether::integrate {

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();

// Nodes (radau5.f: C1, C2; c3 = 1), √6 to 40 digits.
constexpr double kSqrt6 = 2.449489742783178098197284074705891391966;
constexpr double kC1 = (4.0 - kSqrt6) / 10.0;
constexpr double kC2 = (4.0 + kSqrt6) / 10.0;
constexpr std::array<double, 3> kC = {kC1, kC2, 1.0};

// Eigenvalues of A⁻¹: γ real, α ± iβ (radau5.f: 1/U1, ALPH/CNO, BETA/CNO), to 19 digits.
constexpr double kGamma = 3.637834252744495732;
constexpr double kAlpha = 2.681082873627752134;
constexpr double kBeta = 3.050430199247410569;

// T and T⁻¹ with T⁻¹ A⁻¹ T = diag(γ, [[α, −β], [β, α]]) (radau5.f: T11…T31, TI11…TI33).
constexpr std::array<std::array<double, 3>, 3> kT = {{
    {9.1232394870892942792e-02, -0.14125529502095420843, -3.0029194105147424492e-02},
    {0.24171793270710701896, 0.20412935229379993199, 0.38294211275726193779},
    {0.96604818261509293619, 1.0, 0.0},
}};
constexpr std::array<std::array<double, 3>, 3> kTInverse = {{
    {4.3255798900631553510, 0.33919925181580986954, 0.54177053993587487119},
    {-4.1787185915519047273, -0.32768282076106238708, 0.47662355450055045196},
    {-0.50287263494578687595, 2.5719269498556054292, -0.59603920482822492497},
}};

// Error-estimate weights e_i (radau5.f: DD1, DD2, DD3).
constexpr std::array<double, 3> kE = {-(13.0 + 7.0 * kSqrt6) / 3.0, (-13.0 + 7.0 * kSqrt6) / 3.0,
                                      -1.0 / 3.0};

// RADAU5's constants: θ at which the Newton iteration counts as diverging; the smallest
// error norm (ESTRAD); singular factorizations within one step before giving up (NSING);
// the first step when options.step = 0 [s]; the step cut after an error rejection before
// the first accepted step; the floor of err_acc in Gustafsson's controller.
constexpr double kDivergentTheta = 0.99;
constexpr double kSmallestError = 1e-10;
constexpr int kMaxSingular = 5;
constexpr double kDefaultFirstStep = 1e-6;
constexpr double kFirstRejectionFactor = 0.1;
constexpr double kSmallestAcceptedError = 1e-2;

// How a failed fixed-step attempt ends the step (stepper.h: it cannot retry).
StepStatus FixedStepStatus(AttemptFailure failure) {
  switch (failure) {
    case AttemptFailure::kRhsFailed:
      return StepStatus::kRhsFailed;
    case AttemptFailure::kNonFinite:
      return StepStatus::kNonFinite;
    default:
      return StepStatus::kNewtonFailed;
  }
}

}  // namespace

Radau5::Radau5(const StepperOptions& options) : options_(options) {
  // rtol' = rtol: radau5.f's 0.1 rtol^(2/3) is not applied (radau5.h, Tolerances).
  rtol_ = options_.rtol;
  newton_tolerance_ = options_.newton_tolerance > 0.0
                          ? options_.newton_tolerance
                          : std::max(10.0 * kEps / rtol_, std::min(0.03, std::sqrt(rtol_)));
}

std::unique_ptr<Stepper> Radau5::Clone() const { return std::make_unique<Radau5>(*this); }

void Radau5::Resize(std::size_t n) {
  CheckTolerances(name(), options_, n);
  n_ = n;
  atol_.resize(n);
  for (std::size_t i = 0; i < n; ++i) atol_[i] = options_.AbsoluteTolerance(i);  // atol'_i = atol_i
  matrices_.Resize(n, options_);
  for (std::vector<double>* v : {&x0_, &f0_, &base_weights_, &weights_, &work_, &mass_work_,
                                 &error_, &x_end_}) {
    v->assign(n, 0.0);
  }
  for (std::vector<double>* v : {&z_, &w_, &f_, &dense_}) v->assign(3 * n, 0.0);
  index_.clear();
  index_.reserve(n);
  derivative_of_.clear();
  has_step_ = false;
  accepted_any_ = false;
  accepted_ = 0;
  proposal_ = 0.0;
  h_acc_ = err_acc_ = 0.0;
  eta_ = 1.0;
  theta_ = 0.0;
  jacobian_current_ = false;
  factored_h_ = 0.0;
}

std::span<double> Radau5::Row(std::vector<double>& v, std::size_t k) const {
  return std::span<double>(v).subspan(k * n_, n_);
}

StepResult Radau5::Fail(StepResult result, StepStatus status) {
  result.status = status;
  return result;
}

StepResult Radau5::Step(OdeSystem& system, double t, std::span<const double> x, double h,
                        std::span<double> x_new) {
  CheckSizes(name(), n_, x.size(), x_new.size());
  StepResult result;
  if (!StepIsAboveFloor(options_, t, h)) return Fail(result, StepStatus::kStepSizeUnderflow);
  if (matrices_.Adopt(system)) {
    jacobian_current_ = false;
    factored_h_ = 0.0;
    const std::span<const std::uint8_t> index = system.variable_index();
    index_.assign(index.begin(), index.end());
    const std::span<const std::uint32_t> derivative_of = system.derivative_of();
    derivative_of_.assign(derivative_of.begin(), derivative_of.end());
  }
  // The previous step's polynomial predicts this one's stages iff this step continues it.
  const bool extrapolate = has_step_ && t == t_end_;
  std::copy(x.begin(), x.end(), x0_.begin());  // x may alias x_new
  has_step_ = false;  // x0_ now belongs to this step; the previous dense output is gone

  const StepStatus start = EvaluateStage(system, t, x0_, f0_, &result.evaluations);
  if (start != StepStatus::kAccepted) {
    result.failure = FailureOf(start);
    return Fail(result, start);
  }
  for (std::size_t i = 0; i < n_; ++i) base_weights_[i] = atol_[i] + rtol_ * std::abs(x0_[i]);

  const bool fixed = !options_.error_control;
  double h_try = h;
  if (!fixed) {
    if (options_.max_step > 0.0) h_try = std::min(h_try, options_.max_step);
    const double first = options_.step > 0.0 ? options_.step : kDefaultFirstStep;
    h_try = std::min(h_try, proposal_ > 0.0 ? proposal_ : first);
  }
  bool jacobian_fresh = false;  // J was evaluated at (t, x0) during this step
  bool rejected = false;
  int singular = 0;
  // Records a failed attempt; true iff the step may be retried with h ← h · factor.
  const auto reject = [&](AttemptFailure failure, double factor) {
    result.failure = failure;
    result.h_failed = h_try;
    if (fixed) return false;
    ++result.rejections;
    rejected = true;
    h_try *= factor;
    if (!jacobian_fresh) jacobian_current_ = false;  // RADAU5: "IF (CALJAC) GOTO 20"
    return true;
  };

  for (;;) {
    if (!fixed && (!StepIsAboveFloor(options_, t, h_try) ||
                   result.rejections >= options_.max_rejections)) {
      return Fail(result, StepStatus::kStepSizeUnderflow);
    }
    if (!jacobian_current_) {
      ++result.jacobians;
      const StepStatus status =
          matrices_.EvaluateJacobian(system, t, x0_, f0_, &result.evaluations);
      if (status != StepStatus::kAccepted) {  // at (t, x0): no smaller step helps
        result.failure = FailureOf(status);
        return Fail(result, status);
      }
      jacobian_current_ = jacobian_fresh = true;
      factored_h_ = 0.0;
    }
    if (factored_h_ != h_try || !matrices_.factored()) {
      ++result.factorizations;
      factored_h_ = 0.0;
      if (!matrices_.Factor(kGamma / h_try, {kAlpha / h_try, kBeta / h_try})) {
        if (!reject(AttemptFailure::kSingularMatrix, options_.failure_factor)) {
          return Fail(result, StepStatus::kNewtonFailed);
        }
        if (++singular >= kMaxSingular) return Fail(result, StepStatus::kStepSizeUnderflow);
        continue;
      }
      factored_h_ = h_try;
    }
    ComputeWeights(h_try);
    const NewtonOutcome newton =
        SolveStages(system, t, h_try, extrapolate && accepted_any_, &result.evaluations);
    result.newton_iterations += newton.iterations;
    AttemptFailure failure = newton.failure;
    if (failure == AttemptFailure::kNone && !AllFinite(z_)) failure = AttemptFailure::kNonFinite;
    if (failure != AttemptFailure::kNone) {
      if (reject(failure, newton.step_factor)) continue;
      return Fail(result, FixedStepStatus(failure));
    }
    if (fixed) {
      jacobian_current_ = theta_ <= options_.jacobian_reuse_theta;
      result.h_next = h;
      AcceptStep(t, h_try, x_new);
      result.h_taken = h_try;
      return result;
    }
    const double err =
        ErrorNorm(system, t, h_try, !accepted_any_ || rejected, &result.evaluations);
    if (err < 1.0) {
      result.error_norm = err;
      result.h_next = NextStep(h_try, err, newton.iterations, rejected);
      AcceptStep(t, h_try, x_new);
      result.h_taken = h_try;
      return result;
    }
    const double quotient = Quotient(err, newton.iterations);
    reject(AttemptFailure::kErrorTooLarge,
           accepted_any_ ? 1.0 / quotient : kFirstRejectionFactor);
  }
}

void Radau5::ComputeWeights(double h) {
  std::copy(base_weights_.begin(), base_weights_.end(), weights_.begin());
  // Components of index k ≥ 2: sc_i / h^(k−1) (radau5.f, NIND2 and NIND3).
  for (std::size_t i = 0; i < index_.size() && i < n_; ++i) {
    if (index_[i] >= 2) weights_[i] /= std::pow(h, index_[i] - 1);
  }
  for (std::size_t i = 0; i < derivative_of_.size() && i < n_; ++i) {
    const std::size_t k = derivative_of_[i];
    if (k != i && k < n_) weights_[i] = base_weights_[k] / h;
  }
}

double Radau5::WeightedRms(std::span<const double> v) const {
  // v holds one or three blocks of n components, each weighted by sc.
  if (v.empty()) return 0.0;  // n = 0: nothing to measure (sum/size would be 0/0)
  double sum = 0.0;
  for (std::size_t block = 0; block < v.size(); block += n_) {
    for (std::size_t i = 0; i < n_; ++i) {
      const double ratio = v[block + i] / weights_[i];
      sum += ratio * ratio;
    }
  }
  return std::sqrt(sum / static_cast<double>(v.size()));
}

void Radau5::StartingValues(double h, bool extrapolate) {
  if (!extrapolate) {
    std::fill(z_.begin(), z_.end(), 0.0);
    std::fill(w_.begin(), w_.end(), 0.0);
    return;
  }
  // z_k = u(c_k h/h_old) − x_end: the last step's collocation polynomial beyond its end.
  const double ratio = h / h_last_;
  for (std::size_t i = 0; i < n_; ++i) {
    const double d1 = dense_[i];
    const double d2 = dense_[n_ + i];
    const double d3 = dense_[2 * n_ + i];
    std::array<double, 3> z{};
    for (std::size_t k = 0; k < 3; ++k) {
      const double s = kC[k] * ratio;
      z[k] = s * (d1 + (s - (kC2 - 1.0)) * (d2 + (s - (kC1 - 1.0)) * d3));
      z_[k * n_ + i] = z[k];
    }
    for (std::size_t k = 0; k < 3; ++k) {  // W = (T⁻¹ ⊗ I) Z
      w_[k * n_ + i] = kTInverse[k][0] * z[0] + kTInverse[k][1] * z[1] + kTInverse[k][2] * z[2];
    }
  }
}

StepStatus Radau5::EvaluateStages(OdeSystem& system, double t, double h, int* evaluations) {
  for (std::size_t k = 0; k < 3; ++k) {
    const std::span<double> z = Row(z_, k);
    for (std::size_t i = 0; i < n_; ++i) work_[i] = x0_[i] + z[i];  // X_k = x0 + z_k
    const StepStatus status = EvaluateStage(system, t + kC[k] * h, work_, Row(f_, k), evaluations);
    if (status != StepStatus::kAccepted) return status;
  }
  return StepStatus::kAccepted;
}

Radau5::NewtonOutcome Radau5::SolveStages(OdeSystem& system, double t, double h,
                                          bool extrapolate, int* evaluations) {
  NewtonOutcome outcome;
  outcome.step_factor = options_.failure_factor;
  const int limit = options_.newton_max_iterations;
  eta_ = std::pow(std::max(eta_, kEps), 0.8);
  theta_ = options_.jacobian_reuse_theta;  // a one-iteration solve keeps J (radau5.f)
  StartingValues(h, extrapolate);
  double norm_old = 0.0;
  double quotient_old = 0.0;
  const std::span<double> f1 = Row(f_, 0), f2 = Row(f_, 1), f3 = Row(f_, 2);
  const std::span<double> w1 = Row(w_, 0), w2 = Row(w_, 1), w3 = Row(w_, 2);
  for (;;) {
    if (outcome.iterations >= limit) {
      outcome.failure = AttemptFailure::kNewtonTooSlow;
      return outcome;
    }
    const StepStatus status = EvaluateStages(system, t, h, evaluations);
    if (status != StepStatus::kAccepted) {
      outcome.failure = FailureOf(status);
      return outcome;
    }
    for (std::size_t i = 0; i < n_; ++i) {  // f ← (T⁻¹ ⊗ I) F(Z)
      const double a1 = f1[i], a2 = f2[i], a3 = f3[i];
      f1[i] = kTInverse[0][0] * a1 + kTInverse[0][1] * a2 + kTInverse[0][2] * a3;
      f2[i] = kTInverse[1][0] * a1 + kTInverse[1][1] * a2 + kTInverse[1][2] * a3;
      f3[i] = kTInverse[2][0] * a1 + kTInverse[2][1] * a2 + kTInverse[2][2] * a3;
    }
    // Right-hand sides: f1 − γ/h M w1 and (f2 + i f3) − (α + iβ)/h M (w2 + i w3).
    matrices_.MassTimes(w1, work_);
    for (std::size_t i = 0; i < n_; ++i) f1[i] -= kGamma / h * work_[i];
    matrices_.MassTimes(w2, work_);
    matrices_.MassTimes(w3, mass_work_);
    const double alpha = kAlpha / h, beta = kBeta / h;
    for (std::size_t i = 0; i < n_; ++i) {
      f2[i] -= alpha * work_[i] - beta * mass_work_[i];
      f3[i] -= alpha * mass_work_[i] + beta * work_[i];
    }
    matrices_.SolveReal(f1);  // ΔW1
    matrices_.SolveComplex(f2, f3);  // ΔW2 + iΔW3
    ++outcome.iterations;

    const double norm = WeightedRms(f_);
    if (outcome.iterations > 1 && outcome.iterations < limit) {
      const double quotient = norm / norm_old;  // θ_k
      theta_ = outcome.iterations == 2 ? quotient : std::sqrt(quotient * quotient_old);
      quotient_old = quotient;
      if (!(theta_ < kDivergentTheta)) {  // NaN diverges too
        outcome.failure = AttemptFailure::kNewtonDiverged;
        return outcome;
      }
      eta_ = theta_ / (1.0 - theta_);
      // Predicted error after the remaining iterations, relative to the tolerance.
      const int left = limit - 1 - outcome.iterations;
      const double predicted = eta_ * norm * std::pow(theta_, left) / newton_tolerance_;
      if (predicted >= 1.0 && options_.error_control) {  // a fixed step just iterates on
        const double q = std::clamp(predicted, 1e-4, 20.0);
        outcome.failure = AttemptFailure::kNewtonTooSlow;
        outcome.step_factor = 0.8 * std::pow(q, -1.0 / (4.0 + left));
        return outcome;
      }
    }
    norm_old = std::max(norm, kEps);
    for (std::size_t i = 0; i < n_; ++i) {  // W ← W + ΔW;  Z = (T ⊗ I) W
      w1[i] += f1[i];
      w2[i] += f2[i];
      w3[i] += f3[i];
      for (std::size_t k = 0; k < 3; ++k) {
        z_[k * n_ + i] = kT[k][0] * w1[i] + kT[k][1] * w2[i] + kT[k][2] * w3[i];
      }
    }
    // With algebraic equations one iteration never suffices: the error estimate cannot see
    // their Newton error (it lies in M's null space), so the contraction must be measured.
    const bool measured = outcome.iterations > 1 || !matrices_.has_algebraic_rows();
    if (measured && eta_ * norm <= newton_tolerance_) return outcome;
  }
}

double Radau5::ErrorNorm(OdeSystem& system, double t, double h, bool filter_twice,
                         int* evaluations) {
  // work ← M (e1 z1 + e2 z2 + e3 z3)/h;  error ← (γ/h M − J)⁻¹ (F(t0, x0) + work)
  for (std::size_t i = 0; i < n_; ++i) {
    mass_work_[i] = (kE[0] * z_[i] + kE[1] * z_[n_ + i] + kE[2] * z_[2 * n_ + i]) / h;
  }
  matrices_.MassTimes(mass_work_, work_);
  for (std::size_t i = 0; i < n_; ++i) error_[i] = f0_[i] + work_[i];
  matrices_.SolveReal(error_);
  double err = std::max(WeightedRms(error_), kSmallestError);
  if (err < 1.0 || !filter_twice) return err;
  // error ← (γ/h M − J)⁻¹ (F(t0, x0 + error) + work): damps the stiff components an
  // unconverged first step or a rejected one leaves in the estimate (HW II, (8.20)).
  for (std::size_t i = 0; i < n_; ++i) mass_work_[i] = x0_[i] + error_[i];
  const std::span<double> f = Row(f_, 0);
  // A failing evaluation keeps the first estimate, which rejects the attempt anyway.
  if (EvaluateStage(system, t, mass_work_, f, evaluations) != StepStatus::kAccepted) return err;
  for (std::size_t i = 0; i < n_; ++i) error_[i] = f[i] + work_[i];
  matrices_.SolveReal(error_);
  err = std::max(WeightedRms(error_), kSmallestError);
  return std::isfinite(err) ? err : std::numeric_limits<double>::infinity();
}

double Radau5::Quotient(double err, int iterations) const {
  // h_new = h/quot, quot = clamp(err^(1/4)/fac, 1/max_factor, 1/min_factor).
  const int limit = options_.newton_max_iterations;
  const double fac = std::min(options_.safety, options_.safety * (1.0 + 2.0 * limit) /
                                                   (iterations + 2.0 * limit));
  return std::clamp(std::pow(err, 0.25) / fac, 1.0 / options_.max_factor,
                    1.0 / options_.min_factor);
}

double Radau5::NextStep(double h, double err, int iterations, bool rejected_in_step) {
  double quotient = Quotient(err, iterations);
  if (options_.predictive_controller) {
    if (accepted_ >= 1) {  // Gustafsson's predictive controller from the second step on
      const double gustafsson =
          std::clamp(h_acc_ / h * std::pow(err * err / err_acc_, 0.25) / options_.safety,
                     1.0 / options_.max_factor, 1.0 / options_.min_factor);
      quotient = std::max(quotient, gustafsson);
    }
    h_acc_ = h;
    err_acc_ = std::max(kSmallestAcceptedError, err);
  }
  double h_new = h / quotient;
  if (options_.max_step > 0.0) h_new = std::min(h_new, options_.max_step);
  if (rejected_in_step) h_new = std::min(h_new, h);
  jacobian_current_ = theta_ <= options_.jacobian_reuse_theta;
  const double ratio = h_new / h;
  if (jacobian_current_ && ratio >= options_.keep_step_lower &&
      ratio <= options_.keep_step_upper) {
    h_new = h;  // same h, same factors
  }
  proposal_ = h_new;
  return h_new;
}

void Radau5::AcceptStep(double t, double h, std::span<double> x_new) {
  constexpr double kC1m1 = kC1 - 1.0, kC2m1 = kC2 - 1.0, kC1mC2 = kC1 - kC2;
  for (std::size_t i = 0; i < n_; ++i) {
    const double z1 = z_[i], z2 = z_[n_ + i], z3 = z_[2 * n_ + i];
    x_new[i] = x0_[i] + z3;  // stiffly accurate: the last stage is the solution
    const double d1 = (z2 - z3) / kC2m1;
    const double a = (z1 - z2) / kC1mC2;
    const double d2 = (a - d1) / kC1m1;
    dense_[i] = d1;
    dense_[n_ + i] = d2;
    dense_[2 * n_ + i] = d2 - (a - z1 / kC1) / kC2;
  }
  std::copy(x_new.begin(), x_new.end(), x_end_.begin());
  t_start_ = t;
  t_end_ = t + h;
  h_last_ = h;
  has_step_ = true;
  accepted_any_ = true;
  ++accepted_;
}

void Radau5::Interpolate(double t_out, std::span<double> x_out) const {
  if (!has_step_) {
    std::fill(x_out.begin(), x_out.end(), std::numeric_limits<double>::quiet_NaN());
    return;
  }
  if (t_out == t_start_ || t_out == t_end_) {  // the ends exactly, not up to rounding
    const std::vector<double>& end = t_out == t_end_ ? x_end_ : x0_;
    std::copy(end.begin(), end.end(), x_out.begin());
    return;
  }
  // u(s) = x_end + s (d1 + (s − c2 + 1)(d2 + (s − c1 + 1) d3)),  s = (t_out − t_end)/h.
  const double s = (t_out - t_end_) / h_last_;
  for (std::size_t i = 0; i < n_; ++i) {
    const double inner = dense_[n_ + i] + (s - (kC1 - 1.0)) * dense_[2 * n_ + i];
    x_out[i] = x_end_[i] + s * (dense_[i] + (s - (kC2 - 1.0)) * inner);
  }
}

}  // namespace tether::integrate
