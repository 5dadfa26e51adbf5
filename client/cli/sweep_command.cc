#include "cli/sweep_command.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <mutex>

#include "cli/connection.h"
#include "cli/count_validator.h"
#include "cli/exit_codes.h"
#include "cli/number_format.h"
#include "cli/progress_bar.h"
#include "cli/replica_target.h"
#include "cli/run_output.h"
#include "cli/sweep_output.h"
#include "cli/stop_signals.h"
#include "cli/sweep_progress.h"
#include "cli/terminal.h"

namespace tether::cli {
namespace {

constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();

// The Statistics field a --stats name reports; nullptr for an unknown name.
const google::protobuf::FieldDescriptor* StatisticField(const std::string& name) {
  return v1::Statistics::descriptor()->FindFieldByName(name);
}

double StatisticValue(const v1::Statistics& statistics, const std::string& name) {
  const google::protobuf::FieldDescriptor* field = StatisticField(name);
  const google::protobuf::Reflection* reflection = statistics.GetReflection();
  if (field->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_DOUBLE) {
    return reflection->GetDouble(statistics, field);
  }
  return static_cast<double>(reflection->GetUInt64(statistics, field));
}

void CheckStats(const std::vector<std::string>& stats, std::vector<std::string>* problems) {
  for (const std::string& name : stats) {
    const google::protobuf::FieldDescriptor* field = StatisticField(name);
    if (field != nullptr && name != "cpu_seconds") continue;
    std::string known;
    const google::protobuf::Descriptor* d = v1::Statistics::descriptor();
    for (int i = 0; i < d->field_count(); ++i) {
      if (d->field(i)->name() == "cpu_seconds") continue;
      known += (known.empty() ? "" : ", ") + d->field(i)->name();
    }
    problems->push_back("--stats '" + name + "': " +
                        (name == "cpu_seconds" ? "every row has it already" : "not a statistic") +
                        "; one of " + known);
  }
}

std::string TerminationName(v1::Termination termination) {
  constexpr std::string_view kPrefix = "TERMINATION_";
  const std::string& name = v1::Termination_Name(termination);
  return name.substr(std::min(name.size(), kPrefix.size()));
}

// A message as one line: a row is one CSV record and one JSONL line whatever the server says.
std::string OneLine(const std::string& text) {
  std::string line;
  for (char c : text) {
    if (c == '\n' || c == '\r') {
      if (!line.empty() && line.back() != ' ') line += "; ";
    } else {
      line += c;
    }
  }
  return line;
}

SweepRow RowOf(const SweepRunOutcome& outcome, const SweepDesign& design,
               const std::vector<std::string>& stats) {
  const client::StreamEnd& end = outcome.end;
  SweepRow row;
  row.run = outcome.run;
  row.parameters = design.runs[outcome.run];
  row.status = std::string(client::StatusCodeName(end.error.code));
  row.value_names = outcome.value_names;
  row.values = outcome.last_values;
  row.values.resize(row.value_names.size(), kMissing);
  row.replica = end.replica;
  row.attempts = outcome.attempts;
  row.t = kMissing;
  row.cpu_seconds = kMissing;
  row.stats.assign(stats.size(), kMissing);
  std::string message;
  if (end.summary.has_value()) {
    const v1::StreamSummary& summary = *end.summary;
    row.termination = TerminationName(summary.termination());
    row.t = summary.t();
    row.cpu_seconds = summary.statistics().cpu_seconds();
    for (std::size_t i = 0; i < stats.size(); ++i) {
      row.stats[i] = StatisticValue(summary.statistics(), stats[i]);
    }
    if (summary.termination() != v1::TERMINATION_REACHED_END) message = summary.message();
  }
  // The values' own time: a failed run's summary names where it failed, after its last sample.
  if (!outcome.last_values.empty()) row.t = outcome.last_t;
  if (message.empty() && !end.ok()) message = end.error.message;
  row.message = OneLine(message);
  return row;
}

bool Failed(const SweepRow& row) { return RunFailed(row.status, row.termination); }

// The first problem writing trajectories, shared by the workers and read after the sweep.
class FirstWarning {
 public:
  void Set(const std::string& text) {
    std::lock_guard lock(mutex_);
    if (text_.empty()) text_ = text;
  }
  std::string Get() {
    std::lock_guard lock(mutex_);
    return text_;
  }

 private:
  std::mutex mutex_;
  std::string text_;
};

// Writes one run's samples as `tether run --format csv` does, to DIR/run-NNNNNN.csv; a retried
// attempt starts the file again.
class TrajectoryWriter final : public SweepRunObserver {
 public:
  TrajectoryWriter(const RunCommandOptions& run, const std::string& path, FirstWarning* warning)
      : options_(run), warning_(warning) {
    options_.format = OutputFormat::kCsv;
    options_.output_file = path;
    options_.plot_file.clear();
  }
  void Begin(const v1::StreamHeader& header, const client::StreamColumns& columns) override {
    output_ = std::make_unique<RunOutput>(options_, null_);
    std::string why;
    if (!output_->Begin("", header, columns, &why)) {
      output_.reset();
      warning_->Set(why);
    }
  }
  void Sample(const client::Sample& sample) override {
    if (output_ != nullptr) output_->Row(sample);
  }
  void End() override {
    if (output_ != nullptr) output_->End();
    output_.reset();
  }

 private:
  RunCommandOptions options_;
  FirstWarning* warning_;
  std::ostream null_{nullptr};  // RunOutput's stdout, unused: the samples go to the file
  std::unique_ptr<RunOutput> output_;
};

std::string TrajectoryPath(const std::string& dir, std::size_t run) {
  std::array<char, 32> name{};
  std::snprintf(name.data(), name.size(), "run-%06zu.csv", run);
  return (std::filesystem::path(dir) / name.data()).string();
}

// The output stream of the rows: stdout, the output file, or (resuming) a temporary file that
// replaces the output at the end, so an interrupted resume never loses the rows it started from.
class RowsFile {
 public:
  bool Open(const SweepCommandOptions& options, std::ostream& stdout_stream, std::string* why) {
    path_ = options.output_file;
    if (path_.empty()) {
      stream_ = &stdout_stream;
      return true;
    }
    std::error_code ignored;
    if (!options.resume && std::filesystem::exists(path_, ignored) &&
        std::filesystem::file_size(path_, ignored) > 0) {
      *why = "--output '" + path_ + "' exists: --resume completes it; remove it to start over";
      return false;
    }
    write_path_ = options.resume ? path_ + ".tmp" : path_;
    file_.open(write_path_, std::ios::binary | std::ios::trunc);
    if (!file_) {
      *why = "--output: cannot write '" + write_path_ + "': " + std::strerror(errno);
      return false;
    }
    stream_ = &file_;
    return true;
  }
  std::ostream& stream() { return *stream_; }
  // Closes the file and moves a resume's temporary file into place.
  bool Close(std::string* why) {
    if (!file_.is_open()) return true;
    file_.close();
    if (write_path_ == path_) return true;
    std::error_code error;
    std::filesystem::rename(write_path_, path_, error);
    if (error) *why = "cannot replace '" + path_ + "' by '" + write_path_ + "': " + error.message();
    return !error;
  }

 private:
  std::string path_;
  std::string write_path_;
  std::ofstream file_;
  std::ostream* stream_ = nullptr;
};

// The rows already in a resumed output; false with a message when it cannot be used.
bool ReadExisting(const SweepCommandOptions& options, const SweepColumns& columns,
                  const SweepDesign& design, ExistingSweepOutput* existing, std::string* why) {
  std::ifstream in(options.output_file, std::ios::binary);
  if (!in) return true;  // nothing yet: a resume of nothing is a fresh sweep
  if (!ReadSweepOutput(in, options.format, columns, design.runs, existing, why)) {
    *why = "--resume '" + options.output_file + "': " + *why;
    return false;
  }
  return true;
}

// The runs to do: those without a row in a resumed output, and those whose row is a transient
// failure (IsTransientFailure). Adds the failed rows that are kept to *kept_failed.
std::vector<std::size_t> PendingRuns(std::size_t runs, const ExistingSweepOutput& existing,
                                     std::size_t* kept_failed) {
  std::vector<std::size_t> pending;
  for (std::size_t run = 0; run < runs; ++run) {
    const auto row = existing.rows.find(run);
    if (row == existing.rows.end() ||
        IsTransientFailure(row->second.status, !row->second.termination.empty())) {
      pending.push_back(run);
    } else if (RunFailed(row->second.status, row->second.termination)) {
      ++*kept_failed;
    }
  }
  return pending;
}

// The request of every run: the shared one with the run's parameters set.
class RequestFactory {
 public:
  RequestFactory(v1::SimulateRequest base, const SweepDesign& design)
      : base_(std::move(base)), design_(design) {}
  v1::SimulateRequest operator()(std::size_t run) const {
    v1::SimulateRequest request = base_;
    auto& parameters = *request.mutable_parameters();
    for (std::size_t i = 0; i < design_.names.size(); ++i) {
      parameters[design_.names[i]] = design_.runs[run][i];
    }
    return request;
  }

 private:
  v1::SimulateRequest base_;
  const SweepDesign& design_;
};

// What the runs came to, for the closing line and the exit code.
struct Tally {
  std::size_t done = 0;
  std::size_t failed = 0;  // of the runs done now and the rows kept from a resumed output
  std::size_t unavailable = 0;
  std::map<std::string, std::size_t> by_replica;
};

int Report(std::ostream& err, const Tally& tally, std::size_t total, std::size_t resumed,
           double seconds, bool interrupted, const std::string& warning) {
  err << "tether: sweep: " << tally.done + resumed << " of " << total << " runs done";
  if (resumed > 0) err << " (" << resumed << " from the output before)";
  err << "; " << tally.failed << " failed";
  if (tally.unavailable > 0) err << ", " << tally.unavailable << " not run (no replica answered)";
  if (seconds > 0 && tally.done > 0) {
    err << "; " << FormatShort(static_cast<double>(tally.done) / seconds, 3) << " runs/s";
  }
  if (!tally.by_replica.empty()) {
    err << "; by replica:";
    for (const auto& [replica, count] : tally.by_replica) err << ' ' << replica << " " << count;
  }
  err << '\n';
  if (!warning.empty()) err << "tether: sweep: trajectories: " << warning << '\n';
  if (interrupted) {
    err << "tether: sweep: interrupted; the finished rows are kept (--resume runs the rest)\n";
    return kExitInterrupted;
  }
  if (tally.unavailable > 0) return kExitServerUnreachable;
  return tally.failed > 0 ? kExitSimulationFailed : kExitOk;
}

// The client of the sweep: a balanced channel to the target, or an embedded server.
struct SweepClient {
  std::unique_ptr<Connection> embedded;
  std::unique_ptr<client::Client> remote;
  client::Client& get() { return remote != nullptr ? *remote : embedded->client(); }
};

bool OpenClient(const std::string& target, const client::ClientOptions& options,
                SweepClient* client, std::string* why) {
  if (target.empty()) {
    client->embedded = Connection::Open("", options, why);
    if (client->embedded == nullptr) *why = "cannot start the embedded server: " + *why;
    return client->embedded != nullptr;
  }
  ReplicaTarget resolved;
  if (!ResolveReplicaTarget(target, &resolved, why)) {
    *why = "--server: " + *why;
    return false;
  }
  auto channel = CreateReplicaChannel(resolved, options);
  // Up to 5 s: a replica that is not up by then is one the sweep does without.
  WarmUpReplicas(*channel, resolved, std::chrono::seconds(5));
  client->remote = std::make_unique<client::Client>(channel, options);
  return true;
}

// Checks everything the user gave; false with every problem listed.
bool Prepare(const SweepCommandOptions& options, SweepDesign* design, v1::SimulateRequest* base,
             std::vector<std::string>* problems) {
  std::string why;
  if (!options.runner.IsValid(&why)) problems->push_back(why);
  if (options.resume && options.output_file.empty()) {
    problems->push_back("--resume needs --output FILE (the rows to complete)");
  }
  CheckStats(options.stats, problems);
  BuildSweepDesign(options.design, design, problems);
  BuildSimulateRequest(options.run, base, problems);
  for (const std::string& name : design->names) {
    if (base->parameters().contains(name)) {
      problems->push_back("--set '" + name + "': the parameter is also swept");
    }
  }
  return problems->empty();
}

}  // namespace

void AddSweepOptions(CLI::App* sweep, SweepCommandOptions* o, std::string* format) {
  SweepDesignOptions& d = o->design;
  sweep
      ->add_option("--grid", d.grid,
                   "Swept parameter NAME=START:STOP:N: N levels from START to STOP inclusive "
                   "(repeatable; full factorial, the first factor slowest)")
      ->allow_extra_args(false);
  sweep->add_option("--values", d.values, "Swept parameter NAME=a,b,c: these levels (repeatable)")
      ->allow_extra_args(false);
  sweep
      ->add_option("--latin", d.latin,
                   "Latin-hypercube dimension NAME=LO:HI (repeatable; needs --samples)")
      ->allow_extra_args(false);
  sweep->add_option("--samples", d.samples, "Latin hypercube: number of samples (runs), >= 1")
      ->check(WholeNumberIn(1));
  sweep->add_option("--seed", d.seed, "Latin hypercube: seed of its SplitMix64 generator")
      ->check(WholeNumberIn(0))
      ->capture_default_str();
  sweep
      ->add_option("--from", d.from_file, "CSV of parameter sets: a header of names, a row per run")
      ->check(CLI::ExistingFile);
  sweep->add_option("--format", *format, "Rows as csv (default) or jsonl")
      ->check(CLI::IsMember({"csv", "jsonl"}));
  sweep->add_option("--output", o->output_file, "Write the rows to FILE instead of stdout");
  sweep->add_flag("--resume", o->resume,
                  "Keep the rows already in --output; run the missing ones and those that "
                  "failed transiently (UNAVAILABLE, RESOURCE_EXHAUSTED before the run started)");
  sweep->add_option("--trajectories", o->trajectories_dir,
                    "Also write every run's samples (as `run --format csv`) to DIR/run-NNNNNN.csv");
  sweep
      ->add_option("--stats", o->stats,
                   "Statistics per row besides cpu_seconds, comma-separated (tether.v1.Statistics "
                   "names)")
      ->delimiter(',')
      ->capture_default_str();
  sweep->add_option("--concurrency", o->runner.concurrency, "Runs in flight at once")
      ->check(WholeNumberIn(1))
      ->capture_default_str();
  sweep
      ->add_option("--max-attempts", o->runner.max_attempts,
                   "Calls per run while they fail transiently: UNAVAILABLE (each on the next "
                   "replica), or RESOURCE_EXHAUSTED before the run started (a busy server)")
      ->capture_default_str();
  sweep->footer(
      "--server takes HOST:PORT, a list HOST:PORT,HOST:PORT,... or dns:///NAME:PORT; calls are\n"
      "spread over the replicas by gRPC's round_robin. Ctrl-C keeps the finished rows (exit 130).");
}

int SweepCommand(const std::string& target, const SweepCommandOptions& options, std::ostream& out,
                 std::ostream& err) {
  SweepDesign design;
  v1::SimulateRequest base;
  std::vector<std::string> problems;
  if (!Prepare(options, &design, &base, &problems)) {
    for (const std::string& problem : problems) err << "tether: sweep: " << problem << '\n';
    return kExitUsageError;
  }
  const SweepColumns columns{design.names, {}, options.stats};
  std::string why;
  ExistingSweepOutput existing;
  if (options.resume && !ReadExisting(options, columns, design, &existing, &why)) {
    err << "tether: sweep: " << why << '\n';
    return kExitUsageError;
  }
  if (!options.trajectories_dir.empty()) {
    std::error_code error;
    std::filesystem::create_directories(options.trajectories_dir, error);
    if (error) {
      err << "tether: sweep: --trajectories: cannot create '" << options.trajectories_dir
          << "': " << error.message() << '\n';
      return kExitUsageError;
    }
  }
  RowsFile rows;
  SweepClient client;
  if (!rows.Open(options, out, &why) || !OpenClient(target, options.client, &client, &why)) {
    err << "tether: sweep: " << why << '\n';
    return kExitUsageError;
  }

  Tally tally;
  const std::vector<std::size_t> pending = PendingRuns(design.size(), existing, &tally.failed);
  const std::size_t kept = design.size() - pending.size();
  SweepOutput output(options.format, rows.stream(), columns, &existing);
  for (std::size_t run : pending) output.Redo(run);
  SweepProgress progress(err, options.progress, design.size(), kept,
                         TerminalColumns(STDERR_FILENO));
  FirstWarning warning;
  const RequestFactory request_of(base, design);
  SweepRunnerHooks hooks;
  hooks.request = request_of;
  hooks.on_done = [&](SweepRunOutcome outcome) {
    SweepRow row = RowOf(outcome, design, options.stats);
    ++tally.done;
    if (Failed(row)) ++tally.failed;
    if (!row.replica.empty()) ++tally.by_replica[row.replica];
    progress.RunDone(Failed(row));
    output.Add(std::move(row));
  };
  hooks.on_unavailable = [&](std::size_t run, const client::Error& error) {
    ++tally.unavailable;
    if (tally.unavailable == 1) {
      progress.Finish();
      err << "tether: sweep: run " << run << " not run after " << error.attempts
          << " attempts: " << error.ToString() << '\n';
    }
    output.Skip(run);
  };
  if (!options.trajectories_dir.empty()) {
    hooks.observer = [&](std::size_t run) -> std::unique_ptr<SweepRunObserver> {
      return std::make_unique<TrajectoryWriter>(
          options.run, TrajectoryPath(options.trajectories_dir, run), &warning);
    };
  }

  const auto start = std::chrono::steady_clock::now();
  {
    StopOnSignals stop_on_signals;
    RunSweep(client.get(), pending, options.runner, hooks, StopOnSignals::flag());
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  progress.Finish();
  output.Finish();
  if (!rows.Close(&why)) {
    err << "tether: sweep: " << why << '\n';
    return kExitUsageError;
  }
  return Report(err, tally, design.size(), kept, seconds, StopOnSignals::stop_requested(),
                warning.Get());
}

}  // namespace tether::cli
