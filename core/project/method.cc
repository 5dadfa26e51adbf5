#include "tether/project/method.h"

#include <array>

namespace tether::project {
namespace {

constexpr auto kMethods = std::to_array<Method>(
    {Method::kNone, Method::kBaumgarte, Method::kCoupled, Method::kSequential});
constexpr auto kMetrics = std::to_array<Metric>({Metric::kEuclidean, Metric::kMass, Metric::kWeighted});

}  // namespace

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

bool ParseProjection(std::string_view name, Method* out) {
  for (Method method : kMethods) {
    if (ProjectionName(method) == name) {
      *out = method;
      return true;
    }
  }
  return false;
}

bool ParseMetric(std::string_view name, Metric* out) {
  for (Metric metric : kMetrics) {
    if (MetricName(metric) == name) {
      *out = metric;
      return true;
    }
  }
  return false;
}

}  // namespace tether::project
