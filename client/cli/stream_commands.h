// `tether sessions create`, `tether stream` and `tether view`: a session driven from the command
// line. `stream` advances a session (StreamStates) and `view` follows one read-only (view_only);
// both write the samples as `run` does (table, CSV, JSONL, plot; run_command.h).
//
// A stream that ends at a stop condition (--max-samples, --stop-time) or at ControlSession's
// pause (`tether sessions control SESSION --pause`) ends at a frame boundary with nothing in
// flight: the next `tether stream SESSION` continues at the next sample, no gap, no duplicate.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cli/connection.h"
#include "cli/run_command.h"

namespace tether::cli {

// The StreamStatesRequest fields of `stream` and `view`; absent fields take the session's
// (or, for a viewer, the driver's) values.
struct StreamCommandOptions {
  std::string session;                    // name or id
  std::optional<double> t_end;            // [s] stream until (stream only)
  bool indefinite = false;                // no horizon until paused (stream only)
  std::optional<double> output_interval;  // [s] (stream only)
  double realtime_factor = 0;             // simulated s per wall-clock s, 0 = flat out (stream only)
  std::vector<std::string> columns;       // empty = all
  // 0 = the server's default; for a realtime stream (stream only), about 1/30 s of wall time
  std::uint32_t frame_samples = 0;
  std::optional<std::uint64_t> from_index;   // start_sample_index: first sample to write
  std::optional<std::uint64_t> max_samples;  // stop condition: pause after this many samples
  std::optional<double> stop_time;           // stop condition [s]: pause after the first t >= it
  // Only the output fields are used: format, output_file, plot_file, progress.
  RunCommandOptions output;
};

// CreateSession of the registered model `options.model` with its overrides and solver options,
// as `run` takes them (--columns has no meaning here and is refused); `id` empty =
// server-chosen.
// Prints the session's name.
int SessionsCreateCommand(Connection& connection, const RunCommandOptions& options,
                          const std::string& id, std::ostream& out, std::ostream& err);

// Advances the session and writes its samples. Exit kExitOk at the horizon or a pause.
int StreamCommand(Connection& connection, const StreamCommandOptions& options, std::ostream& out,
                  std::ostream& err);

// Writes the samples the session's driver computes, from --from-index (default: the session's
// current end), until a stop condition, Ctrl-C (exit kExitInterrupted) or the session's deletion
// (kExitOk both). Lost samples (the viewer fell behind the replay history) are named on stderr.
int ViewCommand(Connection& connection, const StreamCommandOptions& options, std::ostream& out,
                std::ostream& err);

}  // namespace tether::cli
