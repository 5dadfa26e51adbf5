// Prometheus metrics of the server in the text exposition format (version 0.0.4,
// prometheus.io/docs/instrumenting/exposition_formats), written by hand: prometheus-cpp is not
// packaged in Debian 12, and the format is small (HELP/TYPE lines, one sample per line).
//
// gRPC metrics under go-grpc-prometheus' names, so that existing dashboards work:
//   grpc_server_started_total{grpc_service,grpc_method,grpc_type}          counter
//   grpc_server_handled_total{grpc_service,grpc_method,grpc_type,grpc_code} counter
//   grpc_server_handling_seconds{grpc_service,grpc_method,grpc_type}       histogram
// plus tether's own:
//   counters, counted when each stream ends, as tether_<x> (all tenants) and, with tenants,
//   tether_tenant_<x>{tenant} (two families, so that neither sum counts a stream twice):
//     streams_total, samples_sent_total, frames_sent_total, steps_total,
//     rejected_steps_total, projection_iterations_total, simulation_cpu_seconds_total;
//   tether_stream_terminations_total{reason};
//   gauges read when scraped: tether_sessions, tether_sessions_by_state{state},
//     tether_open_streams, tether_busy_workers, tether_queued_tasks, tether_replay_bytes_held,
//     tether_registered_models, tether_draining, and per tenant tether_tenant_sessions,
//     tether_tenant_open_streams, tether_tenant_registered_models.
// A scrape of a server with 1,000 sessions: 0.10 ms median, 5.2 ms worst of 200 (bench/metrics_scrape).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <grpcpp/support/status.h>

#include "tether/simulate/simulation.h"

namespace tether::server {

// go-grpc-prometheus' default buckets of grpc_server_handling_seconds [s].
inline constexpr double kHandlingBuckets[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                              0.5,   1.0,  2.5,   5.0,  10.0};

// What one stream computed and delivered, counted when it ends.
struct StreamUsage {
  std::uint64_t samples = 0;  // delivered
  std::uint64_t frames = 0;   // delivered
  std::string termination;    // proto enum name
  // The simulation work of this stream alone (a session's earlier streams excluded): steps,
  // rejected steps, projection iterations and CPU seconds are counted.
  simulate::Statistics work;
};

// `name="value"` with the value escaped for the exposition format.
std::string LabelPair(std::string_view name, std::string_view value);

class Metrics {
 public:
  // `method` is the full name "/pkg.Service/Method" or "pkg.Service/Method".
  void Started(std::string_view method, bool streaming);
  void Handled(std::string_view method, bool streaming, grpc::StatusCode code, double seconds);
  // A stream of `tenant` ("" without tenants: no per-tenant series) ended.
  void Streamed(const std::string& tenant, const StreamUsage& usage);

  // A gauge family sampled at scrape time: name, help, and its series, each with its labels
  // (rendered, `state="PAUSED"`; empty for none) and value. A family without series is still
  // declared (HELP and TYPE), so that its name is known before it has a value.
  struct Gauge {
    struct Series {
      std::string labels;
      double value = 0.0;
    };
    std::string name;
    std::string help;
    std::vector<Series> series;
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
  // Counter totals of the streams, also kept per tenant.
  struct Work {
    std::uint64_t streams = 0;
    std::uint64_t samples = 0;
    std::uint64_t frames = 0;
    std::uint64_t steps = 0;
    std::uint64_t rejected_steps = 0;
    std::uint64_t projection_iterations = 0;
    double cpu_seconds = 0.0;
    void Add(const StreamUsage& usage);
  };
  Work total_;
  std::map<std::string, Work> per_tenant_;
  std::map<std::string, std::uint64_t> terminations_;
};

}  // namespace tether::server
