#include "cli/run_command.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <memory>

#include "cli/enum_text.h"
#include "cli/exit_codes.h"
#include "cli/exit_status.h"
#include "cli/number_format.h"
#include "cli/progress_bar.h"
#include "cli/run_output.h"
#include "cli/spec_text.h"
#include "cli/stop_signals.h"
#include "cli/terminal.h"

namespace tether::cli {
namespace {

bool ParseDouble(const std::string& text, double* value) {
  const char* end = text.data() + text.size();
  const auto result = std::from_chars(text.data(), end, *value);
  return result.ec == std::errc() && result.ptr == end && !text.empty();
}

}  // namespace

bool BuildSimulateRequest(const RunCommandOptions& options, v1::SimulateRequest* request,
                          std::vector<std::string>* problems) {
  if (!options.spec_file.empty()) {
    std::string text;
    std::string why;
    if (ReadSpecText(options.spec_file, &text, &why)) {
      request->set_spec_json(std::move(text));
    } else {
      problems->push_back("--spec: " + why);
    }
  } else {
    request->set_model(client::ModelName(options.model));
  }
  std::map<std::string, double> parameters;
  std::map<std::string, double> initial;
  ParseAssignments("--set", options.set, &parameters, problems);
  ParseAssignments("--init", options.init, &initial, problems);
  request->mutable_parameters()->insert(parameters.begin(), parameters.end());
  request->mutable_initial_values()->insert(initial.begin(), initial.end());
  for (const std::string& column : options.columns) request->add_columns(column);

  v1::SimulationOptions* o = request->mutable_options();
  o->set_method(options.method);
  if (options.t_end) o->set_t_end(*options.t_end);
  if (options.output_interval) o->set_output_interval(*options.output_interval);
  if (options.step) o->set_step(*options.step);
  if (options.rtol) o->set_rtol(*options.rtol);
  std::vector<std::string> atol_by_variable;
  for (const std::string& value : options.atol) {
    if (value.find('=') != std::string::npos) {
      atol_by_variable.push_back(value);
      continue;
    }
    char* end = nullptr;
    const double atol = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0') {
      problems->push_back("--atol '" + value + "': not a number nor NAME=VALUE");
    } else {
      o->set_atol(atol);
    }
  }
  std::map<std::string, double> atol_of;
  ParseAssignments("--atol", atol_by_variable, &atol_of, problems);
  o->mutable_atol_by_variable()->insert(atol_of.begin(), atol_of.end());
  if (options.max_step) o->set_max_step(*options.max_step);
  if (options.max_steps) o->set_max_steps(*options.max_steps);
  if (options.projection_tolerance) o->set_projection_tolerance(*options.projection_tolerance);
  if (options.max_newton_iterations) o->set_max_newton_iterations(*options.max_newton_iterations);
  if (options.max_initialization_iterations) {
    o->set_max_initialization_iterations(*options.max_initialization_iterations);
  }
  o->set_newton(EnumOption<v1::NewtonVariant>::Parse(options.newton));
  o->set_algebraic(EnumOption<v1::AlgebraicMode>::Parse(options.algebraic));
  for (const std::string& name : options.fixed) request->add_fixed(name);
  o->set_projection(EnumOption<v1::ProjectionMethod>::Parse(options.projection));
  o->set_metric(EnumOption<v1::ProjectionMetric>::Parse(options.metric));
  if (options.switch_detection) o->set_switch_detection(*options.switch_detection);
  if (options.switch_tolerance) o->set_switch_tolerance(*options.switch_tolerance);
  if (options.max_switches) o->set_max_switches(*options.max_switches);
  if (options.chattering_window) o->set_chattering_window(*options.chattering_window);
  return problems->empty();
}

namespace {

std::string InitializationText(const v1::InitializationReport& report) {
  if (report.changes_size() == 0) return {};
  if (!report.summary().empty()) return report.summary();
  std::string text = "initial state corrected:";
  for (const auto& change : report.changes()) {
    text += " " + change.name() + " " + FormatShort(change.given(), 6) + " -> " +
            FormatShort(change.corrected(), 10);
  }
  return text;
}

std::string PlotTitle(const RunCommandOptions& options) {
  std::string title = options.spec_file.empty() ? options.model : options.spec_file;
  title += " — " + (options.method.empty() ? std::string("dp5") : options.method);
  title += ", projection " + (options.projection.empty() ? std::string("sequential") : options.projection);
  return title;
}

void PrintSummary(std::ostream& err, const v1::StreamSummary& summary) {
  const v1::Statistics& s = summary.statistics();
  err << "tether: reached t = " << FormatShort(summary.t(), 8) << " s: " << summary.samples_sent()
      << " samples, " << s.steps() << " steps (" << s.rejected_steps() << " rejected), "
      << s.projection_iterations() << " projection iterations, max residual position "
      << FormatShort(summary.max_residual_position(), 3) << ", velocity "
      << FormatShort(summary.max_residual_velocity(), 3);
  if (s.non_finite_outputs() > 0) {
    err << ", " << s.non_finite_outputs() << " output(s) became non-finite (see the warnings)";
  }
  err << '\n';
  err << "tether: " << s.rhs_evaluations() << " right-hand side evaluations";
  if (s.jacobian_evaluations() > 0 || s.lu_factorizations() > 0) {
    err << ", " << s.jacobian_evaluations() << " Jacobians, " << s.lu_factorizations()
        << " LU factorizations, " << s.newton_iterations() << " Newton iterations";
  }
  err << ", " << FormatShort(s.cpu_seconds(), 3) << " s CPU\n";
}

// Runs with inequalities: how often the active set changed and how far samples left {c ≥ 0}.
void PrintSwitchSummary(std::ostream& err, const v1::StreamSummary& summary) {
  err << "tether: " << summary.statistics().switches() << " switches, max residual inequality "
      << FormatShort(summary.max_residual_inequality(), 3) << '\n';
}

// A run that ended early: names t and the cause.
int ReportFailure(std::ostream& err, const std::string& command, const client::StreamEnd& end) {
  if (end.summary.has_value() && end.summary->termination() != v1::TERMINATION_REACHED_END) {
    const v1::StreamSummary& summary = *end.summary;
    err << "tether: simulation failed at t = " << FormatShort(summary.t(), 10) << " ("
        << v1::Termination_Name(summary.termination()) << ", " << end.samples
        << " samples written): " << (summary.message().empty() ? end.error.message : summary.message())
        << '\n';
    return ExitCodeFor(end.error) == kExitServerUnreachable ? kExitServerUnreachable
                                                            : kExitSimulationFailed;
  }
  if (end.samples == 0) return ReportError(err, command, end.error);
  err << "tether: the stream broke after " << end.samples << " samples: " << end.error.ToString()
      << '\n';
  return ExitCodeFor(end.error) == kExitServerUnreachable ? kExitServerUnreachable
                                                          : kExitSimulationFailed;
}

// The stream's outcome on stderr; returns the exit code. A termination in `done` is success
// (a pause also names where it paused); every other one (chattering included) is a failed
// simulation, exit 1.
int ReportEnd(std::ostream& err, const std::string& command, const client::StreamEnd& end,
              std::span<const v1::Termination> done) {
  if (end.ok() && end.summary.has_value() &&
      std::find(done.begin(), done.end(), end.summary->termination()) != done.end()) {
    if (end.summary->termination() != v1::TERMINATION_REACHED_END) {
      err << "tether: " << command << ": " << end.summary->message() << '\n';
    }
    PrintSummary(err, *end.summary);
    return kExitOk;
  }
  if (end.ok() && !end.summary.has_value()) {
    err << "tether: " << command << ": the stream ended without a summary after " << end.samples
        << " samples\n";
    return kExitSimulationFailed;
  }
  return ReportFailure(err, command, end);
}

}  // namespace

void ParseAssignments(const std::string& flag, const std::vector<std::string>& assignments,
                      std::map<std::string, double>* out, std::vector<std::string>* problems) {
  for (const std::string& assignment : assignments) {
    const auto equals = assignment.find('=');
    if (equals == std::string::npos || equals == 0) {
      problems->push_back(flag + " '" + assignment + "': expected NAME=VALUE");
      continue;
    }
    const std::string name = assignment.substr(0, equals);
    const std::string text = assignment.substr(equals + 1);
    double value = 0;
    if (!ParseDouble(text, &value)) {
      problems->push_back(flag + " '" + assignment + "': '" + text + "' is not a number");
      continue;
    }
    if (!out->emplace(name, value).second) {
      problems->push_back(flag + " '" + assignment + "': '" + name + "' is given twice");
    }
  }
}

int WriteStream(const RunCommandOptions& options, const std::string& command,
                const std::string& title, const StreamCall& call,
                std::span<const v1::Termination> done, std::ostream& out, std::ostream& err) {
  RunOutput output(options, out);
  std::string output_problem;
  std::unique_ptr<ProgressBar> progress;
  client::StreamHandlers handlers;
  handlers.on_header = [&](const v1::StreamHeader& header, const client::StreamColumns& columns) {
    // A session's stream carries its last initialization, reported by the stream that starts
    // at sample 0; later changes come as EVENT_KIND_UPDATED.
    const std::string report = InitializationText(header.initialization());
    if (!report.empty() && header.first_sample_index() == 0) err << "tether: " << report << '\n';
    progress = std::make_unique<ProgressBar>(err, options.progress, header.t_start(), header.t_end(),
                                             TerminalColumns(STDERR_FILENO));
    output.Begin(title, header, columns, &output_problem);
  };
  handlers.on_event = [&](const v1::Event& event) {
    if (event.kind() == v1::EVENT_KIND_WARNING) {
      err << "tether: warning: " << event.message() << '\n';
    }
    // What changed the stream under way: a method switch, a live change, lost samples.
    if (event.kind() == v1::EVENT_KIND_STIFFNESS_DETECTED ||
        event.kind() == v1::EVENT_KIND_METHOD_SWITCHED || event.kind() == v1::EVENT_KIND_UPDATED ||
        event.kind() == v1::EVENT_KIND_SAMPLES_LOST) {
      err << "tether: " << event.message() << '\n';
    }
  };
  double last_t = 0;
  std::uint64_t rows = 0;
  // Ctrl-C: stop between rows, so that the output holds only whole rows, and at once while
  // the server is still computing a frame.
  handlers.stop = &StopOnSignals::flag();
  handlers.on_sample = [&](const client::Sample& sample) {
    if (!output_problem.empty()) return false;  // stop: nowhere to write
    output.Row(sample);
    ++rows;
    last_t = sample.t;
    progress->Update(sample.t, sample.index + 1);
    return true;
  };
  // One rule for run, stream and view: whoever reads the output sees each frame as it comes.
  handlers.on_frame = [&] { output.Flush(); };
  client::StreamEnd end;
  bool interrupted = false;
  {
    StopOnSignals stop_on_signals;
    end = call(handlers);
    interrupted = StopOnSignals::stop_requested();
  }
  if (progress != nullptr) progress->Finish();
  output.End();

  if (!output_problem.empty()) {
    err << "tether: " << command << ": " << output_problem << '\n';
    return kExitUsageError;
  }
  if (interrupted && end.cancelled_by_handler) {
    err << "tether: " << command << ": interrupted at t = " << FormatShort(last_t, 10) << " s after "
        << rows << " samples (every row written is whole)\n";
    return kExitInterrupted;
  }
  const int code = ReportEnd(err, command, end, done);
  if (output.has_inequalities() && end.summary.has_value()) PrintSwitchSummary(err, *end.summary);
  return code;
}

int RunCommand(client::Client& client, const RunCommandOptions& options, std::ostream& out,
               std::ostream& err) {
  v1::SimulateRequest request;
  std::vector<std::string> problems;
  if (!BuildSimulateRequest(options, &request, &problems)) {
    for (const std::string& problem : problems) err << "tether: run: " << problem << '\n';
    return kExitUsageError;
  }
  constexpr v1::Termination kDone[] = {v1::TERMINATION_REACHED_END};
  return WriteStream(
      options, "run", PlotTitle(options),
      [&](const client::StreamHandlers& handlers) { return client.Simulate(request, handlers); },
      kDone, out, err);
}

}  // namespace tether::cli
