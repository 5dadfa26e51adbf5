#include "tether/project/method.h"

namespace tether::project {

std::string_view ProjectionName(Method method) {
  switch (method) {
    case Method::kNone:
      return "none";
    case Method::kBaumgarte:
      return "baumgarte";
    case Method::kCoupled:
      return "coupled";
    case Method::kSequential:
      return "sequential";
  }
  return "unknown";
}

std::string_view MetricName(Metric metric) {
  switch (metric) {
    case Metric::kEuclidean:
      return "euclidean";
    case Metric::kMass:
      return "mass";
    case Metric::kWeighted:
      return "weighted";
  }
  return "unknown";
}

}  // namespace tether::project
