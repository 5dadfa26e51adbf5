#include "tether/integrate/stepper.h"

#include <cmath>
#include <sstream>

namespace tether::integrate {

double WrmsNorm(std::span<const double> error, std::span<const double> x,
                std::span<const double> y, double rtol, double atol) {
  if (error.empty()) return 0.0;
  double sum = 0.0;
  for (std::size_t i = 0; i < error.size(); ++i) {
    const double scale = atol + rtol * std::max(std::abs(x[i]), std::abs(y[i]));
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
  return true;
}

}  // namespace tether::integrate
