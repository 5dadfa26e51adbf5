#include "tether/integrate/stepper.h"

#include <cmath>
#include <sstream>
#include <string>

namespace tether::integrate {

double WrmsNorm(std::span<const double> error, std::span<const double> x,
                std::span<const double> y, const StepperOptions& options) {
  if (error.empty()) return 0.0;
  double sum = 0.0;
  for (std::size_t i = 0; i < error.size(); ++i) {
    const double scale =
        options.AbsoluteTolerance(i) + options.rtol * std::max(std::abs(x[i]), std::abs(y[i]));
    const double ratio = error[i] / scale;
    sum += ratio * ratio;
  }
  return std::sqrt(sum / static_cast<double>(error.size()));
}

namespace {

// Writes "StepperOptions::<field> = <value>; must be <condition>" to `why` and returns false.
template <typename T>
bool Reject(std::string* why, const char* field, T value, const char* condition) {
  if (why != nullptr) {
    std::ostringstream out;
    out << "StepperOptions::" << field << " = " << value << "; must be " << condition;
    *why = out.str();
  }
  return false;
}

// The options only implicit methods read.
bool ImplicitOptionsAreValid(const StepperOptions& o, std::string* why) {
  if (o.newton_max_iterations < 1) {
    return Reject(why, "newton_max_iterations", o.newton_max_iterations, ">= 1");
  }
  if (!(std::isfinite(o.newton_tolerance) && o.newton_tolerance >= 0.0)) {
    return Reject(why, "newton_tolerance", o.newton_tolerance, ">= 0 (0 = automatic) and finite");
  }
  if (!(o.jacobian_reuse_theta >= 0.0 && o.jacobian_reuse_theta < 1.0)) {
    return Reject(why, "jacobian_reuse_theta", o.jacobian_reuse_theta, "in [0, 1)");
  }
  if (!(o.keep_step_lower > 0.0 && o.keep_step_lower <= 1.0)) {
    return Reject(why, "keep_step_lower", o.keep_step_lower, "in (0, 1]");
  }
  if (!(std::isfinite(o.keep_step_upper) && o.keep_step_upper >= 1.0)) {
    return Reject(why, "keep_step_upper", o.keep_step_upper, ">= 1 and finite");
  }
  if (o.sparse_min_size < 1) return Reject(why, "sparse_min_size", o.sparse_min_size, ">= 1");
  if (!(o.sparse_max_density > 0.0 && o.sparse_max_density <= 1.0)) {
    return Reject(why, "sparse_max_density", o.sparse_max_density, "in (0, 1]");
  }
  return true;
}

}  // namespace

bool StepperOptions::IsValid(std::string* why) const {
  // Every comparison is written so that NaN fails it.
  if (!(std::isfinite(step) && step >= 0.0)) return Reject(why, "step", step, ">= 0 and finite");
  if (!(std::isfinite(rtol) && rtol >= 1e-15)) return Reject(why, "rtol", rtol, ">= 1e-15");
  if (!(std::isfinite(atol) && atol > 0.0)) return Reject(why, "atol", atol, "> 0");
  if (!(safety > 0.0 && safety < 1.0)) return Reject(why, "safety", safety, "in (0, 1)");
  if (!(min_factor > 0.0 && min_factor < 1.0)) {
    return Reject(why, "min_factor", min_factor, "in (0, 1)");
  }
  if (!(std::isfinite(max_factor) && max_factor > 1.0)) {
    return Reject(why, "max_factor", max_factor, "> 1 and finite");
  }
  if (!(std::isfinite(max_step) && max_step >= 0.0)) {
    return Reject(why, "max_step", max_step, ">= 0 (0 = unbounded) and finite");
  }
  if (!(min_step_relative > 0.0 && min_step_relative < 1.0)) {
    return Reject(why, "min_step_relative", min_step_relative, "in (0, 1)");
  }
  if (max_rejections < 1) return Reject(why, "max_rejections", max_rejections, ">= 1");
  for (std::size_t i = 0; i < atol_per_component.size(); ++i) {
    const double a = atol_per_component[i];
    if (!(std::isfinite(a) && a > 0.0)) {
      const std::string field = "atol_per_component[" + std::to_string(i) + "]";
      return Reject(why, field.c_str(), a, "> 0 and finite");
    }
  }
  if (!(failure_factor > 0.0 && failure_factor < 1.0)) {
    return Reject(why, "failure_factor", failure_factor, "in (0, 1)");
  }
  return ImplicitOptionsAreValid(*this, why);
}

std::string_view Describe(AttemptFailure failure) {
  switch (failure) {
    case AttemptFailure::kNone:
      return "no attempt failed";
    case AttemptFailure::kErrorTooLarge:
      return "the local error estimate exceeded the tolerances";
    case AttemptFailure::kRhsFailed:
      return "the right-hand side could not be evaluated";
    case AttemptFailure::kNonFinite:
      return "the right-hand side or the state was not finite";
    case AttemptFailure::kNewtonDiverged:
      return "the stage Newton iteration diverged";
    case AttemptFailure::kNewtonTooSlow:
      return "the stage Newton iteration did not converge within newton_max_iterations";
    case AttemptFailure::kSingularMatrix:
      return "the Newton matrix was singular";
  }
  return "unknown failure";
}

}  // namespace tether::integrate
