#include "cli/stream_commands.h"

#include <algorithm>
#include <cmath>

#include "cli/exit_codes.h"
#include "cli/exit_status.h"

namespace tether::cli {
namespace {

// Wall-clock time a frame of a realtime stream spans [s]: the server sends a frame when its last
// sample is due, so its first rows wait this long. 1/30 s, the dashboard's update rate
// (server/dashboard/session_card.js, kStreamUpdatesPerSecond).
constexpr double kRealtimeFrameSeconds = 1.0 / 30.0;
// Samples per realtime frame at most, the server's default frame size (session_card.js,
// kMaxFrameSamples): a faster stream gets more frames a second instead.
constexpr double kMaxRealtimeFrameSamples = 256;

// Samples per frame of a stream at `realtime_factor` (> 0) over samples `output_interval` [s]
// apart: those due within kRealtimeFrameSeconds, in [1, kMaxRealtimeFrameSamples]; 1 when every
// accepted step is a sample (interval 0).
std::uint32_t RealtimeFrameSamples(double realtime_factor, double output_interval) {
  if (!(output_interval > 0.0)) return 1;
  const double due = std::round(realtime_factor * kRealtimeFrameSeconds / output_interval);
  return static_cast<std::uint32_t>(std::clamp(due, 1.0, kMaxRealtimeFrameSamples));
}

// The frame size `stream` asks for: --frame-samples if given; for a realtime stream,
// RealtimeFrameSamples over the interval it will have (--output-interval, else the session's);
// otherwise 0, the server's default.
std::uint32_t StreamFrameSamples(client::Client& client, const StreamCommandOptions& options) {
  if (options.frame_samples != 0 || !(options.realtime_factor > 0.0)) return options.frame_samples;
  if (options.output_interval) {
    return RealtimeFrameSamples(options.realtime_factor, *options.output_interval);
  }
  const auto session = client.GetSession(client::SessionName(options.session));
  if (!session.ok()) return 0;  // the stream call itself reports what is wrong
  return RealtimeFrameSamples(options.realtime_factor, session->options().output_interval());
}

// The fields `stream` and `view` share.
v1::StreamStatesRequest CommonRequest(const StreamCommandOptions& options) {
  v1::StreamStatesRequest request;
  request.set_name(client::SessionName(options.session));
  for (const std::string& column : options.columns) request.add_columns(column);
  request.set_frame_samples(options.frame_samples);
  if (options.from_index) request.set_start_sample_index(*options.from_index);
  if (options.max_samples) request.set_max_samples(*options.max_samples);
  if (options.stop_time) request.set_stop_time(*options.stop_time);
  return request;
}

}  // namespace

int SessionsCreateCommand(Connection& connection, const RunCommandOptions& options,
                          const std::string& id, std::ostream& out, std::ostream& err) {
  std::vector<std::string> problems;
  if (!options.columns.empty()) {
    problems.push_back("--columns: columns are chosen per stream (tether stream --columns)");
  }
  v1::SimulateRequest simulate;
  BuildSimulateRequest(options, &simulate, &problems);
  if (!problems.empty()) {
    for (const std::string& problem : problems) err << "tether: sessions create: " << problem << '\n';
    return kExitUsageError;
  }
  v1::CreateSessionRequest request;
  request.set_model(simulate.model());
  request.set_session_id(id);
  *request.mutable_parameters() = simulate.parameters();
  *request.mutable_initial_values() = simulate.initial_values();
  *request.mutable_fixed() = simulate.fixed();
  *request.mutable_options() = simulate.options();
  auto session = connection.client().CreateSession(request);
  if (!session.ok()) return ReportError(err, "sessions create " + options.model, session.error());
  out << session->name() << '\n';
  return kExitOk;
}

int StreamCommand(Connection& connection, const StreamCommandOptions& options, std::ostream& out,
                  std::ostream& err) {
  v1::StreamStatesRequest request = CommonRequest(options);
  if (options.t_end) request.set_t_end(*options.t_end);
  request.set_indefinite(options.indefinite);
  if (options.output_interval) request.set_output_interval(*options.output_interval);
  request.set_realtime_factor(options.realtime_factor);
  constexpr v1::Termination kDone[] = {v1::TERMINATION_REACHED_END, v1::TERMINATION_PAUSED};
  client::Client& client = connection.client();
  request.set_frame_samples(StreamFrameSamples(client, options));
  return WriteStream(
      options.output, "stream", request.name(),
      [&](const client::StreamHandlers& handlers) { return client.StreamStates(request, handlers); },
      kDone, out, err);
}

int ViewCommand(Connection& connection, const StreamCommandOptions& options, std::ostream& out,
                std::ostream& err) {
  const v1::StreamStatesRequest request = CommonRequest(options);
  // A viewer ends at its own stop condition or with its session; the driver's horizon is not
  // the viewer's end (it waits for the next driver).
  constexpr v1::Termination kDone[] = {v1::TERMINATION_PAUSED, v1::TERMINATION_SESSION_DELETED};
  client::Client& client = connection.client();
  return WriteStream(
      options.output, "view", request.name() + " (view)",
      [&](const client::StreamHandlers& handlers) {
        return client.View(request.name(), handlers, request);
      },
      kDone, out, err);
}

}  // namespace tether::cli
