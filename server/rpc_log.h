// One structured log line per RPC on stderr:
//   {"time":"2026-12-01T19:40:00.123Z","level":"info","method":"tether.v1.SimulationService/
//    StreamStates","peer":"ipv4:127.0.0.1:50312","tenant":"team-a","session":"sessions/s-1a2b",
//    "model":"pendulum","code":"OK","message":"","duration_ms":1.52,"samples":1001,
//    "termination":"TERMINATION_REACHED_END","trace_id":"4bf9…","span_id":"00f0…"}
// tenant (never a token), session, model, samples, termination and the trace appear when known,
// and "transport":"http" for a call of the HTTP/JSON listener (counted in the same metrics);
// the level follows the code (LogLevel in tether/server/server.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <grpcpp/server_context.h>
#include <grpcpp/support/status.h>

#include "errors.h"
#include "metrics.h"
#include "tether/server/server.h"

namespace tether::server {

// Started when a call arrives; Finish writes the line (once).
class RpcLog {
 public:
  // `enabled` false: no line (ServerConfig::log_rpcs); lines below `min_level` are not written.
  // `metrics` (may be null) counts the call: started now, handled at Finish; `streaming` for
  // StreamStates and Simulate.
  RpcLog(bool enabled, LogLevel min_level, Metrics* metrics, bool streaming, std::string method,
         std::string session = {});
  // The caller's address and its W3C traceparent, from the call's context.
  void set_call(const grpc::CallbackServerContext& context);
  // The same for an HTTP request: its peer ("ipv4:127.0.0.1:50312") and `traceparent` header.
  void set_http_call(std::string peer, std::string_view traceparent);
  void set_session(std::string session) { session_ = std::move(session); }
  // The caller's tenant (never its token); "" without tenants, then not logged.
  void set_tenant(std::string tenant) { tenant_ = std::move(tenant); }
  void set_model(std::string model) { model_ = std::move(model); }
  // What a stream delivered and computed, and its termination reason.
  void set_stream(StreamUsage usage) { stream_ = std::move(usage); }
  [[nodiscard]] const TraceContext& trace() const { return trace_; }
  // Writes the line and returns the status to send: `status` with the caller's trace echoed in
  // its details (WithTrace).
  grpc::Status Finish(const grpc::Status& status);

 private:
  bool enabled_;
  LogLevel min_level_;
  Metrics* metrics_;
  bool streaming_;
  bool written_ = false;
  bool finished_ = false;
  std::string method_;
  std::string peer_;
  bool http_ = false;  // the call came over the HTTP/JSON listener
  std::string session_;
  std::string tenant_;
  std::string model_;
  std::optional<StreamUsage> stream_;  // streams only
  TraceContext trace_;
  std::chrono::steady_clock::time_point start_;
};

// "OK", "INVALID_ARGUMENT", …
std::string CodeName(grpc::StatusCode code);
// The level of an RPC line that ended with `code` (see LogLevel).
LogLevel LevelOf(grpc::StatusCode code);
// The current time as "2026-12-01T19:40:00.123Z".
std::string NowUtc();

}  // namespace tether::server
