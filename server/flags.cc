#include "tether/server/flags.h"

#include <CLI/CLI.hpp>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <istream>
#include <limits>
#include <ostream>
#include <string>

#include "auth.h"
#include "tether/version.h"

namespace tether::server {
namespace {

bool OnCommandLine(std::string_view flag, int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg(argv[i]);
    if (arg == flag || (arg.size() > flag.size() && arg.substr(0, flag.size()) == flag &&
                        arg[flag.size()] == '=')) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::span<const SpecLimitFlag> SpecLimitFlags() {
  static constexpr SpecLimitFlag kFlags[] = {
      {"--max-spec-bytes", "TETHER_MAX_SPEC_BYTES", &ServerConfig::max_spec_bytes,
       "bytes of one spec's JSON text"},
      {"--max-spec-variables", "TETHER_MAX_SPEC_VARIABLES", &ServerConfig::max_spec_variables,
       "state variables of one model a client sends (RegisterModel, Simulate) or --models-dir "
       "holds; the built-in catalog loads whatever the limit"},
      {"--max-spec-constraints", "TETHER_MAX_SPEC_CONSTRAINTS",
       &ServerConfig::max_spec_constraints,
       "constraints (equalities and inequalities) of one such model"},
      {"--max-spec-nodes", "TETHER_MAX_SPEC_NODES", &ServerConfig::max_spec_nodes,
       "expression nodes of one such model once its definitions are substituted (what "
       "compiling it costs grows with them)"},
  };
  return kFlags;
}

bool ApplySpecLimitEnvironment(ServerConfig* config, std::string* why) {
  for (const SpecLimitFlag& limit : SpecLimitFlags()) {
    const char* text = std::getenv(std::string(limit.env).c_str());
    if (text == nullptr || *text == '\0') continue;
    const std::string_view value(text);
    std::size_t parsed = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), parsed);
    if (error != std::errc() || end != value.data() + value.size() || parsed < 1) {
      *why = std::string(limit.env) + " = '" + std::string(value) + "' (" +
             std::string(limit.flag) + "): must be an integer >= 1";
      return false;
    }
    if (config != nullptr) config->*limit.field = parsed;
  }
  return true;
}

bool ServerFlags::Resolve(ServerConfig* out, std::string* why) const {
  *out = config;
  out->session_ttl = std::chrono::seconds(session_ttl_s);
  out->drain_grace = std::chrono::milliseconds(drain_grace_ms);
  out->tls_refresh = std::chrono::seconds(tls_refresh_s);
  out->log_rpcs = !quiet;
  if (!ParseLogLevel(log_level, &out->log_level)) {
    *why = "--log-level '" + log_level + "'; must be debug, info, warn or error";
    return false;
  }
  return out->IsValid(why);
}

void AddServerFlags(CLI::App* app, ServerFlags* flags) {
  // CLI::PositiveNumber would print its bound as a 300-digit double.
  const CLI::Range at_least_one(std::size_t{1}, std::numeric_limits<std::size_t>::max());
  ServerConfig& c = flags->config;
  app->add_option("--listen", c.listen, "host:port to listen on; port 0 picks a free one")
      ->envname("TETHER_LISTEN")->capture_default_str();
  app->add_option("--models-dir", c.models_dir, "directory of extra model specs (*.json)")
      ->envname("TETHER_MODELS_DIR");
  app->add_option("--max-sessions", c.max_sessions, "live sessions at most")
      ->envname("TETHER_MAX_SESSIONS")->capture_default_str()->check(at_least_one);
  app->add_option("--max-streams", c.max_streams, "concurrent streams at most")
      ->envname("TETHER_MAX_STREAMS")->capture_default_str()->check(at_least_one);
  app->add_option("--max-registered-models", c.max_registered_models,
                  "models registered at run time at most")
      ->envname("TETHER_MAX_REGISTERED_MODELS")->capture_default_str();
  for (const SpecLimitFlag& limit : SpecLimitFlags()) {
    app->add_option(std::string(limit.flag), c.*limit.field, std::string(limit.help))
        ->envname(std::string(limit.env))->capture_default_str()->check(at_least_one);
  }
  app->add_option("--default-frame-samples", c.default_frame_samples,
                  "samples per frame when a request says 0")
      ->envname("TETHER_DEFAULT_FRAME_SAMPLES")->capture_default_str();
  app->add_option("--max-frame-samples", c.max_frame_samples, "samples per frame at most")
      ->envname("TETHER_MAX_FRAME_SAMPLES")->capture_default_str();
  app->add_option("--max-steps-per-stream", c.max_steps_per_stream,
                  "accepted steps one stream may take")
      ->envname("TETHER_MAX_STEPS_PER_STREAM")->capture_default_str();
  app->add_option("--max-samples-per-stream", c.max_samples_per_stream,
                  "samples one stream may ask for ((t_end - t) / output_interval)")
      ->envname("TETHER_MAX_SAMPLES_PER_STREAM")->capture_default_str()->check(at_least_one);
  app->add_option("--session-ttl", flags->session_ttl_s, "seconds an idle session lives")
      ->envname("TETHER_SESSION_TTL")->capture_default_str();
  app->add_option("--drain-grace", flags->drain_grace_ms,
                  "milliseconds open streams may run on after SIGTERM/SIGINT")
      ->envname("TETHER_DRAIN_GRACE")->capture_default_str();
  // --workers: the name `tether serve` had before it shared these flags.
  app->add_option("--worker-threads,--workers", c.worker_threads,
                  "simulation threads; 0 = hardware concurrency")
      ->envname("TETHER_WORKER_THREADS")->capture_default_str();
  app->add_option("--replay-total-bytes", c.replay_total_bytes,
                  "bytes of replay history all sessions together keep (>= 1; default "
                  "268435456 = 256 MiB); beyond, the oldest delivered history of the least "
                  "recently used sessions is trimmed")
      ->envname("TETHER_REPLAY_TOTAL_BYTES")->capture_default_str()->check(at_least_one);
  app->add_flag("--quiet", flags->quiet, "no per-RPC log lines")->envname("TETHER_QUIET");
  app->add_option("--replica-name", c.replica_name,
                  "name sent to clients as x-tether-replica with every stream (default: the "
                  "host name)")
      ->envname("TETHER_REPLICA_NAME");
  app->add_option("--native-code", c.native_code,
                  "compile models to machine code (on/off); off runs the interpreter")
      ->envname("TETHER_NATIVE_CODE")->capture_default_str();
  app->add_option("--log-level", flags->log_level,
                  "lowest level of the lines written: debug, info (every RPC), warn (refused "
                  "and failed calls), error (the server's faults)")
      ->envname("TETHER_LOG_LEVEL")->capture_default_str()
      ->check(CLI::IsMember({"debug", "info", "warn", "error"}));
  app->add_option("--tls-cert", c.tls_cert_file,
                  "PEM certificate chain of the server: --listen speaks TLS only (with --tls-key)")
      ->envname("TETHER_TLS_CERT");
  app->add_option("--tls-key", c.tls_key_file, "PEM private key of --tls-cert")
      ->envname("TETHER_TLS_KEY");
  app->add_option("--tls-client-ca", c.tls_client_ca_file,
                  "PEM CA bundle of client certificates: mutual TLS, a client certificate it "
                  "signed is required")
      ->envname("TETHER_TLS_CLIENT_CA");
  app->add_option("--tls-refresh", flags->tls_refresh_s,
                  "seconds between re-reads of the TLS files (a rotated certificate is served "
                  "without a restart)")
      ->envname("TETHER_TLS_REFRESH")->capture_default_str();
  app->add_option("--health-listen", c.health_listen,
                  "host:port of a plaintext port serving grpc.health.v1 only, for probes that "
                  "speak no TLS (the kubelet's)")
      ->envname("TETHER_HEALTH_LISTEN");
  app->add_option("--metrics-listen", c.metrics_listen,
                  "host:port of a plaintext HTTP port serving Prometheus metrics at /metrics")
      ->envname("TETHER_METRICS_LISTEN");
  app->add_option("--http-listen", c.http_listen,
                  "host:port of the HTTP/1.1 listener: JSON calls and server-sent-event streams "
                  "(routes: GET /v1/models, POST /v1/sessions, GET /v1/sessions/ID:stream, ...)")
      ->envname("TETHER_HTTP_LISTEN");
  app->add_option("--http-cors-origin", c.http_cors_origins,
                  "origin (https://host:port) whose pages may call --http-listen (CORS); "
                  "repeatable, '*' = any; none by default")
      ->envname("TETHER_HTTP_CORS_ORIGINS")->delimiter(',');
  app->add_option("--token-file", c.token_file,
                  "file of bearer tokens, one line TENANT:SALT:HASH each (`tether-server "
                  "hash-token` writes one); every call then needs a token, and each tenant sees "
                  "only its own sessions and models; re-read when it changes")
      // Not TETHER_TOKEN_FILE: that is the client's (the CLI's file holding its own token), and
      // `tether serve` in a shell set up for the CLI would read a token as a token database.
      ->envname("TETHER_SERVER_TOKEN_FILE");
  app->add_flag("--allow-insecure-tokens", c.allow_insecure_tokens,
                "accept --token-file without TLS (tokens cross the network in the clear: "
                "loopback development only)")
      ->envname("TETHER_ALLOW_INSECURE_TOKENS");
  app->add_option("--tenant-max-sessions", c.tenant_max_sessions,
                  "live sessions of one tenant at most (with --token-file)")
      ->envname("TETHER_TENANT_MAX_SESSIONS")->capture_default_str()->check(at_least_one);
  app->add_option("--tenant-max-registered-models", c.tenant_max_registered_models,
                  "models one tenant may register at most (with --token-file)")
      ->envname("TETHER_TENANT_MAX_REGISTERED_MODELS")->capture_default_str()->check(at_least_one);
  app->add_option("--tenant-max-streams", c.tenant_max_streams,
                  "concurrent streams of one tenant at most (with --token-file)")
      ->envname("TETHER_TENANT_MAX_STREAMS")->capture_default_str()->check(at_least_one);
}

std::vector<std::string> EnvironmentSources(const CLI::App& app, const CLI::ParseError& error,
                                            int argc, const char* const* argv) {
  const std::string message = error.what();
  std::vector<std::string> lines;
  for (const CLI::Option* option : app.get_options()) {
    const std::string env = option->get_envname();
    const std::string name = option->get_name();
    const char* value = env.empty() ? nullptr : std::getenv(env.c_str());
    if (value == nullptr || message.find(name) == std::string::npos ||
        OnCommandLine(name, argc, argv)) {
      continue;
    }
    lines.push_back(name + " came from the environment variable " + env + "='" + value + "'");
  }
  return lines;
}

int ReportFlagError(const CLI::App& app, const CLI::ParseError& error, int argc,
                    const char* const* argv, std::string_view program) {
  // CLI11 exits 0 for --help and a code of its own per kind of error otherwise.
  if (app.exit(error) == 0) return 0;
  for (const std::string& line : EnvironmentSources(app, error, argc, argv)) {
    std::fprintf(stderr, "%.*s: %s\n", static_cast<int>(program.size()), program.data(),
                 line.c_str());
  }
  return 2;
}

int HashTokenCommand(const std::string& tenant, std::istream& in, std::ostream& out,
                     std::ostream& err) {
  std::string token;
  std::getline(in, token);
  if (!token.empty() && token.back() == '\r') token.pop_back();
  std::string why;
  const std::string line = HashTokenLine(tenant, token, &why);
  if (line.empty()) {
    err << "tether-server hash-token: " << why << " (the token is read from standard input)\n";
    return 2;
  }
  out << line << '\n';
  return 0;
}

std::string VersionText(std::string_view program) {
  return std::string(program) + " " + std::string(kVersion) + " (commit " +
         std::string(kGitCommit) + ", " + std::string(kBuildType) + ", " +
         std::string(kCompiler) + ")";
}

}  // namespace tether::server
