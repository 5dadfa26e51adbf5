// One structured log line per RPC on stderr:
//   {"time":"2026-12-01T19:40:00.123Z","method":"CreateSession","session":"sessions/s-1a2b",
//    "code":"OK","message":"","duration_ms":1.52}
#pragma once

#include <chrono>
#include <string>

#include <grpcpp/support/status.h>

namespace tether::server {

// Started when a call arrives; Finish writes the line (once).
class RpcLog {
 public:
  RpcLog(bool enabled, std::string method, std::string session = {});
  void set_session(std::string session) { session_ = std::move(session); }
  // The caller's tenant (never its token); "" without tenants, then not logged.
  void set_tenant(std::string tenant) { tenant_ = std::move(tenant); }
  void Finish(const grpc::Status& status);

 private:
  bool enabled_;
  bool written_ = false;
  std::string method_;
  std::string session_;
  std::string tenant_;
  std::chrono::steady_clock::time_point start_;
};

// "OK", "INVALID_ARGUMENT", …
std::string CodeName(grpc::StatusCode code);

}  // namespace tether::server
