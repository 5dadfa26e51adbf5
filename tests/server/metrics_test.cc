// The Prometheus endpoint (ServerConfig::metrics_listen): scraped over HTTP after a run of known
// size, parsed, and its counts checked against the calls made; bad requests answered by status.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <map>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_support.h"

namespace tether::server::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// Sends `request` to 127.0.0.1:port and returns everything the server answered.
std::string Http(int port, const std::string& request) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval timeout{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return {};
  }
  ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string response;
  char buffer[4096];
  for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) {
    response.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return response;
}

// The samples of an exposition text: "name{labels}" → value; every line must be a comment or
// a sample "name[{labels}] value".
std::map<std::string, double> Parse(const std::string& body) {
  std::map<std::string, double> samples;
  std::istringstream in(body);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const std::size_t space = line.rfind(' ');
    EXPECT_NE(space, std::string::npos) << line;
    if (space == std::string::npos) continue;
    samples[line.substr(0, space)] = std::stod(line.substr(space + 1));
  }
  return samples;
}

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

  const std::string response = Http(server->metrics_port(), "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_THAT(response, StartsWith("HTTP/1.1 200 OK\r\n"));
  EXPECT_THAT(response, HasSubstr("Content-Type: text/plain; version=0.0.4"));
  const std::string body = response.substr(response.find("\r\n\r\n") + 4);
  EXPECT_THAT(body, HasSubstr("# TYPE grpc_server_handling_seconds histogram"));
  const std::map<std::string, double> m = Parse(body);
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

  EXPECT_THAT(Http(server->metrics_port(), "GET /other HTTP/1.1\r\n\r\n"),
              StartsWith("HTTP/1.1 404"));
  EXPECT_THAT(Http(server->metrics_port(), "POST /metrics HTTP/1.1\r\n\r\n"),
              StartsWith("HTTP/1.1 405"));
  EXPECT_THAT(Http(server->metrics_port(), "GET /metrics HTTP/1.1\r\nX: " +
                                               std::string(20000, 'a') + "\r\n\r\n"),
              StartsWith("HTTP/1.1 431"));
  // A client that sends nothing is dropped after the responder's timeout; scrapes go on.
  EXPECT_EQ(Http(server->metrics_port(), ""), "");
  EXPECT_THAT(Http(server->metrics_port(), "GET /metrics HTTP/1.1\r\n\r\n"),
              StartsWith("HTTP/1.1 200"));
}

}  // namespace
}  // namespace tether::server::testing
