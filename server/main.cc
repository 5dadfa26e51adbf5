// tether-server: parses flags (each also read from a TETHER_* environment variable) into a
// ServerConfig and runs the server until SIGTERM/SIGINT.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string_view>

#include "tether/server/server.h"

namespace {

bool OnCommandLine(std::string_view flag, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg(argv[i]);
    if (arg == flag || (arg.size() > flag.size() && arg.substr(0, flag.size()) == flag &&
                        arg[flag.size()] == '=')) {
      return true;
    }
  }
  return false;
}

// CLI11 names the option of a bad value, not the environment variable it came from: for an
// option the message names that was not on the command line, the variable is added.
int ReportParseError(const CLI::App& app, const CLI::ParseError& error, int argc, char** argv) {
  const int code = app.exit(error);
  const std::string message = error.what();
  for (const CLI::Option* option : app.get_options()) {
    const std::string env = option->get_envname();
    const std::string name = option->get_name();
    const char* value = env.empty() ? nullptr : std::getenv(env.c_str());
    if (value == nullptr || message.find(name) == std::string::npos ||
        OnCommandLine(name, argc, argv)) {
      continue;
    }
    std::fprintf(stderr, "tether-server: %s came from the environment variable %s='%s'\n",
                 name.c_str(), env.c_str(), value);
  }
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  // CLI::PositiveNumber would print its bound as a 300-digit double.
  const CLI::Range kAtLeastOne(std::size_t{1}, std::numeric_limits<std::size_t>::max());
  tether::server::ServerConfig config;
  std::int64_t ttl_seconds =
      std::chrono::duration_cast<std::chrono::seconds>(config.session_ttl).count();
  std::int64_t grace_ms = config.drain_grace.count();
  bool quiet = false;

  CLI::App app{"tether-server: the tether gRPC simulation service (tether.v1.SimulationService, "
               "grpc.health.v1, reflection)"};
  app.add_option("--listen", config.listen, "host:port to listen on; port 0 picks a free one")
      ->envname("TETHER_LISTEN")->capture_default_str();
  app.add_option("--models-dir", config.models_dir, "directory of extra model specs (*.json)")
      ->envname("TETHER_MODELS_DIR");
  app.add_option("--max-sessions", config.max_sessions, "live sessions at most")
      ->envname("TETHER_MAX_SESSIONS")->capture_default_str()->check(kAtLeastOne);
  app.add_option("--max-streams", config.max_streams, "concurrent streams at most")
      ->envname("TETHER_MAX_STREAMS")->capture_default_str()->check(kAtLeastOne);
  app.add_option("--max-registered-models", config.max_registered_models,
                 "models registered at run time at most")
      ->envname("TETHER_MAX_REGISTERED_MODELS")->capture_default_str();
  app.add_option("--max-spec-bytes", config.max_spec_bytes, "bytes of one spec's JSON text")
      ->envname("TETHER_MAX_SPEC_BYTES")->capture_default_str()->check(kAtLeastOne);
  app.add_option("--default-frame-samples", config.default_frame_samples,
                 "samples per frame when a request says 0")
      ->envname("TETHER_DEFAULT_FRAME_SAMPLES")->capture_default_str();
  app.add_option("--max-frame-samples", config.max_frame_samples, "samples per frame at most")
      ->envname("TETHER_MAX_FRAME_SAMPLES")->capture_default_str();
  app.add_option("--max-steps-per-stream", config.max_steps_per_stream,
                 "accepted steps one stream may take")
      ->envname("TETHER_MAX_STEPS_PER_STREAM")->capture_default_str();
  app.add_option("--session-ttl", ttl_seconds, "seconds an idle session lives")
      ->envname("TETHER_SESSION_TTL")->capture_default_str();
  app.add_option("--drain-grace", grace_ms,
                 "milliseconds open streams may run on after SIGTERM/SIGINT")
      ->envname("TETHER_DRAIN_GRACE")->capture_default_str();
  app.add_option("--worker-threads", config.worker_threads,
                 "simulation threads; 0 = hardware concurrency")
      ->envname("TETHER_WORKER_THREADS")->capture_default_str();
  app.add_option("--replay-total-bytes", config.replay_total_bytes,
                 "bytes of replay history all sessions together keep (>= 1; default "
                 "268435456 = 256 MiB); beyond, the oldest delivered history of the least "
                 "recently used sessions is trimmed")
      ->envname("TETHER_REPLAY_TOTAL_BYTES")->capture_default_str()->check(kAtLeastOne);
  app.add_flag("--quiet", quiet, "no per-RPC log lines")->envname("TETHER_QUIET");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return ReportParseError(app, error, argc, argv);
  }

  config.session_ttl = std::chrono::seconds(ttl_seconds);
  config.drain_grace = std::chrono::milliseconds(grace_ms);
  config.log_rpcs = !quiet;
  std::string why;
  if (!config.IsValid(&why)) {
    std::fprintf(stderr, "tether-server: %s\n", why.c_str());
    return 2;
  }
  return tether::server::RunServer(config);
}
