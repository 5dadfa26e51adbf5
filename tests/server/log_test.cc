// The log of a real tether-server process: startup and shutdown lines with the version and the
// configuration, one JSON line per RPC with level, peer, model, samples and termination, a W3C
// traceparent logged and echoed in the error's google.rpc.RequestInfo, and --log-level.
#include <csignal>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_support.h"

namespace tether::server::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// W3C trace-context's own example (www.w3.org/TR/trace-context, §3.2.2.5).
constexpr const char* kTraceId = "4bf92f3577b34da6a3ce929d0e0e4736";
constexpr const char* kSpanId = "00f067aa0ba902b7";
const std::string kTraceparent = std::string("00-") + kTraceId + "-" + kSpanId + "-01";

std::vector<nlohmann::json> Lines(const std::string& log) {
  std::vector<nlohmann::json> lines;
  std::istringstream in(log);
  for (std::string text; std::getline(in, text);) {
    const nlohmann::json line = nlohmann::json::parse(text, nullptr, false);
    EXPECT_FALSE(line.is_discarded()) << "not JSON: " << text;
    if (!line.is_discarded()) lines.push_back(line);
  }
  return lines;
}

// The first line whose `key` is `value`; null if none.
nlohmann::json Find(const std::vector<nlohmann::json>& lines, const std::string& key,
                    const std::string& value) {
  for (const auto& line : lines) {
    if (line.value(key, "") == value) return line;
  }
  return nullptr;
}

google::rpc::RequestInfo RequestInfoOf(const grpc::Status& status) {
  return DetailOf<google::rpc::RequestInfo>(status);
}

struct CallsMade {
  std::size_t samples = 0;  // what the client received from the Simulate call
  grpc::Status not_found;   // GetSession of an unknown session, with kTraceparent
  grpc::Status untraced;    // the same with a malformed traceparent
};

CallsMade Calls(int port) {
  auto stub = v1::SimulationService::NewStub(grpc::CreateChannel(
      "127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
  CallsMade run;
  v1::SimulateRequest simulate;
  simulate.set_model("pendulum");
  simulate.mutable_options()->set_t_end(1.0);
  simulate.mutable_options()->set_output_interval(0.01);
  const Collected collected = RunSimulate(stub.get(), simulate);
  EXPECT_TRUE(collected.status.ok()) << collected.status.error_message();
  run.samples = collected.t.size();
  v1::GetSessionRequest get;
  get.set_name("sessions/nowhere");
  v1::Session session;
  {
    grpc::ClientContext context;
    SetDeadline(&context);
    context.AddMetadata("traceparent", kTraceparent);
    run.not_found = stub->GetSession(&context, get, &session);
  }
  {
    grpc::ClientContext context;
    SetDeadline(&context);
    context.AddMetadata("traceparent", "00-" + std::string(32, '0') + "-" + kSpanId + "-01");
    run.untraced = stub->GetSession(&context, get, &session);
  }
  return run;
}

TEST(LogTest, LinesCarryLevelPeerModelSamplesTerminationAndTrace) {
  ServerProcess server(TETHER_SERVER_BINARY, {});
  const int port = server.WaitForPort();
  ASSERT_GT(port, 0) << server.Log();
  const CallsMade run = Calls(port);
  ASSERT_GT(run.samples, 1U);
  EXPECT_EQ(run.not_found.error_code(), grpc::StatusCode::NOT_FOUND);
  const google::rpc::RequestInfo echoed = RequestInfoOf(run.not_found);
  EXPECT_EQ(echoed.request_id(), kTraceId);
  EXPECT_EQ(echoed.serving_data(), std::string("span_id=") + kSpanId);
  // An all-zero trace id is invalid (the specification's rule): nothing is echoed.
  EXPECT_EQ(run.untraced.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(RequestInfoOf(run.untraced).request_id(), "");
  server.Signal(SIGTERM);
  ASSERT_EQ(server.WaitForExit(std::chrono::seconds(20)), 0);

  const std::vector<nlohmann::json> lines = Lines(server.Log());
  const nlohmann::json serving = Find(lines, "event", "serving");
  ASSERT_FALSE(serving.is_null()) << server.Log();
  EXPECT_FALSE(serving.value("version", "").empty());
  EXPECT_EQ(serving["config"].value("max_sessions", 0), 1000);
  EXPECT_EQ(serving["config"].value("log_level", ""), "info");
  EXPECT_EQ(serving.value("authentication", ""), "none");
  const nlohmann::json stopped = Find(lines, "event", "stopped");
  ASSERT_FALSE(stopped.is_null()) << server.Log();
  EXPECT_EQ(stopped.value("version", ""), serving.value("version", ""));

  const nlohmann::json simulate = Find(lines, "method", "tether.v1.SimulationService/Simulate");
  ASSERT_FALSE(simulate.is_null()) << server.Log();
  EXPECT_EQ(simulate.value("level", ""), "info");
  EXPECT_EQ(simulate.value("code", ""), "OK");
  EXPECT_EQ(simulate.value("model", ""), "pendulum");
  EXPECT_THAT(simulate.value("peer", ""), StartsWith("ipv4:127.0.0.1:"));
  // The line counts what the client received: every frame's write completed before OK.
  EXPECT_EQ(simulate.value("samples", std::size_t{0}), run.samples);
  EXPECT_EQ(simulate.value("termination", ""), "TERMINATION_REACHED_END");
  EXPECT_FALSE(simulate.contains("trace_id"));

  const nlohmann::json traced = Find(lines, "trace_id", kTraceId);
  ASSERT_FALSE(traced.is_null()) << server.Log();
  EXPECT_EQ(traced.value("span_id", ""), kSpanId);
  EXPECT_EQ(traced.value("level", ""), "warn");
  EXPECT_EQ(traced.value("code", ""), "NOT_FOUND");
  EXPECT_EQ(traced.value("session", ""), "sessions/nowhere");
}

TEST(LogTest, LogLevelWarnKeepsOnlyRefusedAndFailedCalls) {
  ServerProcess server(TETHER_SERVER_BINARY, {"--log-level", "warn"});
  const int port = server.WaitForPort();
  ASSERT_GT(port, 0) << server.Log();
  Calls(port);
  server.Signal(SIGTERM);
  ASSERT_EQ(server.WaitForExit(std::chrono::seconds(20)), 0);
  const std::vector<nlohmann::json> lines = Lines(server.Log());
  EXPECT_TRUE(Find(lines, "method", "tether.v1.SimulationService/Simulate").is_null());
  EXPECT_FALSE(Find(lines, "code", "NOT_FOUND").is_null()) << server.Log();
  EXPECT_FALSE(Find(lines, "event", "serving").is_null()) << "the port line is always written";
  EXPECT_TRUE(Find(lines, "event", "stopped").is_null());

  ServerProcess bad(TETHER_SERVER_BINARY, {"--log-level", "loud"});
  EXPECT_GT(bad.WaitForExit(std::chrono::seconds(20)), 0);  // CLI11's validation error
  EXPECT_THAT(bad.Log(), HasSubstr("--log-level"));
}

}  // namespace
}  // namespace tether::server::testing
