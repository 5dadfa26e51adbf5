#include "metrics.h"

#include "errors.h"
#include "rpc_log.h"

namespace tether::server {
namespace {

std::tuple<std::string, std::string> Split(std::string_view method) {
  if (!method.empty() && method.front() == '/') method.remove_prefix(1);
  const std::size_t slash = method.find('/');
  if (slash == std::string_view::npos) return {"", std::string(method)};
  return {std::string(method.substr(0, slash)), std::string(method.substr(slash + 1))};
}

// Shortest round-trip text: bucket bounds read "0.005", as go-grpc-prometheus writes them.
std::string Number(double value) { return FormatDouble(value); }

std::string Labels(const std::string& service, const std::string& method, bool streaming) {
  return "grpc_method=\"" + method + "\",grpc_service=\"" + service + "\",grpc_type=\"" +
         (streaming ? "server_stream" : "unary") + "\"";
}

void Header(std::string* out, std::string_view name, std::string_view type,
            std::string_view help) {
  *out += "# HELP ";
  *out += name;
  *out += ' ';
  *out += help;
  *out += "\n# TYPE ";
  *out += name;
  *out += ' ';
  *out += type;
  *out += '\n';
}

}  // namespace

void Metrics::Started(std::string_view method, bool streaming) {
  auto [service, name] = Split(method);
  std::lock_guard lock(mutex_);
  ++started_[Key{service, name, streaming}];
}

void Metrics::Handled(std::string_view method, bool streaming, grpc::StatusCode code,
                      double seconds) {
  auto [service, name] = Split(method);
  std::lock_guard lock(mutex_);
  ++handled_[{service, name, streaming, CodeName(code)}];
  Histogram& h = handling_[Key{service, name, streaming}];
  for (std::size_t i = 0; i < std::size(kHandlingBuckets); ++i) {
    if (seconds <= kHandlingBuckets[i]) ++h.buckets[i];
  }
  ++h.count;
  h.sum += seconds;
}

void Metrics::Streamed(std::uint64_t samples, std::uint64_t frames,
                       const std::string& termination) {
  std::lock_guard lock(mutex_);
  samples_ += samples;
  frames_ += frames;
  ++terminations_[termination];
}

std::string Metrics::Render(const std::vector<Gauge>& gauges) const {
  std::string out;
  std::lock_guard lock(mutex_);
  Header(&out, "grpc_server_started_total", "counter", "Total number of RPCs started on the server.");
  for (const auto& [key, n] : started_) {
    const auto& [service, method, streaming] = key;
    out += "grpc_server_started_total{" + Labels(service, method, streaming) + "} " +
           std::to_string(n) + "\n";
  }
  Header(&out, "grpc_server_handled_total", "counter",
         "Total number of RPCs completed on the server, regardless of success or failure.");
  for (const auto& [key, n] : handled_) {
    const auto& [service, method, streaming, code] = key;
    out += "grpc_server_handled_total{grpc_code=\"" + code + "\"," +
           Labels(service, method, streaming) + "} " + std::to_string(n) + "\n";
  }
  Header(&out, "grpc_server_handling_seconds", "histogram",
         "Histogram of response latency (seconds) of gRPC that had been application-level "
         "handled by the server.");
  for (const auto& [key, h] : handling_) {
    const auto& [service, method, streaming] = key;
    const std::string labels = Labels(service, method, streaming);
    for (std::size_t i = 0; i < std::size(kHandlingBuckets); ++i) {
      out += "grpc_server_handling_seconds_bucket{" + labels + ",le=\"" +
             Number(kHandlingBuckets[i]) + "\"} " + std::to_string(h.buckets[i]) + "\n";
    }
    out += "grpc_server_handling_seconds_bucket{" + labels + ",le=\"+Inf\"} " +
           std::to_string(h.count) + "\n";
    out += "grpc_server_handling_seconds_sum{" + labels + "} " + Number(h.sum) + "\n";
    out += "grpc_server_handling_seconds_count{" + labels + "} " + std::to_string(h.count) + "\n";
  }
  Header(&out, "tether_samples_sent_total", "counter", "Samples delivered by all streams.");
  out += "tether_samples_sent_total " + std::to_string(samples_) + "\n";
  Header(&out, "tether_frames_sent_total", "counter", "Frames delivered by all streams.");
  out += "tether_frames_sent_total " + std::to_string(frames_) + "\n";
  Header(&out, "tether_stream_terminations_total", "counter", "Streams ended, by termination reason.");
  for (const auto& [reason, n] : terminations_) {
    out += "tether_stream_terminations_total{reason=\"" + reason + "\"} " + std::to_string(n) + "\n";
  }
  for (const Gauge& gauge : gauges) {
    Header(&out, gauge.name, "gauge", gauge.help);
    out += gauge.name + " " + Number(gauge.value) + "\n";
  }
  return out;
}

}  // namespace tether::server
