// tether-server: parses flags (each also read from a TETHER_* environment variable) into a
// ServerConfig and runs the server until SIGTERM/SIGINT.
#include <CLI/CLI.hpp>

#include "tether/server/server.h"

int main(int argc, char** argv) {
  tether::server::ServerConfig config;
  std::int64_t ttl_seconds = config.session_ttl.count();
  std::int64_t grace_ms = config.drain_grace.count();
  bool quiet = false;

  CLI::App app{"tether-server: the tether gRPC simulation service (tether.v1.SimulationService, "
               "grpc.health.v1, reflection)"};
  app.add_option("--listen", config.listen, "host:port to listen on; port 0 picks a free one")
      ->envname("TETHER_LISTEN")->capture_default_str();
  app.add_option("--models-dir", config.models_dir, "directory of extra model specs (*.json)")
      ->envname("TETHER_MODELS_DIR");
  app.add_option("--max-sessions", config.max_sessions, "live sessions at most")
      ->envname("TETHER_MAX_SESSIONS")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--max-streams", config.max_streams, "concurrent streams at most")
      ->envname("TETHER_MAX_STREAMS")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--max-registered-models", config.max_registered_models,
                 "models registered at run time at most")
      ->envname("TETHER_MAX_REGISTERED_MODELS")->capture_default_str();
  app.add_option("--max-spec-bytes", config.max_spec_bytes, "bytes of one spec's JSON text")
      ->envname("TETHER_MAX_SPEC_BYTES")->capture_default_str()->check(CLI::PositiveNumber);
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
  app.add_flag("--quiet", quiet, "no per-RPC log lines")->envname("TETHER_QUIET");
  CLI11_PARSE(app, argc, argv);

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
