// MakeProjector (the registry of methods) and ProjectorOptions::IsValid.
#include "tether/project/projector.h"

#include <cmath>
#include <cstdio>

#include "tether/expr/number_text.h"
#include "project/baumgarte_projector.h"
#include "project/coupled_projector.h"
#include "project/none_projector.h"
#include "project/sequential_projector.h"

namespace tether::project {

bool ProjectorOptions::IsValid(std::string* why) const {
  if (!(tolerance > 0.0) || !std::isfinite(tolerance)) {
    char buffer[96];
    std::snprintf(buffer, sizeof buffer, "ProjectorOptions::tolerance = %g; must be > 0",
                  tolerance);
    if (why) *why = buffer;
    return false;
  }
  if (max_iterations < 1) {
    if (why) {
      *why = "ProjectorOptions::max_iterations = " + std::to_string(max_iterations) +
             "; must be >= 1";
    }
    return false;
  }
  if (metric == Metric::kWeighted) {
    if (!(weight_rtol >= 0.0) || !std::isfinite(weight_rtol)) {
      if (why) *why = "the weighted metric's rtol is " + expr::ShortestText(weight_rtol) + "; must be >= 0";
      return false;
    }
    if (weight_atol.empty()) {
      if (why) *why = "the weighted metric needs an absolute tolerance";
      return false;
    }
    for (const double atol : weight_atol) {
      if (!(atol > 0.0) || !std::isfinite(atol)) {
        if (why) *why = "the weighted metric's atol is " + expr::ShortestText(atol) + "; must be > 0";
        return false;
      }
    }
  }
  return true;
}

std::unique_ptr<Projector> MakeProjector(Method method, const ProjectorOptions& options) {
  if (!options.IsValid(nullptr)) return nullptr;
  switch (method) {
    case Method::kNone:
      return std::make_unique<NoneProjector>();
    case Method::kBaumgarte:
      return std::make_unique<BaumgarteProjector>();
    case Method::kCoupled:
      return std::make_unique<CoupledProjector>(options);
    case Method::kSequential:
      return std::make_unique<SequentialProjector>(options);
  }
  return nullptr;
}

}  // namespace tether::project
