// `tether sweep MODEL`: many independent runs of one model over a parameter design
// (sweep_design.h), `--concurrency K` Simulate calls at a time against one server, a list of
// replicas or a DNS name (replica_target.h), one row per run in run order (sweep_table.h).
//
// Every `run` option (--t-end, --method, --set, --columns, ...) applies to every run. A run that
// fails transiently (UNAVAILABLE, or refused by a busy server) is retried, on another replica if
// there is one (sweep_runner.h); a numerical failure is recorded in its row, not retried. Ctrl-C
// (or SIGTERM) cancels the runs in flight and keeps every finished row; `--resume` reads the
// output back and runs only what is missing or failed transiently.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "cli/run_command.h"
#include "cli/sweep_design.h"
#include "cli/sweep_runner.h"
#include "cli/stop_signals.h"
#include "cli/sweep_table.h"
#include "tether/client/client_options.h"

namespace CLI {
class App;
}

namespace tether::cli {

struct SweepCommandOptions {
  RunCommandOptions run;      // the options of every run (its format, output and plot unused)
  SweepDesignOptions design;  // the parameter sets
  SweepFormat format = SweepFormat::kCsv;
  std::string output_file;       // the rows; empty = stdout
  std::string trajectories_dir;  // every run's samples as DIR/run-NNNNNN.csv; empty = none
  bool resume = false;           // keep the rows already in output_file, run the others
  // Statistics fields (tether.v1.Statistics names) reported besides cpu_seconds.
  std::vector<std::string> stats = {"steps", "rejected_steps", "projection_iterations",
                                    "max_residual_position", "max_residual_velocity"};
  SweepRunnerOptions runner;
  bool progress = false;  // draw the progress line on stderr
  client::ClientOptions client;  // metadata and credentials of every call (--metadata, --token)
};

// Adds the sweep's own options (design, output, concurrency, ...) to `sweep`; app.cc adds the
// shared run options.
void AddSweepOptions(CLI::App* sweep, SweepCommandOptions* options, std::string* format);

// Runs the sweep against `target` (replica_target.h; "" = an embedded server) and returns the
// exit code: 0 every run reached its end; 1 some run failed (its row says why); 2 usage error;
// 3 runs left undone because no replica answered; 130 interrupted (finished rows are kept).
int SweepCommand(const std::string& target, const SweepCommandOptions& options, std::ostream& out,
                 std::ostream& err);

}  // namespace tether::cli
