#include "cli/app.h"

#include "cli/enum_text.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "cli/connection.h"
#include "cli/count_validator.h"
#include "cli/exit_codes.h"
#include "cli/model_commands.h"
#include "cli/progress_bar.h"
#include "cli/run_command.h"
#include "cli/session_commands.h"
#include "cli/stream_commands.h"
#include "cli/sweep_command.h"
#include "tether/server/flags.h"
#include "tether/server/server.h"
#include "tether/simulate/simulation.h"

namespace tether::cli {
namespace {

// Where `sessions` and `health` look when neither --server nor TETHER_SERVER is given: the
// address `tether serve` and tether-server listen on by default.
constexpr const char* kDefaultServer = "127.0.0.1:50051";

// The local server's address: the loopback address of the port in TETHER_LISTEN (the variable
// tether-server reads, so that a container's HEALTHCHECK follows the port it is given), else
// kDefaultServer. "0.0.0.0:8080" → "127.0.0.1:8080", "[::]:8080" → "[::1]:8080".
std::string LocalServer() {
  const char* listen = std::getenv("TETHER_LISTEN");
  if (listen == nullptr) return kDefaultServer;
  const std::string address(listen);
  const std::size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon + 1 == address.size()) return kDefaultServer;
  const std::string port = address.substr(colon + 1);
  if (port.find_first_not_of("0123456789") != std::string::npos || port == "0") return kDefaultServer;
  return (address.front() == '[' ? "[::1]:" : "127.0.0.1:") + port;
}

// What `run` and `sweep` simulate: a named model or an inline spec. (A session runs a
// registered model: `sessions create` has MODEL alone.)
void AddModelSource(CLI::App* run, RunCommandOptions* o) {
  run->add_option("MODEL", o->model, "Model name (`tether models` lists them)");
  run->add_option("--spec", o->spec_file,
                  "Run this JSON spec inline instead of a named model (- reads standard input)");
}

// The options of one simulation, shared by `run`, `sweep` (every run of a sweep takes them) and
// `sessions create`.
void AddSimulationOptions(CLI::App* run, RunCommandOptions* o) {
  run->add_option("--t-end", o->t_end, "End time [s] (default: the model's suggestion, else 10)");
  run->add_option("--output-interval", o->output_interval,
                  "Sample spacing [s]; 0 = every accepted step (default: the model's, else 0.01)");
  const auto methods = simulate::MethodNames();
  run->add_option("--method", o->method,
                  "Stepper (default dp5); radau5 and bdf for stiff problems, auto switches "
                  "between dp5 and radau5 as stiffness comes and goes")
      ->check(CLI::IsMember(std::vector<std::string>(methods.begin(), methods.end())));
  run->add_option("--step", o->step, "Fixed step, or first step of adaptive methods [s]");
  run->add_option("--rtol", o->rtol, "Relative tolerance of adaptive methods (default 1e-8)");
  run->add_option("--atol", o->atol,
                  "Absolute tolerance of adaptive methods (default 1e-10); NAME=VALUE sets it "
                  "for one state variable (repeatable)")
      ->allow_extra_args(false);
  run->add_option("--max-step", o->max_step, "Largest step [s]; 0 = unbounded (default)");
  run->add_option("--max-steps", o->max_steps,
                  "End the run after this many accepted steps (default 1e8), or as soon as its "
                  "pace shows it cannot reach --t-end within them")
      ->check(WholeNumberIn(1));
  run->add_option("--projection-tolerance", o->projection_tolerance,
                  "Scaled residual at which the Newton projection stops (default 1e-12)");
  run->add_option("--newton-iterations", o->max_newton_iterations,
                  "Newton iterations of a projection at most (default 10)");
  run->add_option("--init-iterations", o->max_initialization_iterations,
                  "Newton iterations of consistent initialization at most (default 50)");
  run->add_option("--newton", o->newton, "Projection Newton variant (default full)")
      ->check(CLI::IsMember(EnumOption<v1::NewtonVariant>::Words()));
  run->add_option("--algebraic", o->algebraic,
                  "Index-1/2 models: solve the algebraic variables in every stage (solve, "
                  "default) or integrate them as an ODE with projection (ode)")
      ->check(CLI::IsMember(EnumOption<v1::AlgebraicMode>::Words()));
  run->add_option("--fixed", o->fixed,
                  "A state initialization must not move (repeatable)")
      ->allow_extra_args(false);
  run->add_option("--projection", o->projection, "Projection onto the invariants (default sequential)")
      ->check(CLI::IsMember(EnumOption<v1::ProjectionMethod>::Words()));
  run->add_option("--metric", o->metric,
                  "Projection metric (default euclidean; weighted: the error control's own "
                  "norm)")
      ->check(CLI::IsMember(EnumOption<v1::ProjectionMetric>::Words()));
  run->add_option("--switch-detection", o->switch_detection,
                  "Inequality models: on = locate each switch and end the step there (keeps the "
                  "method's order); off = only project each step onto c >= 0 (first order) "
                  "(default on)")
      ->check(CLI::IsMember({"on", "off"}));
  run->add_option("--switch-tolerance", o->switch_tolerance,
                  "Inequality models: locate switch times to within this [s], >= 0; 0 = automatic, "
                  "rtol times the step (default)");
  run->add_option("--max-switches", o->max_switches,
                  "Inequality models: more switches than this within --chattering-window end the "
                  "run as chattering (exit 1), >= 1 (default 20)");
  run->add_option("--chattering-window", o->chattering_window,
                  "Inequality models: the chattering guard's window [s], > 0 (default 1e-6)");
  run->add_option("--set", o->set, "Parameter override NAME=VALUE (repeatable)")
      ->allow_extra_args(false);
  run->add_option("--init", o->init, "Initial value NAME=VALUE (repeatable; initialization may correct it)")
      ->allow_extra_args(false);
  run->add_option("--columns", o->columns, "Columns to stream, comma-separated (default all)")
      ->delimiter(',')
      ->allow_extra_args(false);
}

// Where and how `run`, `stream` and `view` write the samples.
void AddOutputOptions(CLI::App* command, RunCommandOptions* o, std::string* format) {
  command->add_option("--format", *format,
                      "Output format (default: table on a terminal, csv otherwise)")
      ->check(CLI::IsMember({"table", "csv", "jsonl"}));
  command->add_option("--output", o->output_file, "Write the samples to FILE instead of stdout");
  command->add_option("--plot", o->plot_file,
                      "Also write an SVG plot (values, and residuals on a log axis; switches of "
                      "inequality models as dashed lines)");
}

void AddRunOptions(CLI::App* run, RunCommandOptions* o, std::string* format) {
  AddModelSource(run, o);
  AddSimulationOptions(run, o);
  AddOutputOptions(run, o, format);
}

// The StreamStatesRequest options `stream` and `view` share: columns, frames, where to start
// and the lossless stop conditions.
void AddStreamOptions(CLI::App* command, StreamCommandOptions* o, std::string* session_key,
                      const char* session_key_help) {
  command->add_option("SESSION", o->session, "Session name or id")->required();
  command->add_option("--session-key", *session_key, session_key_help);
  command->add_option("--columns", o->columns, "Columns to write, comma-separated (default all)")
      ->delimiter(',')
      ->allow_extra_args(false);
  command
      ->add_option("--frame-samples", o->frame_samples,
                   "Samples per frame on the wire (default: the server's, 256; `stream "
                   "--realtime`: those due within 1/30 s of wall time)")
      ->check(WholeNumberIn(0, std::numeric_limits<std::uint32_t>::max()));
  command->add_option("--from-index", o->from_index,
                      "First sample to write, replayed from the server's history if already "
                      "computed (stream: default the session's next sample; view: the session's "
                      "current end)")
      ->check(WholeNumberIn(0));
  command->add_option("--max-samples", o->max_samples,
                      "Pause after this many samples, >= 1: the stream ends at a frame boundary "
                      "with nothing lost, and the next `tether stream` continues there")
      ->check(WholeNumberIn(1));
  command->add_option("--stop-time", o->stop_time,
                      "Pause after the first sample with t >= this [s] (moves neither the output "
                      "grid nor a step: the samples equal an uninterrupted run's)");
}

OutputFormat FormatFor(const std::string& name, const std::string& output_file) {
  if (name == "table") return OutputFormat::kTable;
  if (name == "jsonl") return OutputFormat::kJsonl;
  if (name == "csv") return OutputFormat::kCsv;
  const bool terminal = output_file.empty() && isatty(fileno(stdout)) != 0;
  return terminal ? OutputFormat::kTable : OutputFormat::kCsv;
}

int ServeCommand(const server::ServerFlags& flags, std::ostream& err) {
  server::ServerConfig config;
  if (std::string why; !flags.Resolve(&config, &why)) {
    err << "tether: serve: " << why << '\n';
    return kExitUsageError;
  }
  return server::RunServer(config);
}

std::unique_ptr<Connection> Open(const std::string& target, const client::ClientOptions& options,
                                 std::ostream& err) {
  std::string error;
  auto connection = Connection::Open(target, options, &error);
  if (connection == nullptr) err << "tether: cannot start the embedded server: " << error << '\n';
  return connection;
}

}  // namespace

int RunCli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{
      "tether: simulate differential-algebraic equations by projection.\n"
      "Without --server (or TETHER_SERVER), run/models/describe/register start an embedded server."};
  app.footer(kExitCodeHelp);
  app.set_version_flag("--version", server::VersionText("tether"));
  app.require_subcommand(1);
  app.fallthrough();
  std::string target;
  app.add_option("--server", target, "HOST:PORT of a running tether server")->envname("TETHER_SERVER");
  CallFlags call_flags;
  app.add_option("--metadata", call_flags.metadata,
                 "gRPC metadata KEY=VALUE sent with every call (repeatable; TETHER_METADATA: "
                 "comma-separated), e.g. a tenant header")
      ->envname("TETHER_METADATA")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("--token", call_flags.token, "Bearer token sent as `authorization: Bearer TOKEN`")
      ->envname("TETHER_TOKEN");
  app.add_option("--token-file", call_flags.token_file,
                 "File whose first non-empty line is the bearer token (instead of --token, "
                 "which `ps` shows)")
      ->envname("TETHER_TOKEN_FILE");
  app.add_flag("--tls", call_flags.tls, "Connect with TLS, trusting the system's root CAs")
      ->envname("TETHER_TLS");
  app.add_option("--tls-ca", call_flags.tls_ca, "PEM CAs that sign the server's certificate (implies --tls)")
      ->envname("TETHER_TLS_CA");
  app.add_option("--tls-client-cert", call_flags.tls_client_cert,
                 "PEM client certificate chain, for mutual TLS (with --tls-client-key)")
      ->envname("TETHER_TLS_CLIENT_CERT");
  app.add_option("--tls-client-key", call_flags.tls_client_key, "PEM key of --tls-client-cert")
      ->envname("TETHER_TLS_CLIENT_KEY");
  app.add_option("--tls-server-name", call_flags.tls_server_name,
                 "Name the server's certificate must carry, if not --server's host")
      ->envname("TETHER_TLS_SERVER_NAME");

  server::ServerFlags serve_flags;
  CLI::App* serve = app.add_subcommand(
      "serve", "Run the gRPC server: tether-server's flags and TETHER_* environment variables");
  server::AddServerFlags(serve, &serve_flags);
  // CLI11 reads and checks a subcommand's environment variables even when another command
  // runs, unless the subcommand has a parse-complete callback: then only when it is the one
  // given. Without it a server's bad TETHER_MAX_SESSIONS would fail `tether models`.
  serve->parse_complete_callback([] {});

  bool json = false;
  const char* const kJsonHelp = "Print the API's resources as JSON (proto field names, every field)";
  CLI::App* models = app.add_subcommand("models", "List the models (models delete NAME removes one)");
  models->require_subcommand(0, 1);
  models->add_flag("--json", json, kJsonHelp);
  std::string model_name;
  CLI::App* models_delete = models->add_subcommand("delete", "Remove a registered model");
  models_delete->add_option("MODEL", model_name, "Model name")->required();
  CLI::App* describe = app.add_subcommand(
      "describe", "Show a model's variables, parameters, invariants, inequalities and columns");
  describe->add_option("MODEL", model_name, "Model name")->required();
  describe->add_flag("--json", json, kJsonHelp);
  std::string spec_file;
  bool replace = false;
  CLI::App* reg = app.add_subcommand("register", "Validate a JSON spec and register it");
  reg->add_option("FILE", spec_file, "JSON spec file (- reads standard input)")->required();
  reg->add_flag("--replace", replace, "Replace a registered model of the same name");
  CLI::App* validate = app.add_subcommand(
      "validate", "Check a JSON spec with every rule the server applies, without a server");
  validate->add_option("FILE", spec_file, "JSON spec file (- reads standard input)")->required();

  RunCommandOptions run_options;
  std::string format;
  CLI::App* run = app.add_subcommand("run", "Simulate a model and write its samples");
  AddRunOptions(run, &run_options, &format);

  SweepCommandOptions sweep_options;
  std::string sweep_format;
  CLI::App* sweep = app.add_subcommand(
      "sweep", "Run a model over a parameter design (grid, values, Latin hypercube, CSV): one row per run");
  AddModelSource(sweep, &sweep_options.run);
  AddSimulationOptions(sweep, &sweep_options.run);
  AddSweepOptions(sweep, &sweep_options, &sweep_format);

  std::string session_name;
  CLI::App* sessions = app.add_subcommand(
      "sessions", std::string("Sessions of a running server (default ") + kDefaultServer +
                      ", or TETHER_LISTEN's port on loopback)");
  sessions->require_subcommand(0, 1);
  sessions->add_flag("--json", json, kJsonHelp);
  CLI::App* sessions_list = sessions->add_subcommand("list", "List sessions (the default)");
  sessions_list->add_flag("--json", json, kJsonHelp);
  std::string session_key;
  const char* const kSessionKeyHelp =
      "The session's routing key (x-tether-session) behind the session proxy: its root "
      "session's id, for a fork (default: SESSION's own id)";
  CLI::App* sessions_show = sessions->add_subcommand("show", "Show one session");
  sessions_show->add_option("SESSION", session_name, "Session name or id")->required();
  sessions_show->add_option("--session-key", session_key, kSessionKeyHelp);
  sessions_show->add_flag("--json", json, kJsonHelp);
  CLI::App* sessions_delete = sessions->add_subcommand("delete", "Delete a session");
  sessions_delete->add_option("SESSION", session_name, "Session name or id")->required();
  sessions_delete->add_option("--session-key", session_key, kSessionKeyHelp);
  bool control_pause = false;
  std::vector<std::string> control_set, control_values;
  CLI::App* sessions_control = sessions->add_subcommand(
      "control", "Steer a session while it streams: pause it, or change parameters and values");
  sessions_control->add_option("SESSION", session_name, "Session name or id")->required();
  sessions_control->add_option("--session-key", session_key, kSessionKeyHelp);
  sessions_control->add_flag("--pause", control_pause,
                             "End the open stream at its next frame boundary (nothing lost)");
  sessions_control->add_option("--set", control_set, "Parameter NAME=VALUE (repeatable)");
  sessions_control->add_option("--value", control_values,
                               "State value NAME=VALUE (repeatable; the others adapt to it)");
  std::string session_id;
  RunCommandOptions create_options;
  CLI::App* sessions_create = sessions->add_subcommand(
      "create", "Create a session of a registered model (then `tether stream SESSION`)");
  sessions_create
      ->add_option("MODEL", create_options.model,
                   "Registered model name (`tether models` lists them; `tether register FILE` "
                   "adds one)")
      ->required();
  AddSimulationOptions(sessions_create, &create_options);
  sessions_create->add_option("--id", session_id,
                              "Session id, [a-z][a-z0-9-]{0,62} (default: chosen by the client)");

  StreamCommandOptions stream_options;
  std::string stream_format;
  CLI::App* stream = app.add_subcommand(
      "stream", std::string("Advance a session of a running server and write its samples as `run` "
                            "does (default server ") +
                    kDefaultServer + "); exit 0 at the horizon or a pause");
  AddStreamOptions(stream, &stream_options, &session_key, kSessionKeyHelp);
  stream->add_option("--t-end", stream_options.t_end,
                     "Stream until this time [s] (default: the session's horizon)");
  stream->add_flag("--indefinite", stream_options.indefinite,
                   "No horizon: stream until a stop condition, `tether sessions control SESSION "
                   "--pause` or Ctrl-C");
  stream->add_option("--output-interval", stream_options.output_interval,
                     "Sample spacing [s]; 0 = every accepted step (default: the session's)");
  stream->add_option("--realtime", stream_options.realtime_factor,
                     "Simulated seconds per wall-clock second, >= 0; 0 = as fast as possible");
  AddOutputOptions(stream, &stream_options.output, &stream_format);

  StreamCommandOptions view_options;
  std::string view_format;
  CLI::App* view = app.add_subcommand(
      "view", "Follow a session read-only: write the samples its driving stream computes, until "
              "a stop condition, Ctrl-C or the session's deletion (exit 0)");
  AddStreamOptions(view, &view_options, &session_key, kSessionKeyHelp);
  AddOutputOptions(view, &view_options.output, &view_format);

  CLI::App* health = app.add_subcommand(
      "health", std::string("Exit 0 iff the server is SERVING (default ") + kDefaultServer +
                    ", or TETHER_LISTEN's port on loopback)");
  std::string health_service;
  health->add_option("--service", health_service,
                     "grpc.health.v1 service name to ask for (\"\" = the whole server; the "
                     "server also serves tether.v1.SimulationService)");

  CLI::App* version = app.add_subcommand(
      "version", "This binary's version; with --server, also the server's version, build and limits");
  version->add_flag("--json", json, kJsonHelp);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e, out, err);
    if (serve->parsed()) {
      for (const std::string& line : server::EnvironmentSources(*serve, e, argc, argv)) {
        err << "tether serve: " << line << '\n';
      }
    }
    return code == 0 ? kExitOk : kExitUsageError;
  }

  if (serve->parsed()) return ServeCommand(serve_flags, err);
  client::ClientOptions client_options;
  if (std::string why; !CliClientOptions(call_flags, &client_options, &why)) {
    err << "tether: " << why << '\n';
    return kExitUsageError;
  }
  if (run->parsed() && run_options.model.empty() == run_options.spec_file.empty()) {
    err << "tether: run: give exactly one of MODEL or --spec FILE\n" << run->help();
    return kExitUsageError;
  }
  if (sweep->parsed()) {  // a sweep opens its own channel: --server may list several replicas
    if (sweep_options.run.model.empty() == sweep_options.run.spec_file.empty()) {
      err << "tether: sweep: give exactly one of MODEL or --spec FILE\n" << sweep->help();
      return kExitUsageError;
    }
    sweep_options.format = sweep_format == "jsonl" ? SweepFormat::kJsonl : SweepFormat::kCsv;
    sweep_options.progress = StderrIsTerminal();
    sweep_options.client = client_options;
    return SweepCommand(target, sweep_options, out, err);
  }
  if (version->parsed() && target.empty()) return VersionCommand(nullptr, json, out, err);
  const bool remote_only = sessions->parsed() || health->parsed() || stream->parsed() || view->parsed();
  const std::string local_server = LocalServer();
  // validate never talks to --server: the spec is checked by an embedded server's rules.
  const std::string where = validate->parsed()                   ? std::string()
                            : remote_only && target.empty() ? local_server
                                                            : target;
  // A bad model-size variable is the user's to mend, not a server failure.
  if (std::string why; where.empty() && !server::ApplySpecLimitEnvironment(nullptr, &why)) {
    err << "tether: " << why << '\n';
    return kExitUsageError;
  }
  auto connection = Open(where, client_options, err);
  if (connection == nullptr) return kExitSimulationFailed;

  if (version->parsed()) return VersionCommand(connection.get(), json, out, err);
  if (validate->parsed()) return ValidateCommand(*connection, spec_file, out, err);
  if (models_delete->parsed()) return ModelsDeleteCommand(*connection, model_name, out, err);
  if (models->parsed()) return ModelsCommand(*connection, json, out, err);
  if (describe->parsed()) return DescribeCommand(*connection, model_name, json, out, err);
  if (reg->parsed()) return RegisterCommand(*connection, spec_file, replace, out, err);
  if (run->parsed()) {
    run_options.format = FormatFor(format, run_options.output_file);
    run_options.progress = StderrIsTerminal();
    return RunCommand(connection->client(), run_options, out, err);
  }
  if (health->parsed()) return HealthCommand(*connection, health_service, out, err);
  if (!session_key.empty() && !session_name.empty()) {
    connection->client().SetRoutingKey(session_name, session_key);
  }
  if (sessions_show->parsed()) return SessionsShowCommand(*connection, session_name, json, out, err);
  if (sessions_delete->parsed()) return SessionsDeleteCommand(*connection, session_name, out, err);
  if (sessions_create->parsed()) {
    return SessionsCreateCommand(*connection, create_options, session_id, out, err);
  }
  if (sessions_control->parsed()) {
    return SessionsControlCommand(*connection, session_name, control_pause, control_set,
                                  control_values, out, err);
  }
  // `stream` and `view` write like `run`: the format and the progress bar are decided here.
  auto prepare = [&](StreamCommandOptions* options, const std::string& format_name) {
    if (!session_key.empty()) connection->client().SetRoutingKey(options->session, session_key);
    options->output.format = FormatFor(format_name, options->output.output_file);
    options->output.progress = StderrIsTerminal();
  };
  if (stream->parsed()) {
    prepare(&stream_options, stream_format);
    return StreamCommand(*connection, stream_options, out, err);
  }
  if (view->parsed()) {
    prepare(&view_options, view_format);
    return ViewCommand(*connection, view_options, out, err);
  }
  (void)sessions_list;
  return SessionsListCommand(*connection, json, out, err);
}

}  // namespace tether::cli
