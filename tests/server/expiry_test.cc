// Idle sessions expire after ServerConfig::session_ttl (swept every ttl / 4 when the TTL is
// short); a session that streams or is used again within the TTL does not.
#include <gtest/gtest.h>

#include <optional>
#include <thread>

#include <google/protobuf/util/time_util.h>

#include "test_support.h"

namespace tether::server::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::system_clock;

// Short enough for a quick test, long enough that a session is streaming before it could
// expire (a sanitizer build takes longer from CreateSession to the stream's start).
constexpr milliseconds kTtl{200 * kSlowdown};
// Expiry comes within ttl + sweep (ttl / 4) of the last use; the generous bound allows for a
// loaded 2-core machine, and bounds every poll so that a session that never expires fails.
constexpr milliseconds kExpiryBound{5000 * kSlowdown};

system_clock::time_point ToTimePoint(const google::protobuf::Timestamp& ts) {
  return system_clock::time_point(std::chrono::duration_cast<system_clock::duration>(
      std::chrono::nanoseconds(google::protobuf::util::TimeUtil::TimestampToNanoseconds(ts))));
}

class ExpiryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ServerConfig config = TestConfig();
    config.session_ttl = kTtl;
    std::string error;
    server_ = Server::Start(config, &error);
    ASSERT_NE(server_, nullptr) << error;
    stub_ = v1::SimulationService::NewStub(server_->InProcessChannel());
  }

  v1::Session Create(const std::string& id, double t_end) {
    grpc::ClientContext context;
    SetDeadline(&context);
    v1::CreateSessionRequest request;
    request.set_model("models/pendulum");
    request.set_session_id(id);
    request.mutable_options()->set_t_end(t_end);
    request.mutable_options()->set_output_interval(0.01);
    v1::Session session;
    const grpc::Status status = stub_->CreateSession(&context, request, &session);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return session;
  }

  grpc::Status Get(const std::string& name) {
    grpc::ClientContext context;
    SetDeadline(&context);
    v1::GetSessionRequest request;
    request.set_name(name);
    v1::Session ignored;
    return stub_->GetSession(&context, request, &ignored);
  }

  // Through ListSessions, which (unlike GetSession) does not renew a session.
  bool Listed(const std::string& name) {
    grpc::ClientContext context;
    SetDeadline(&context);
    v1::ListSessionsResponse response;
    EXPECT_TRUE(stub_->ListSessions(&context, v1::ListSessionsRequest(), &response).ok());
    for (const v1::Session& s : response.sessions()) {
      if (s.name() == name) return true;
    }
    return false;
  }

  // Polls until `name` is no longer listed or `bound` passed; the time it was seen gone.
  std::optional<system_clock::time_point> WaitUntilGone(const std::string& name,
                                                         milliseconds bound) {
    const auto deadline = std::chrono::steady_clock::now() + bound;
    while (std::chrono::steady_clock::now() < deadline) {
      if (!Listed(name)) return system_clock::now();
      std::this_thread::sleep_for(milliseconds(10));
    }
    return std::nullopt;
  }

  std::unique_ptr<Server> server_;
  std::unique_ptr<v1::SimulationService::Stub> stub_;
};

TEST_F(ExpiryTest, IdleSessionIsDeletedAfterItsExpireTime) {
  const v1::Session created = Create("idle", 1.0);
  const system_clock::time_point update = ToTimePoint(created.update_time());
  const system_clock::time_point expire = ToTimePoint(created.expire_time());
  // Timestamps may be rounded to a microsecond each: a millisecond covers both roundings.
  const auto ttl_seen = std::chrono::duration_cast<std::chrono::microseconds>(expire - update);
  EXPECT_NEAR(static_cast<double>(ttl_seen.count()), 1e3 * static_cast<double>(kTtl.count()), 1e3);

  const std::optional<system_clock::time_point> gone = WaitUntilGone(created.name(), kExpiryBound);
  ASSERT_TRUE(gone.has_value()) << "idle session still listed after " << kExpiryBound.count()
                                << " ms with a TTL of " << kTtl.count() << " ms";
  EXPECT_GE(*gone, expire) << "deleted before its expire_time";
  EXPECT_EQ(server_->metrics().sessions, 0U);
  const grpc::Status status = Get(created.name());
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(status.error_message(), "session 'sessions/idle' not found");
}

TEST_F(ExpiryTest, SessionUsedWithinItsTtlLivesOn) {
  const v1::Session created = Create("used", 1.0);
  // GetSession every ttl / 4 over 4 TTLs: each read renews, so the session must survive.
  const auto until = std::chrono::steady_clock::now() + 4 * kTtl;
  while (std::chrono::steady_clock::now() < until) {
    ASSERT_TRUE(Get(created.name()).ok()) << "a session read every ttl / 4 expired";
    std::this_thread::sleep_for(kTtl / 4);
  }
  // Left alone, it then expires like any other.
  EXPECT_TRUE(WaitUntilGone(created.name(), kExpiryBound).has_value());
}

TEST_F(ExpiryTest, StreamingSessionDoesNotExpire) {
  // t_end far beyond what streams in the test: the run stays open until cancelled.
  const v1::Session created = Create("streaming", 1e6);
  grpc::ClientContext context;
  SetDeadline(&context);
  v1::StreamStatesRequest request;
  request.set_name(created.name());
  auto reader = stub_->StreamStates(&context, request);
  v1::StateChunk chunk;
  // The stream is open: the session is streaming.
  ASSERT_TRUE(reader->Read(&chunk)) << reader->Finish().error_message();

  // The reader reads nothing more for 4 TTLs; the session is streaming all along.
  const auto until = std::chrono::steady_clock::now() + 4 * kTtl;
  while (std::chrono::steady_clock::now() < until) {
    if (!Listed(created.name())) {
      // How the stream ended, if it did: what let the session go idle.
      context.TryCancel();
      while (reader->Read(&chunk)) {
      }
      const grpc::Status ended = reader->Finish();
      FAIL() << "a streaming session expired; its stream ended with "
             << ended.error_code() << " " << ended.error_message();
    }
    std::this_thread::sleep_for(kTtl / 4);
  }
  context.TryCancel();
  while (reader->Read(&chunk)) {
  }
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::CANCELLED);
  // Once the stream ended, the idle session expires.
  EXPECT_TRUE(WaitUntilGone(created.name(), kExpiryBound).has_value());
}

// A viewer does not keep its session alive; when the session expires the viewer ends as for a
// delete (status OK, TERMINATION_SESSION_DELETED), told that the TTL ran out: nobody deleted
// it, and a client that reads "deleted" would look for someone who did.
TEST_F(ExpiryTest, AViewerOfAnExpiredSessionIsToldItExpired) {
  const v1::Session created = Create("watched", 1.0);
  v1::StreamStatesRequest request;
  request.set_name(created.name());
  request.set_view_only(true);
  const Collected viewed = Stream(stub_.get(), request);
  ASSERT_TRUE(viewed.status.ok()) << viewed.status.error_message();
  ASSERT_TRUE(viewed.has_summary);
  EXPECT_EQ(viewed.summary.termination(), v1::TERMINATION_SESSION_DELETED);
  EXPECT_EQ(viewed.summary.message(),
            "session 'sessions/watched' expired: no call used it for longer than the server's "
            "session_ttl, so it was removed");
  EXPECT_FALSE(Listed(created.name()));
}

TEST(ExpiryConfigTest, TtlBelowOneMillisecondIsRefused) {
  ServerConfig config = TestConfig();
  config.session_ttl = milliseconds(0);
  std::string why;
  EXPECT_FALSE(config.IsValid(&why));
  EXPECT_EQ(why, "ServerConfig::session_ttl = 0 ms; must be >= 1 ms");
}

}  // namespace
}  // namespace tether::server::testing
