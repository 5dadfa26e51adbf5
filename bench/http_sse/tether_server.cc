// tether's own HTTP listener (server/http_server.h, on libmicrohttpd) serving the benchmark's
// load as real streams: every connection is a one-shot run of the seed pendulum (POST
// /v1:simulate) whose frames of 256 samples are computed on the worker pool only when the
// previous one was taken by the socket. So this row measures the whole path — simulation,
// proto JSON, SSE framing and the library — and its CPU includes the simulations'.
#include <unistd.h>

#include <limits>
#include <memory>
#include <string>

#include "http_sse/sse_server.h"
#include "tether/server/server.h"

namespace tether::bench {

std::string TetherSimulateRequest(int samples_per_frame) {
  // t_end far beyond what a stream is read for: the benchmark stops reading after its events
  // and the run stalls there (back-pressure), as a dashboard that closed its tab would.
  const std::string body = R"({"model":"models/pendulum","options":{"tEnd":100000,)"
                           R"("outputInterval":0.01},"frameSamples":)" +
                           std::to_string(samples_per_frame) + "}";
  return "POST /v1:simulate HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
         "Content-Type: application/json\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

bool ServeTether(const ServerSetup& setup, std::string* why) {
  server::ServerConfig config;
  config.listen = "";
  config.http_listen = "127.0.0.1:0";
  config.log_rpcs = false;
  config.worker_threads = static_cast<std::size_t>(setup.threads);
  config.max_streams = static_cast<std::size_t>(setup.max_connections) + 16;
  std::unique_ptr<server::Server> server = server::Server::Start(config, why);
  if (server == nullptr) return false;
  const int port = server->http_port();
  if (port == 0 || write(setup.report_fd, &port, sizeof port) != sizeof port) {
    *why = "tether-server: cannot report the port";
    return false;
  }
  for (;;) pause();  // the listener's threads serve; the benchmark kills this process
}

}  // namespace tether::bench
