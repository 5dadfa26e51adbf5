// `tether run`: one Simulate call, its samples written as table, CSV or JSONL (and optionally an
// SVG plot), the consistent-initialization report and the run's summary on stderr.
//
// Rows are  t, <the stream's columns: states, multipliers (or algebraic variables), outputs>,
// residual_position, residual_velocity  — the column names come from the stream header. Models
// with inequalities add residual_inequality and the switch events (run_output.h).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <span>
#include <ostream>
#include <string>
#include <vector>

#include "tether/client/client.h"

namespace tether::cli {

enum class OutputFormat { kTable, kCsv, kJsonl };

struct RunCommandOptions {
  std::string model;      // catalog or registered name; empty when `spec_file` is given
  std::string spec_file;  // a JSON spec run inline (not registered); empty = use `model`
  // Absent fields take the server's defaults (the spec's suggestions, else t_end 10 s and
  // output_interval 0.01 s; dp5, rtol 1e-8, atol 1e-10, sequential, euclidean).
  std::optional<double> t_end;            // [s]
  std::optional<double> output_interval;  // [s], 0 = every accepted step
  std::string method;                     // one of simulate::MethodNames(); "" = server default
  std::optional<double> step;             // [s]
  std::optional<double> rtol;
  // --atol values: a number (every variable) or NAME=VALUE (one variable), repeatable.
  std::vector<std::string> atol;
  std::optional<double> max_step;             // [s], 0 = unbounded
  std::optional<std::uint64_t> max_steps;     // accepted steps at most
  std::optional<double> projection_tolerance;
  std::optional<int> max_newton_iterations;
  std::optional<int> max_initialization_iterations;  // of consistent initialization
  std::string newton;     // "full", "simplified"; "" = full
  std::string algebraic;  // "solve", "ode"; "" = solve
  std::vector<std::string> fixed;  // initial values initialization must not move
  std::string projection;  // "coupled", "sequential", "none", "baumgarte"; "" = sequential
  std::string metric;      // "euclidean", "mass", "weighted"; "" = the server's default
  // Models with inequalities; absent fields take the server's defaults (detection on, automatic
  // tolerance, at most 20 switching instants within 1e-6 s).
  std::optional<bool> switch_detection;     // locate switches (true) or only project steps (false)
  std::optional<double> switch_tolerance;   // [s] switch times located to within this; 0 = auto
  std::optional<int> max_switches;          // chattering guard: switches per window, >= 1
  std::optional<double> chattering_window;  // [s] the guard's window, > 0
  std::vector<std::string> set;   // "NAME=VALUE" parameter overrides
  std::vector<std::string> init;  // "NAME=VALUE" initial-value overrides
  std::vector<std::string> columns;  // streamed columns, in order; empty = all
  OutputFormat format = OutputFormat::kCsv;
  std::string output_file;  // empty = stdout
  std::string plot_file;    // empty = no plot
  bool progress = false;    // draw the progress bar on stderr
};

// Parses "NAME=VALUE" assignments into `out`; every malformed one is described in `problems`
// ("--set 'm=abc': 'abc' is not a number").
void ParseAssignments(const std::string& flag, const std::vector<std::string>& assignments,
                      std::map<std::string, double>* out, std::vector<std::string>* problems);

// Builds the Simulate request of `options` (model or inline spec, overrides, columns, solver
// options); false with every problem of the user's input listed ("--spec: cannot read ...").
bool BuildSimulateRequest(const RunCommandOptions& options, v1::SimulateRequest* request,
                          std::vector<std::string>* problems);

// Starts a stream with the given handlers and returns how it ended (Client::Simulate,
// StreamStates, View).
using StreamCall = std::function<client::StreamEnd(const client::StreamHandlers&)>;

// Writes the samples of one stream as `options` say (format, output file, plot, progress bar;
// Ctrl-C stops between rows, exit kExitInterrupted) and reports its end on stderr under
// `command`'s name ("tether: run: ..."); `title` heads the plot. Returns the exit code:
// kExitOk when the summary's termination is one of `done` (`run`: the horizon; a session's
// stream also a pause), else the failure's (exit_codes.h).
int WriteStream(const RunCommandOptions& options, const std::string& command,
                const std::string& title, const StreamCall& call,
                std::span<const v1::Termination> done, std::ostream& out, std::ostream& err);

// Runs it; returns the process exit code (exit_codes.h).
int RunCommand(client::Client& client, const RunCommandOptions& options, std::ostream& out,
               std::ostream& err);

}  // namespace tether::cli
