// Validation of a Setup before anything is computed: every problem is collected with its path
// ("options.rtol", "parameters.mass", "initial.x", "fixed.y") and a message that names the
// value and the violated condition, with a did-you-mean for misspelled names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tether/simulate/simulation.h"

namespace tether::simulate {

// Problems of the options alone ("Options::rtol = -1; must be in [1e-15, 1)").
std::vector<SetupProblem> OptionProblems(const Options& options);

// Problems of the whole setup: the options, and the names and values against the model.
std::vector<SetupProblem> SetupProblems(const Setup& setup);

// Problems of a parameter / state-value override map against the model (Update).
void CheckOverrides(const model::Model& model, const std::map<std::string, double>& parameters,
                    const std::map<std::string, double>& values,
                    std::vector<SetupProblem>* problems);

// " (did you mean 'mass'?)" for the closest candidate within edit distance max(2, |name|/3),
// or "".
std::string DidYouMean(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace tether::simulate
