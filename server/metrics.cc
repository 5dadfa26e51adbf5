#include "metrics.h"

#include <type_traits>

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

// The exposition format's escaping of a label value: backslash, double quote and newline.
std::string Quoted(std::string_view value) {
  std::string out = "\"";
  for (const char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

// Two counter families: tether_<name> (the server-wide total) and tether_tenant_<name>{tenant}
// (one series per tenant), apart so that a sum over either never counts a stream twice.
template <typename Value>
void Counter(std::string* out, std::string_view name, std::string_view help, Value total,
             const std::map<std::string, Value>& per_tenant) {
  const std::string all = "tether_" + std::string(name);
  Header(out, all, "counter", std::string(help) + " All tenants.");
  *out += all + " " + Number(static_cast<double>(total)) + "\n";
  if (per_tenant.empty()) return;
  const std::string each = "tether_tenant_" + std::string(name);
  Header(out, each, "counter", std::string(help) + " Per tenant.");
  for (const auto& [tenant, value] : per_tenant) {
    *out += each + "{tenant=" + Quoted(tenant) + "} " + Number(static_cast<double>(value)) + "\n";
  }
}

}  // namespace

std::string LabelPair(std::string_view name, std::string_view value) {
  return std::string(name) + "=" + Quoted(value);
}

void Metrics::Work::Add(const StreamUsage& usage) {
  ++streams;
  samples += usage.samples;
  frames += usage.frames;
  steps += usage.work.steps;
  rejected_steps += usage.work.rejected_steps;
  projection_iterations += usage.work.projection_iterations;
  cpu_seconds += usage.work.cpu_seconds;
}

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

void Metrics::Streamed(const std::string& tenant, const StreamUsage& usage) {
  std::lock_guard lock(mutex_);
  total_.Add(usage);
  if (!tenant.empty()) per_tenant_[tenant].Add(usage);
  ++terminations_[usage.termination];
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
  // One family per field of Work: its total and its per-tenant series.
  auto family = [&](std::string_view name, std::string_view help, auto field) {
    std::map<std::string, std::decay_t<decltype(total_.*field)>> tenants;
    for (const auto& [tenant, work] : per_tenant_) tenants[tenant] = work.*field;
    Counter(&out, name, help, total_.*field, tenants);
  };
  family("streams_total", "Streams ended (StreamStates and Simulate).", &Work::streams);
  family("samples_sent_total", "Samples delivered by streams.", &Work::samples);
  family("frames_sent_total", "Frames delivered by streams.", &Work::frames);
  family("steps_total", "Accepted integration steps computed by streams.", &Work::steps);
  family("rejected_steps_total", "Rejected integration steps (error test or Newton).",
         &Work::rejected_steps);
  family("projection_iterations_total", "Newton iterations of the manifold projections.",
         &Work::projection_iterations);
  family("simulation_cpu_seconds_total", "Thread CPU time spent simulating [s].",
         &Work::cpu_seconds);
  Header(&out, "tether_stream_terminations_total", "counter", "Streams ended, by termination reason.");
  for (const auto& [reason, n] : terminations_) {
    out += "tether_stream_terminations_total{reason=" + Quoted(reason) + "} " +
           std::to_string(n) + "\n";
  }
  for (const Gauge& gauge : gauges) {
    Header(&out, gauge.name, "gauge", gauge.help);
    for (const Gauge::Series& series : gauge.series) {
      out += gauge.name;
      if (!series.labels.empty()) out += "{" + series.labels + "}";
      out += " " + Number(series.value) + "\n";
    }
  }
  return out;
}

}  // namespace tether::server
