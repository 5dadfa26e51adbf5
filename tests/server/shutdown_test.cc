// SIGTERM to a real tether-server process with open streams: health turns NOT_SERVING during
// the drain, the streams end, and the process exits 0.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <signal.h>

#include <thread>

#include "test_support.h"

namespace tether::server::testing {
namespace {

TEST(ShutdownTest, SigtermDrainsOpenStreamsAndExitsZero) {
  ServerProcess process(TETHER_SERVER_BINARY, {"--drain-grace", "800"});
  const int port = process.WaitForPort();
  ASSERT_GT(port, 0) << process.Log();
  auto channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(port),
                                     grpc::InsecureChannelCredentials());
  auto stub = v1::SimulationService::NewStub(channel);
  EXPECT_EQ(HealthStatus(channel), 1);
  EXPECT_EQ(HealthStatus(channel, "tether.v1.SimulationService"), 1);

  constexpr int kStreams = 3;
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  std::vector<std::unique_ptr<grpc::ClientReader<v1::StateChunk>>> readers;
  for (int i = 0; i < kStreams; ++i) {
    grpc::ClientContext create_context;
    SetDeadline(&create_context);
    v1::CreateSessionRequest create;
    create.set_model("pendulum");
    v1::Session session;
    ASSERT_TRUE(stub->CreateSession(&create_context, create, &session).ok());
    v1::StreamStatesRequest request;
    request.set_name(session.name());
    request.set_indefinite(true);
    request.set_realtime_factor(1.0);  // runs for ever in wall-clock time
    request.set_frame_samples(5);
    contexts.push_back(std::make_unique<grpc::ClientContext>());
    SetDeadline(contexts.back().get());
    readers.push_back(stub->StreamStates(contexts.back().get(), request));
    v1::StateChunk chunk;
    ASSERT_TRUE(readers.back()->Read(&chunk));
  }
  std::vector<grpc::Status> statuses(kStreams);
  std::vector<std::thread> drains;
  for (int i = 0; i < kStreams; ++i) {
    drains.emplace_back([&, i] {
      v1::StateChunk chunk;
      while (readers[static_cast<std::size_t>(i)]->Read(&chunk)) {
      }
      statuses[static_cast<std::size_t>(i)] = readers[static_cast<std::size_t>(i)]->Finish();
    });
  }

  process.Signal(SIGTERM);
  // Within the 800 ms grace the server still answers, NOT_SERVING.
  int health = 1;
  for (int i = 0; i < 50 && health == 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    health = HealthStatus(channel);
  }
  EXPECT_EQ(health, 2);
  EXPECT_EQ(HealthStatus(channel, "tether.v1.SimulationService"), 2);

  for (std::thread& t : drains) t.join();
  for (const grpc::Status& status : statuses) {
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE) << status.error_message();
  }
  EXPECT_EQ(process.WaitForExit(std::chrono::seconds(10)), 0) << process.Log();
  EXPECT_THAT(process.Log(), ::testing::HasSubstr("\"event\":\"draining\""));
  EXPECT_THAT(process.Log(), ::testing::HasSubstr("\"method\":\"tether.v1.SimulationService/StreamStates\""));
}

TEST(ShutdownTest, SigintWithoutStreamsExitsZeroAtOnce) {
  // A grace far longer than any wait below: exiting within the wait shows the drain did not
  // sit out its grace, without a tight wall-clock bound that a loaded machine could break.
  constexpr auto kGrace = std::chrono::milliseconds(120000);
  constexpr auto kWait = std::chrono::seconds(30);
  ServerProcess process(TETHER_SERVER_BINARY,
                        {"--drain-grace", std::to_string(kGrace.count())});
  ASSERT_GT(process.WaitForPort(), 0) << process.Log();
  process.Signal(SIGINT);
  EXPECT_EQ(process.WaitForExit(kWait), 0) << process.Log();
}

}  // namespace
}  // namespace tether::server::testing
