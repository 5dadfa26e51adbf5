// The Prometheus endpoint (ServerConfig::metrics_listen): scraped over HTTP after a run of known
// size, parsed, and its counts checked against the calls made; bad requests answered by status.

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_support.h"

namespace tether::server::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::string kSimulate =
    "grpc_method=\"Simulate\",grpc_service=\"tether.v1.SimulationService\",grpc_type=\"server_stream\"";
const std::string kGetSession =
    "grpc_method=\"GetSession\",grpc_service=\"tether.v1.SimulationService\",grpc_type=\"unary\"";

TEST(MetricsTest, AScrapeCountsARunOfKnownSize) {
  ServerConfig config = TestConfig();
  config.metrics_listen = "127.0.0.1:0";
  std::string error;
  auto server = Server::Start(config, &error);
  ASSERT_NE(server, nullptr) << error;
  ASSERT_GT(server->metrics_port(), 0);
  auto stub = v1::SimulationService::NewStub(server->InProcessChannel());

  // Three Simulate calls and two GetSession calls of an unknown session.
  std::size_t samples = 0;
  for (int i = 0; i < 3; ++i) {
    v1::SimulateRequest request;
    request.set_model("pendulum");
    request.mutable_options()->set_t_end(0.5);
    request.mutable_options()->set_output_interval(0.01);
    const Collected run = RunSimulate(stub.get(), request);
    ASSERT_TRUE(run.status.ok()) << run.status.error_message();
    samples += run.t.size();
  }
  for (int i = 0; i < 2; ++i) {
    grpc::ClientContext context;
    SetDeadline(&context);
    v1::GetSessionRequest request;
    request.set_name("sessions/nowhere");
    v1::Session session;
    EXPECT_EQ(stub->GetSession(&context, request, &session).error_code(),
              grpc::StatusCode::NOT_FOUND);
  }

  ScrapeMetricsWhenIdle(server->metrics_port());
  const std::string response =
      HttpExchange(server->metrics_port(), "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_THAT(response, StartsWith("HTTP/1.1 200 OK\r\n"));
  EXPECT_THAT(response, HasSubstr("Content-Type: text/plain; version=0.0.4"));
  const std::string body = response.substr(response.find("\r\n\r\n") + 4);
  EXPECT_THAT(body, HasSubstr("# TYPE grpc_server_handling_seconds histogram"));
  const std::map<std::string, double> m = ParseExposition(body);
  auto at = [&m](const std::string& key) {
    const auto it = m.find(key);
    EXPECT_NE(it, m.end()) << key << " missing";
    return it == m.end() ? -1.0 : it->second;
  };
  EXPECT_EQ(at("grpc_server_started_total{" + kSimulate + "}"), 3);
  EXPECT_EQ(at("grpc_server_handled_total{grpc_code=\"OK\"," + kSimulate + "}"), 3);
  EXPECT_EQ(at("grpc_server_started_total{" + kGetSession + "}"), 2);
  EXPECT_EQ(at("grpc_server_handled_total{grpc_code=\"NOT_FOUND\"," + kGetSession + "}"), 2);
  // Every call is counted once in the histogram, and the +Inf bucket holds them all.
  EXPECT_EQ(at("grpc_server_handling_seconds_count{" + kSimulate + "}"), 3);
  EXPECT_EQ(at("grpc_server_handling_seconds_bucket{" + kSimulate + ",le=\"+Inf\"}"), 3);
  EXPECT_LE(at("grpc_server_handling_seconds_bucket{" + kSimulate + ",le=\"0.005\"}"),
            at("grpc_server_handling_seconds_bucket{" + kSimulate + ",le=\"10\"}"));
  EXPECT_EQ(at("tether_samples_sent_total"), static_cast<double>(samples));
  EXPECT_EQ(at("tether_stream_terminations_total{reason=\"TERMINATION_REACHED_END\"}"), 3);
  EXPECT_EQ(at("tether_sessions"), 0);
  EXPECT_EQ(at("tether_open_streams"), 0);

  EXPECT_THAT(HttpExchange(server->metrics_port(), "GET /other HTTP/1.1\r\n\r\n"),
              StartsWith("HTTP/1.1 404"));
  EXPECT_THAT(HttpExchange(server->metrics_port(), "POST /metrics HTTP/1.1\r\n\r\n"),
              StartsWith("HTTP/1.1 405"));
  EXPECT_THAT(HttpExchange(server->metrics_port(), "GET /metrics HTTP/1.1\r\nX: " +
                                               std::string(20000, 'a') + "\r\n\r\n"),
              StartsWith("HTTP/1.1 431"));
  // A client that sends nothing is dropped after the responder's timeout; scrapes go on.
  EXPECT_EQ(HttpExchange(server->metrics_port(), ""), "");
  EXPECT_THAT(HttpExchange(server->metrics_port(), "GET /metrics HTTP/1.1\r\n\r\n"),
              StartsWith("HTTP/1.1 200"));
}

// The work counters count each stream's own work: a session streamed twice adds both streams'
// steps, projection iterations and CPU time, but not the initialization before them; the
// sessions are counted by state.
class MetricsFixture : public ServerFixture {};

TEST_F(MetricsFixture, StreamWorkAndSessionStatesAreCounted) {
  ServerConfig config = TestConfig();
  config.metrics_listen = "127.0.0.1:0";
  Restart(config);
  v1::SimulationOptions options;
  options.set_t_end(2.0);
  options.set_output_interval(0.01);
  MustCreateSession("pendulum", "finished", options);
  MustCreateSession("pendulum", "idle", options);
  const v1::Session created = Get("sessions/finished");

  v1::StreamStatesRequest request;
  request.set_name("sessions/finished");
  request.set_t_end(1.0);
  const Collected first = Stream(stub_.get(), request);
  ASSERT_TRUE(first.status.ok()) << first.status.error_message();
  request.clear_t_end();
  const Collected second = Stream(stub_.get(), request);
  ASSERT_TRUE(second.status.ok()) << second.status.error_message();
  WaitNotRunning("sessions/finished");

  const v1::Statistics& before = created.statistics();
  const v1::Statistics& after = second.summary.statistics();
  ASSERT_GT(after.steps(), before.steps());
  const std::map<std::string, double> m = ScrapeMetricsWhenIdle(server_->metrics_port());
  auto at = [&m](const std::string& key) {
    const auto it = m.find(key);
    EXPECT_NE(it, m.end()) << key << " missing";
    return it == m.end() ? -1.0 : it->second;
  };
  EXPECT_EQ(at("tether_streams_total"), 2);
  EXPECT_EQ(at("tether_steps_total"), static_cast<double>(after.steps() - before.steps()));
  EXPECT_EQ(at("tether_rejected_steps_total"),
            static_cast<double>(after.rejected_steps() - before.rejected_steps()));
  EXPECT_EQ(at("tether_projection_iterations_total"),
            static_cast<double>(after.projection_iterations() - before.projection_iterations()));
  EXPECT_GT(at("tether_projection_iterations_total"), 0);
  // Rendered to 17 digits from sums of the same doubles in another order: equal to rounding.
  EXPECT_NEAR(at("tether_simulation_cpu_seconds_total"),
              after.cpu_seconds() - before.cpu_seconds(), 1e-12 + 1e-12 * after.cpu_seconds());
  EXPECT_EQ(at("tether_samples_sent_total"),
            static_cast<double>(first.t.size() + second.t.size()));
  EXPECT_EQ(at("tether_sessions"), 2);
  EXPECT_EQ(at("tether_sessions_by_state{state=\"SESSION_STATE_FINISHED\"}"), 1);
  EXPECT_EQ(at("tether_sessions_by_state{state=\"SESSION_STATE_CREATED\"}"), 1);
  EXPECT_EQ(at("tether_sessions_by_state{state=\"SESSION_STATE_RUNNING\"}"), 0);
  // Without tenants there is one anonymous tenant and no per-tenant series.
  for (const auto& [key, value] : m) EXPECT_EQ(key.find("tenant="), std::string::npos) << key;
}

}  // namespace
}  // namespace tether::server::testing
