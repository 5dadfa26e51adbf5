// Checking parameter and state-value overrides against a model without a run, for a caller
// that must refuse a bad change before it reaches a run it may not touch yet (the server
// queues a live change for a streaming session's own worker).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tether/model/model.h"
#include "tether/simulate/simulation.h"

namespace tether::simulate {

// The problems Simulation::Update would report for these overrides, with the same paths and
// messages ("parameters.k", "initial.x": unknown name with a did-you-mean, not finite, or a
// parameter outside the range its spec gives).
// Empty when Update would accept them (consistent initialization may still fail).
std::vector<SetupProblem> OverrideProblems(const model::Model& model,
                                           const std::map<std::string, double>& parameters,
                                           const std::map<std::string, double>& values);

}  // namespace tether::simulate
