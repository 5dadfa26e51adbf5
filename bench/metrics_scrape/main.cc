// The cost of one Prometheus scrape of a busy server: wall time of GET /metrics over loopback
// (connect, render, transfer) with 1,000 live sessions of several tenants' worth of states,
// against the target of 10 ms. Rendering reads every session's state under its lock, so the
// cost grows with the session count; the table shows it at 0, 100 and 1,000 sessions.
// Writes metrics_scrape.json and metrics_scrape.md.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/client_context.h>

#include "common/arguments.h"
#include "common/cpu_timer.h"
#include "common/report.h"
#include "tether/server/server.h"
#include "tether/v1/simulation_service.grpc.pb.h"

namespace tether::bench {
namespace {

namespace v1 = tether::v1;

// GET /metrics from 127.0.0.1:port; the response's size in bytes, 0 on failure.
std::size_t Scrape(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::size_t bytes = 0;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
    const std::string request = "GET /metrics HTTP/1.1\r\nHost: bench\r\n\r\n";
    ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
    char buffer[65536];
    for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) bytes += static_cast<std::size_t>(n);
  }
  ::close(fd);
  return bytes;
}

// Creates sessions until the server holds `count`; every third one streamed to its end
// (FINISHED), the rest left CREATED. False with the reason on a failed call.
bool Populate(v1::SimulationService::Stub& stub, std::size_t from, std::size_t count,
              std::string* why) {
  for (std::size_t i = from; i < count; ++i) {
    grpc::ClientContext context;
    v1::CreateSessionRequest request;
    request.set_model("models/pendulum");
    request.set_session_id("s" + std::to_string(i));
    request.mutable_options()->set_t_end(0.05);
    v1::Session session;
    const grpc::Status status = stub.CreateSession(&context, request, &session);
    if (!status.ok()) {
      *why = "CreateSession: " + status.error_message();
      return false;
    }
    if (i % 3 != 0) continue;
    grpc::ClientContext stream_context;
    v1::StreamStatesRequest stream;
    stream.set_name(session.name());
    auto reader = stub.StreamStates(&stream_context, stream);
    for (v1::StateChunk chunk; reader->Read(&chunk);) {
    }
    if (const grpc::Status s = reader->Finish(); !s.ok()) {
      *why = "StreamStates: " + s.error_message();
      return false;
    }
  }
  return true;
}

int Run(int argc, char** argv) {
  Arguments arguments;
  std::string why;
  if (!ParseArguments(argc, argv, TETHER_BENCH_RESULTS_DIR, &arguments, &why)) {
    std::fprintf(stderr, "metrics_scrape: %s\n", why.c_str());
    return 2;
  }
  server::ServerConfig config;
  config.listen = "127.0.0.1:0";
  config.metrics_listen = "127.0.0.1:0";
  config.log_rpcs = false;
  config.max_sessions = 2000;
  std::unique_ptr<server::Server> server = server::Server::Start(config, &why);
  if (server == nullptr) {
    std::fprintf(stderr, "metrics_scrape: the server did not start: %s\n", why.c_str());
    return 1;
  }
  auto stub = v1::SimulationService::NewStub(server->InProcessChannel());

  const std::vector<std::size_t> sizes =
      arguments.quick ? std::vector<std::size_t>{0, 30} : std::vector<std::size_t>{0, 100, 1000};
  const int scrapes = arguments.quick ? 5 : 200;
  Report report("metrics_scrape", arguments.command);
  Table table("One GET /metrics over loopback (" + std::to_string(scrapes) +
                  " scrapes each, wall clock); target: under 10 ms at 1,000 sessions",
              {"sessions", "p50 [ms]", "p90 [ms]", "max [ms]", "response [bytes]"});
  std::size_t held = 0;
  int status_code = 0;
  for (const std::size_t sessions : sizes) {
    if (!Populate(*stub, held, sessions, &why)) {
      report.AddNote("failed: " + why);
      status_code = 1;
      break;
    }
    held = sessions;
    std::vector<double> seconds;
    std::size_t bytes = 0;
    for (int i = 0; i < scrapes; ++i) {
      const double start = WallSeconds();
      bytes = Scrape(server->metrics_port());
      seconds.push_back(WallSeconds() - start);
      if (bytes == 0) {
        report.AddNote("a scrape failed at " + std::to_string(sessions) + " sessions");
        status_code = 1;
        break;
      }
    }
    table.AddRow({std::to_string(sessions), Format(1e3 * Percentile(seconds, 0.5)),
                  Format(1e3 * Percentile(seconds, 0.9)), Format(1e3 * Percentile(seconds, 1.0)),
                  std::to_string(bytes)});
    report.json()["sessions_" + std::to_string(sessions)] = {
        {"scrapes", scrapes},
        {"p50_seconds", Percentile(seconds, 0.5)},
        {"p90_seconds", Percentile(seconds, 0.9)},
        {"max_seconds", Percentile(seconds, 1.0)},
        {"response_bytes", bytes}};
  }
  report.AddTable(table);
  report.AddNote("Every third session streamed to its end (FINISHED), the others CREATED; the "
                 "scrape counts them by state under each session's lock.");
  server->Shutdown(std::chrono::milliseconds(0));
  if (!report.Write(arguments.results, &why)) {
    std::fprintf(stderr, "metrics_scrape: %s\n", why.c_str());
    return 1;
  }
  std::printf("metrics_scrape: wrote %s/metrics_scrape.{json,md}\n", arguments.results.c_str());
  return status_code;
}

}  // namespace
}  // namespace tether::bench

int main(int argc, char** argv) { return tether::bench::Run(argc, argv); }
