// The core's words for the projection options are the wire's value names: the server maps one
// to the other by hand (server/convert.cc), and the CLI derives its words from the proto.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <string>

#include "convert.h"
#include "tether/simulate/simulation.h"
#include "tether/v1/simulation_service.pb.h"

namespace tether::server {
namespace {

std::string Upper(std::string_view word) {
  std::string text(word);
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return text;
}

TEST(Convert, ProjectionWordsAreTheWiresValueNames) {
  for (const simulate::Projection projection :
       {simulate::Projection::kNone, simulate::Projection::kBaumgarte,
        simulate::Projection::kCoupled, simulate::Projection::kSequential}) {
    simulate::Options options;
    options.projection = projection;
    v1::SimulationOptions proto;
    OptionsToProto(options, &proto);
    EXPECT_EQ(v1::ProjectionMethod_Name(proto.projection()),
              "PROJECTION_METHOD_" + Upper(simulate::ProjectionName(projection)));
  }
}

TEST(Convert, MetricWordsAreTheWiresValueNames) {
  for (const simulate::Metric metric :
       {simulate::Metric::kEuclidean, simulate::Metric::kMass, simulate::Metric::kWeighted}) {
    simulate::Options options;
    options.metric = metric;
    v1::SimulationOptions proto;
    OptionsToProto(options, &proto);
    EXPECT_EQ(v1::ProjectionMetric_Name(proto.metric()),
              "PROJECTION_METRIC_" + Upper(simulate::MetricName(metric)));
  }
}

}  // namespace
}  // namespace tether::server
