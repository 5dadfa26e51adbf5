// The server-wide replay budget (ServerConfig::replay_total_bytes): with a budget of a few
// sessions' histories, streaming more sessions trims the least recently used ones, the total
// held stays within the budget, the newest session stays resumable, and a resume from a trimmed
// index is refused naming the limit. The default budget changes nothing for a few sessions.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "test_support.h"

namespace tether::server::testing {
namespace {

using ::testing::HasSubstr;

// Every session below runs the same pendulum with the same grid and frames, so each holds the
// same history: 51 samples (t in [0, 0.5] every 0.01) in frames of 5, i.e. 11 blocks.
constexpr double kTEnd = 0.5;
constexpr std::size_t kFrameSamples = 5;

class ReplayBudgetTest : public ServerFixture {
 protected:
  void MustCreate(const std::string& id) {
    v1::SimulationOptions options;
    options.set_t_end(kTEnd);
    options.set_output_interval(0.01);
    MustCreateSession("pendulum", id, options);
  }

  // Streams the session from `start` (or its default start) to its end.
  Collected StreamFrom(const std::string& id, std::optional<std::uint64_t> start = std::nullopt) {
    v1::StreamStatesRequest request;
    request.set_name("sessions/" + id);
    request.set_frame_samples(kFrameSamples);
    if (start) request.set_start_sample_index(*start);
    Collected run = Stream(stub_.get(), request);
    WaitNotRunning("sessions/" + id);
    return run;
  }

  // Creates and fully streams (every frame delivered) session `id`; the samples it sent.
  std::size_t CreateAndRun(const std::string& id) {
    MustCreate(id);
    const Collected run = StreamFrom(id);
    EXPECT_TRUE(run.status.ok()) << id << ": " << run.status.error_message();
    return run.t.size();
  }

  std::size_t Held() { return server_->metrics().replay_bytes_held; }

  // One session's history in bytes, measured on this (default, non-binding budget) server.
  std::size_t OneHistoryBytes() {
    const std::size_t before = Held();
    EXPECT_EQ(CreateAndRun("probe"), 51u);
    return Held() - before;
  }

  // A deleted session's history goes when its last holder lets go; a finished stream's reactor
  // may do that just after the client saw the stream end. Polls (bounded) for `bytes`.
  std::size_t WaitHeld(std::size_t bytes) {
    for (int i = 0; i < 500 && Held() != bytes; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return Held();
  }
};

TEST_F(ReplayBudgetTest, DefaultBudgetKeepsEveryHistory) {
  EXPECT_EQ(TestConfig().replay_total_bytes, std::size_t{256} << 20);
  const std::size_t one = OneHistoryBytes();
  ASSERT_GT(one, 0u);
  for (const char* id : {"a", "b", "c"}) ASSERT_EQ(CreateAndRun(id), 51u) << id;
  EXPECT_EQ(Held(), 4 * one);
  const Collected again = StreamFrom("a", 0);
  ASSERT_TRUE(again.status.ok()) << again.status.error_message();
  ASSERT_FALSE(again.index.empty());
  EXPECT_EQ(again.index.front(), 0u);
  EXPECT_EQ(again.t.size(), 51u);

  // Deleting a session gives its bytes back.
  grpc::ClientContext context;
  SetDeadline(&context);
  v1::DeleteSessionRequest remove;
  remove.set_name("sessions/a");
  google::protobuf::Empty empty;
  ASSERT_TRUE(stub_->DeleteSession(&context, remove, &empty).ok());
  EXPECT_EQ(WaitHeld(3 * one), 3 * one);
}

TEST_F(ReplayBudgetTest, TinyBudgetTrimsTheLeastRecentlyUsedSessions) {
  const std::size_t one = OneHistoryBytes();
  ASSERT_GT(one, 0u);
  // Two and a half histories (a few KiB): the third session trims half of the first, the
  // fourth the rest of it and half of the second; the two newest are not touched.
  ServerConfig config = TestConfig();
  config.replay_total_bytes = 2 * one + one / 2;
  RecordProperty("one_history_bytes", std::to_string(one));
  RecordProperty("replay_total_bytes", std::to_string(config.replay_total_bytes));
  Restart(config);
  for (const char* id : {"s0", "s1", "s2", "s3"}) {
    ASSERT_EQ(CreateAndRun(id), 51u) << id;
    EXPECT_LE(Held(), config.replay_total_bytes) << "after " << id;
  }
  // Trimming stops as soon as the total is within the budget, one block at a time: no more
  // than one block (a fifth of a history is an upper bound: 5 of 51 samples) below it.
  EXPECT_GT(Held(), config.replay_total_bytes - one / 5);

  const Collected last = StreamFrom("s3", 50);
  ASSERT_TRUE(last.status.ok()) << last.status.error_message();
  ASSERT_EQ(last.index.size(), 1u);
  EXPECT_EQ(last.index.front(), 50u);
  const Collected whole = StreamFrom("s3", 0);
  ASSERT_TRUE(whole.status.ok()) << whole.status.error_message();
  EXPECT_EQ(whole.t.size(), 51u);

  const Collected trimmed = StreamFrom("s0", 0);
  EXPECT_EQ(trimmed.status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(trimmed.status.error_message(),
              HasSubstr("start_sample_index = 0 is outside the replayable range"));
  EXPECT_THAT(trimmed.status.error_message(),
              HasSubstr("trimmed by the server-wide limit replay_total_bytes = " +
                        std::to_string(config.replay_total_bytes)));
  EXPECT_LE(Held(), config.replay_total_bytes);
}

TEST(ReplayBudgetConfigTest, ZeroBudgetIsRefusedNamingTheField) {
  ServerConfig config = TestConfig();
  config.replay_total_bytes = 0;
  std::string why;
  EXPECT_FALSE(config.IsValid(&why));
  EXPECT_EQ(why, "ServerConfig::replay_total_bytes = 0; must be >= 1");
}

}  // namespace
}  // namespace tether::server::testing
