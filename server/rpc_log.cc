#include "rpc_log.h"

#include <cstdio>
#include <ctime>
#include <mutex>

#include <nlohmann/json.hpp>

namespace tether::server {

std::string NowUtc() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(
                          now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<int>(millis));
  return buffer;
}

std::string_view LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug: return "debug";
    case LogLevel::kInfo: return "info";
    case LogLevel::kWarn: return "warn";
    case LogLevel::kError: return "error";
  }
  return "info";
}

bool ParseLogLevel(std::string_view name, LogLevel* level) {
  for (const LogLevel candidate : {LogLevel::kDebug, LogLevel::kInfo, LogLevel::kWarn,
                                   LogLevel::kError}) {
    if (name == LogLevelName(candidate)) {
      *level = candidate;
      return true;
    }
  }
  return false;
}

LogLevel LevelOf(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
    case grpc::StatusCode::CANCELLED:
      return LogLevel::kInfo;
    case grpc::StatusCode::INTERNAL:
    case grpc::StatusCode::UNKNOWN:
    case grpc::StatusCode::DATA_LOSS:
    case grpc::StatusCode::UNIMPLEMENTED:
    case grpc::StatusCode::UNAVAILABLE:
      return LogLevel::kError;
    default:
      return LogLevel::kWarn;
  }
}

RpcLog::RpcLog(bool enabled, LogLevel min_level, Metrics* metrics, bool streaming,
               std::string method, std::string session)
    : enabled_(enabled),
      min_level_(min_level),
      metrics_(metrics),
      streaming_(streaming),
      method_(std::move(method)),
      session_(std::move(session)),
      start_(std::chrono::steady_clock::now()) {
  if (metrics_ != nullptr) metrics_->Started(method_, streaming_);
}

void RpcLog::set_http_call(std::string peer, std::string_view traceparent) {
  peer_ = std::move(peer);
  http_ = true;
  if (!traceparent.empty()) trace_ = ParseTraceparent(traceparent);
}

void RpcLog::set_call(const grpc::CallbackServerContext& context) {
  peer_ = context.peer();
  const auto& metadata = context.client_metadata();
  if (const auto found = metadata.find("traceparent"); found != metadata.end()) {
    trace_ = ParseTraceparent(std::string_view(found->second.data(), found->second.size()));
  }
}

grpc::Status RpcLog::Finish(const grpc::Status& status) {
  const grpc::Status traced = WithTrace(status, trace_);
  const LogLevel level = LevelOf(status.error_code());
  const std::chrono::duration<double, std::milli> elapsed =
      std::chrono::steady_clock::now() - start_;
  if (metrics_ != nullptr && !finished_) {
    metrics_->Handled(method_, streaming_, status.error_code(), elapsed.count() / 1000.0);
    if (stream_) metrics_->Streamed(tenant_, *stream_);
  }
  finished_ = true;
  if (!enabled_ || written_ || level < min_level_) return traced;
  written_ = true;
  nlohmann::json line = {{"time", NowUtc()},
                         {"level", LogLevelName(level)},
                         {"method", method_},
                         {"session", session_},
                         {"code", CodeName(status.error_code())},
                         {"message", status.error_message()},
                         {"duration_ms", elapsed.count()}};
  if (!peer_.empty()) line["peer"] = peer_;
  if (http_) line["transport"] = "http";
  if (!tenant_.empty()) line["tenant"] = tenant_;
  if (!model_.empty()) line["model"] = model_;
  if (stream_) {
    line["samples"] = stream_->samples;
    line["termination"] = stream_->termination;
  }
  if (!trace_.empty()) {
    line["trace_id"] = trace_.trace_id;
    line["span_id"] = trace_.span_id;
  }
  // One fwrite per line under a lock, so that concurrent calls never interleave characters.
  static std::mutex mutex;
  const std::string text =
      line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::lock_guard lock(mutex);
  std::fwrite(text.data(), 1, text.size(), stderr);
  return traced;
}

std::string CodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK: return "OK";
    case grpc::StatusCode::CANCELLED: return "CANCELLED";
    case grpc::StatusCode::UNKNOWN: return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND: return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS: return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED: return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED: return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE: return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED: return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL: return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE: return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS: return "DATA_LOSS";
    case grpc::StatusCode::UNAUTHENTICATED: return "UNAUTHENTICATED";
    default: return "CODE_" + std::to_string(static_cast<int>(code));
  }
}

}  // namespace tether::server
