// Stream admission takes its place under the limit's lock: streams admitted at the same time
// cannot all take the last place (max_streams), and a place that was never used (the call
// failed between admission and start) is given back.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "session_service.h"

namespace tether::server {
namespace {

class StreamSlotTest : public ::testing::Test {
 protected:
  StreamSlotTest() : state_(Config()), service_(&state_) {}

  static ServerConfig Config() {
    ServerConfig config;
    config.max_streams = 2;
    config.worker_threads = 1;
    return config;
  }

  grpc::Status Admit(StreamStart* start) {
    v1::SimulateRequest request;
    request.set_model("models/pendulum");
    return service_.OpenSimulate("", request, start);
  }

  ServiceState state_;
  SessionService service_;
};

TEST_F(StreamSlotTest, AdmittedStreamsHoldTheirPlaceBeforeTheyStart) {
  StreamStart first, second, third;
  ASSERT_TRUE(Admit(&first).ok());
  ASSERT_TRUE(Admit(&second).ok());
  // Neither has a driver yet; without the reservation both checks would have seen 0 open.
  const grpc::Status refused = Admit(&third);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(refused.error_message(), "max_streams = 2 concurrent streams reached; retry later");
}

TEST_F(StreamSlotTest, APlaceNeverUsedIsGivenBack) {
  {
    StreamStart abandoned, kept;
    ASSERT_TRUE(Admit(&abandoned).ok());
    ASSERT_TRUE(Admit(&kept).ok());
    StreamStart moved = std::move(kept);  // the place moves with the slot, once
    StreamStart refused;
    EXPECT_FALSE(Admit(&refused).ok());
  }
  std::vector<StreamStart> again(2);
  EXPECT_TRUE(Admit(&again[0]).ok());
  EXPECT_TRUE(Admit(&again[1]).ok());
  {
    std::lock_guard lock(state_.streams_mutex);
    EXPECT_EQ(state_.admitted_streams, 2u);
    EXPECT_EQ(state_.tenant_streams.at(""), 2u);
  }
  again.clear();
  std::lock_guard lock(state_.streams_mutex);
  EXPECT_EQ(state_.admitted_streams, 0u);
  EXPECT_TRUE(state_.tenant_streams.empty());
}

}  // namespace
}  // namespace tether::server
