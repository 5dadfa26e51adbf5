// Validation of a Setup before anything is computed: every problem is collected with its path
// ("options.rtol", "parameters.mass", "initial.x", "fixed.y") and a message that names the
// value and the violated condition, with a did-you-mean for misspelled names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tether/simulate/simulation.h"

namespace tether::simulate {

// The steppers' floor for a run of these options, relative to max(1, |t|)
// (integrate::StepperOptions::min_step_relative): the default 1e-14, scaled down by the
// horizon t_end − t0 when that is shorter than 1 s, so that a run of a tiny but representable
// horizon (1e-300) can take the one step that reaches it instead of ending in step-size
// underflow. A step below min_step_relative · max(1, |t|) ends a run with kStepSizeUnderflow.
double MinStepRelative(const Options& options);

// Problems of the options alone ("Options::rtol = -1; must be in [1e-15, 1)"), for a run
// that is at time `t_from` (0 when it starts) and goes on to options.t_end. Times and grids are
// checked against what floating point can represent on [t_from, t_end] (T = the largest |t|
// there; T = |t_from| for an infinite t_end, which is checked at the start only):
//   - output_interval > 0 must be ≥ 4 ulp(T): below it t + output_interval rounds to t (a
//     grid point never advances), and the 4 covers the rounding of t0 + k·output_interval;
//   - a fixed step (euler, rk4, error_control = false), and max_step > 0, must be ≥ the
//     steppers' floor MinStepRelative(options) · max(1, T).
std::vector<SetupProblem> OptionProblems(const Options& options, double t_from = 0.0);

// Problems of the whole setup: the options, and the names and values against the model.
std::vector<SetupProblem> SetupProblems(const Setup& setup);

// Problems of a parameter / state-value override map against the model: unknown names, values
// that are not finite, parameters outside their range (model::Parameter::InRange). The one
// check of overrides, shared by Create (SetupProblems), Update and OverrideProblems.
void CheckOverrides(const model::Model& model, const std::map<std::string, double>& parameters,
                    const std::map<std::string, double>& values,
                    std::vector<SetupProblem>* problems);

// " (did you mean 'mass'?)" for the closest candidate within edit distance max(2, |name|/3),
// or "".
std::string DidYouMean(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace tether::simulate
