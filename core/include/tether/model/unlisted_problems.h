// How many problems a spec had beyond those listed. ParseModel (and ModelRegistry::Register)
// list at most 100 problems, then one last entry with an empty path, "and N more problems not
// listed"; a caller that summarizes problems itself (the server's bounded errors) counts those
// N instead of repeating the entry.
#pragma once

#include <cstddef>
#include <vector>

#include "tether/model/model.h"

namespace tether::model {

// N of that last entry of `problems`; 0 when every problem is listed.
std::size_t UnlistedProblems(const std::vector<SpecProblem>& problems);

}  // namespace tether::model
