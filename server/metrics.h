// Prometheus metrics of the server in the text exposition format (version 0.0.4,
// prometheus.io/docs/instrumenting/exposition_formats), written by hand: prometheus-cpp is not
// packaged in Debian 12, and the format is small (HELP/TYPE lines, one sample per line).
//
// gRPC metrics under go-grpc-prometheus' names, so that existing dashboards work:
//   grpc_server_started_total{grpc_service,grpc_method,grpc_type}          counter
//   grpc_server_handled_total{grpc_service,grpc_method,grpc_type,grpc_code} counter
//   grpc_server_handling_seconds{grpc_service,grpc_method,grpc_type}       histogram
// plus tether's own (tether_*), gauges read from the server when scraped.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <grpcpp/support/status.h>

namespace tether::server {

// go-grpc-prometheus' default buckets of grpc_server_handling_seconds [s].
inline constexpr double kHandlingBuckets[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                              0.5,   1.0,  2.5,   5.0,  10.0};

class Metrics {
 public:
  // `method` is the full name "/pkg.Service/Method" or "pkg.Service/Method".
  void Started(std::string_view method, bool streaming);
  void Handled(std::string_view method, bool streaming, grpc::StatusCode code, double seconds);
  // A stream's delivered samples and frames, its termination reason (proto enum name).
  void Streamed(std::uint64_t samples, std::uint64_t frames, const std::string& termination);

  // A gauge sampled at scrape time: name, help, value.
  struct Gauge {
    std::string name;
    std::string help;
    double value = 0.0;
  };
  // The exposition text: the counters above, then `gauges`.
  [[nodiscard]] std::string Render(const std::vector<Gauge>& gauges) const;

 private:
  using Key = std::tuple<std::string, std::string, bool>;  // service, method, streaming
  struct Histogram {
    std::uint64_t buckets[std::size(kHandlingBuckets)] = {};
    std::uint64_t count = 0;
    double sum = 0.0;
  };
  mutable std::mutex mutex_;
  std::map<Key, std::uint64_t> started_;
  std::map<std::tuple<std::string, std::string, bool, std::string>, std::uint64_t> handled_;
  std::map<Key, Histogram> handling_;
  std::uint64_t samples_ = 0;
  std::uint64_t frames_ = 0;
  std::map<std::string, std::uint64_t> terminations_;
};

}  // namespace tether::server
