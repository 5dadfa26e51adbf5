// Names of the option enums, Options::IsValid, TerminationName, InitializationReport::ToString.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "tether/integrate/stepper.h"

#include "simulate/number_text.h"
#include "simulate/setup_validation.h"
#include "tether/simulate/simulation.h"

namespace tether::simulate {
namespace {

std::string Short(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2g", x);
  return buffer;
}

}  // namespace

std::span<const std::string_view> MethodNames() {
  static const std::vector<std::string_view> names = [] {
    const auto steppers = integrate::StepperNames();
    std::vector<std::string_view> all(steppers.begin(), steppers.end());
    all.push_back(kAutoMethod);
    return all;
  }();
  return names;
}

bool Options::IsValid(std::string* why) const {
  const std::vector<SetupProblem> problems = OptionProblems(*this);
  if (problems.empty()) return true;
  if (why) *why = problems.front().message;
  return false;
}

std::string_view TerminationName(Termination t) {
  switch (t) {
    case Termination::kRunning:
      return "running";
    case Termination::kReachedEnd:
      return "reached_end";
    case Termination::kProjectionFailed:
      return "projection_failed";
    case Termination::kSingularConstraints:
      return "singular_constraints";
    case Termination::kStepSizeUnderflow:
      return "step_size_underflow";
    case Termination::kNonFinite:
      return "non_finite";
    case Termination::kStepLimit:
      return "step_limit";
    case Termination::kCancelled:
      return "cancelled";
    case Termination::kChattering:
      return "chattering";
  }
  return "unknown";
}

std::string InitializationReport::ToString() const {
  std::string text = changes.empty() ? "initial state consistent" : "initial state corrected:";
  for (std::size_t i = 0; i < changes.size(); ++i) {
    text += (i == 0 ? " " : ", ") + changes[i].name + " " + Num(changes[i].given) + " → " +
            Num(changes[i].corrected);
  }
  text += " (‖Φ‖∞ " + Short(residual_position_before) + " → " + Short(residual_position_after) +
          ", ‖h‖∞ " + Short(residual_velocity_before) + " → " + Short(residual_velocity_after) +
          ", " + std::to_string(iterations) + " Newton iterations)";
  return text;
}

}  // namespace tether::simulate
