// The tether gRPC server: tether.v1.SimulationService plus grpc.health.v1 and server
// reflection, over the core's ModelRegistry and Simulation (shared/DESIGN.md §4).
//
// Threads: gRPC's callback threads only accept calls and hand work over; simulation runs on
// a bounded worker pool of our own (ServerConfig::worker_threads). Each stream has at most one
// write in flight and computes at most one frame ahead of it, so a slow reader slows only its
// own session and holds at most two frames.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <grpcpp/channel.h>

#include "tether/model/model.h"

namespace tether::server {

// Severity of a log line; a line is written if its level is at least ServerConfig::log_level.
//   kDebug  not used by RPC lines (reserved for diagnostics)
//   kInfo   an RPC that ended OK or CANCELLED, startup and shutdown
//   kWarn   an RPC refused for the caller's reason: INVALID_ARGUMENT, NOT_FOUND, ALREADY_EXISTS,
//           FAILED_PRECONDITION, OUT_OF_RANGE, UNAUTHENTICATED, PERMISSION_DENIED,
//           RESOURCE_EXHAUSTED, ABORTED (a run that failed numerically), DEADLINE_EXCEEDED
//   kError  the server's fault or state: INTERNAL, UNKNOWN, DATA_LOSS, UNIMPLEMENTED, UNAVAILABLE
enum class LogLevel { kDebug, kInfo, kWarn, kError };
// "debug", "info", "warn", "error": the names of the flag and of the lines' "level".
std::string_view LogLevelName(LogLevel level);
// The level of `name` (one of the names above); false if unknown.
bool ParseLogLevel(std::string_view name, LogLevel* level);

struct ServerConfig {
  // host:port to listen on (insecure); port 0 picks a free port (see Server::port()); empty =
  // in-process only (Server::InProcessChannel()). Default loopback, port 50051.
  std::string listen = "127.0.0.1:50051";
  // Directory of extra model specs (*.json) registered at start; empty = none. A spec that
  // fails validation makes Start fail with every problem listed.
  std::string models_dir;
  // Live sessions at most; CreateSession/ForkSession beyond → RESOURCE_EXHAUSTED. ≥ 1.
  std::size_t max_sessions = 1000;
  // Concurrently open StreamStates + Simulate calls; beyond → RESOURCE_EXHAUSTED. ≥ 1.
  std::size_t max_streams = 1000;
  // Models registered at run time (the catalog does not count); beyond → RESOURCE_EXHAUSTED. ≥ 0.
  std::size_t max_registered_models = 1000;
  // Bytes of one spec's JSON text (RegisterModel, Simulate); beyond → INVALID_ARGUMENT. ≥ 1.
  std::size_t max_spec_bytes = 1 << 20;
  // The largest model a client may send (RegisterModel, Simulate's spec_json) or models_dir may
  // hold: its state variables, its constraints (equalities and inequalities), and its
  // expression nodes once definitions are substituted (the work of compiling it grows with
  // these). Beyond → INVALID_ARGUMENT naming the count and the limit. The built-in catalog
  // loads whatever they are. ≥ 1 each; the defaults are model::SpecLimits'.
  std::size_t max_spec_variables = model::SpecLimits{}.max_variables;
  std::size_t max_spec_constraints = model::SpecLimits{}.max_constraints;
  std::size_t max_spec_nodes = model::SpecLimits{}.max_nodes;
  // Samples per frame when the request says 0. In [1, max_frame_samples].
  std::size_t default_frame_samples = 256;
  // Largest samples per frame a request may ask for; beyond → INVALID_ARGUMENT. ≥ 1.
  std::size_t max_frame_samples = 8192;
  // Accepted steps one stream may take; reached → the stream ends RESOURCE_EXHAUSTED after its
  // samples, the session paused and resumable. ≥ 1.
  std::uint64_t max_steps_per_stream = 100'000'000;
  // Samples one stream may ask for: a Simulate or StreamStates call whose grid holds more,
  // (t_end − t) / output_interval > max_samples_per_stream, is refused up front with
  // INVALID_ARGUMENT naming its t_end. Streams without that estimate (output_interval 0, an
  // indefinite stream) are bounded by max_steps_per_stream instead. ≥ 1.
  std::uint64_t max_samples_per_stream = 100'000'000;
  // A session not used for this long is deleted; a streaming session does not expire. ≥ 1 ms
  // (milliseconds so that tests can expire sessions quickly; tether-server's flag takes
  // seconds). Idle sessions are swept every min(1 s, ttl / 4), so one is gone within
  // ttl + min(1 s, ttl / 4) of its last use. Default 1 h.
  std::chrono::milliseconds session_ttl = std::chrono::hours(1);
  // Shutdown on SIGTERM/SIGINT (RunServer): how long open streams may run on [ms]. ≥ 0.
  std::chrono::milliseconds drain_grace{5000};
  // Simulation worker threads; 0 = std::thread::hardware_concurrency().
  std::size_t worker_threads = 0;
  // Bytes of recent samples each session retains [B], so that a client whose stream broke can
  // resume from its last received sample (StreamStatesRequest.start_sample_index) even if the
  // transport had accepted frames the client never read: it should exceed the client's HTTP/2
  // receive window. The newest frame is always kept. ≥ 1.
  std::size_t replay_bytes = 4 << 20;
  // Bytes of replay history all sessions together retain [B] (1000 paused sessions would hold
  // up to 1000 × replay_bytes otherwise). Beyond it, the delivered history of the least recently
  // used sessions is trimmed, oldest first (the streaming session's last); a resume from a
  // trimmed index gets FAILED_PRECONDITION naming this limit. Samples computed but not yet
  // delivered are never trimmed (the default resume needs them), so the total may exceed the
  // limit by those: ≤ 2 frames per session (what its last stream computed but had not written
  // yet). ≥ 1. Default 256 MiB.
  std::size_t replay_total_bytes = std::size_t{256} << 20;
  // Writes one JSON line per RPC to stderr (server/rpc_log.h: level, method, peer, tenant,
  // session, model, code, message, duration, samples, termination, trace).
  bool log_rpcs = true;
  // Lines below this level are not written (LogLevel). Default kInfo: every RPC.
  LogLevel log_level = LogLevel::kInfo;

  // Transport security of `listen`: PEM files of the server's certificate chain and private
  // key, both or neither; with them the port speaks TLS only. The files are watched (gRPC's
  // FileWatcherCertificateProvider, every tls_refresh): a rotated certificate (a Kubernetes
  // secret update) is served to new connections without a restart. Start fails, naming the
  // file, if one is unreadable or holds no PEM block.
  std::string tls_cert_file;
  std::string tls_key_file;
  // PEM file of the CAs that sign client certificates: mutual TLS, every client must present a
  // certificate they signed (the handshake fails otherwise). Needs tls_cert_file.
  std::string tls_client_ca_file;
  // How often the TLS files are re-read. ≥ 1 s.
  std::chrono::seconds tls_refresh{60};
  // host:port of a plaintext port that serves grpc.health.v1 only (and reflection, which then
  // lists nothing else), for probes that speak no TLS (the kubelet's native gRPC probe); empty =
  // none. Follows the main port's status (NOT_SERVING on drain).
  std::string health_listen;
  // host:port of the HTTP/1.1 listener: the service as JSON calls and server-sent-event streams
  // (server/http_server.h lists the routes), plaintext, over the same sessions and limits as
  // gRPC; empty = none. Port 0 picks a free one (Server::http_port).
  std::string http_listen;
  // Origins (scheme://host[:port]) whose browser pages may call http_listen (CORS); "*" = any.
  // Empty = none: a page of another origin cannot read the answers.
  std::vector<std::string> http_cors_origins;
  // host:port of a plaintext HTTP port serving Prometheus metrics at GET /metrics
  // (server/metrics.h lists them); empty = none. Port 0 picks a free one (Server::metrics_port).
  std::string metrics_listen;

  // The name this server gives itself in the initial metadata x-tether-replica of every
  // StreamStates and Simulate call, so that a client behind a proxy or a DNS name can tell
  // which replica ran its call (a sweep's replica column). Empty = the host name, which in
  // Kubernetes is the pod's name.
  std::string replica_name;

  // Compile models to machine code (core/expr/native_code.h); false runs every model in the
  // interpreter (the reference). Process-wide (expr::SetNativeCodeEnabled), applied by Start
  // before any model is built: the last server started in a process decides.
  bool native_code = true;

  // Bearer tokens and tenants (server/auth.h documents the file: lines TENANT:SALT:HASH, salted
  // SHA-256 hashes, re-read when it changes). Empty = no authentication: one anonymous tenant,
  // every call accepted, as without this option. With it, every call of
  // tether.v1.SimulationService needs `authorization: Bearer TOKEN` with a token of the file
  // (else UNAUTHENTICATED; health and reflection stay open), and each tenant sees only its own
  // sessions and registered models (another's are NOT_FOUND) besides the shared, read-only
  // catalog (built-in models and models_dir). Start fails, naming the line, if the file does
  // not parse.
  std::string token_file;
  // Tokens are secrets: with token_file, a `listen` without TLS (tls_cert_file) makes Start fail
  // unless this is set, for development on loopback. The in-process channel needs neither.
  bool allow_insecure_tokens = false;
  // Per-tenant quotas, with token_file only (the server-wide limits above still hold): live
  // sessions (CreateSession/ForkSession), models registered at run time, and concurrently open
  // StreamStates + Simulate calls of one tenant; beyond → RESOURCE_EXHAUSTED naming the quota. ≥ 1.
  std::size_t tenant_max_sessions = 100;
  std::size_t tenant_max_registered_models = 100;
  std::size_t tenant_max_streams = 100;

  // Checks every field; on failure writes e.g. "ServerConfig::max_sessions = 0; must be >= 1".
  bool IsValid(std::string* why) const;
  // The limits a spec is parsed under: model::SpecLimits' own with the max_spec_ fields above.
  // The document's bytes are never below SpecLimits' default: the service checks
  // max_spec_bytes on a request's text itself, and a --models-dir file may be as large.
  [[nodiscard]] model::SpecLimits ModelLimits() const;
};

// Counters for tests and logs; a snapshot.
struct ServerMetrics {
  std::size_t sessions = 0;           // live sessions
  std::size_t open_streams = 0;       // StreamStates + Simulate calls not yet finished
  std::size_t busy_workers = 0;       // worker threads computing right now
  std::size_t queued_tasks = 0;       // worker tasks waiting (frames to compute)
  std::size_t frames_buffered = 0;    // frames computed but not yet written, over all streams
  std::size_t max_frames_buffered_per_stream = 0;  // high-water mark of one stream (≤ 2)
  std::size_t replay_bytes_held = 0;  // bytes of all sessions' replay histories [B]
};

// The service names grpc.health.v1.Health/Check answers: "" (the whole server, what a probe
// without a service asks) and tether.v1.SimulationService (what the readiness probe and the
// proxy's health check ask). All report SERVING while the server runs and turn NOT_SERVING
// together when Shutdown starts; any other name is NOT_FOUND.
std::vector<std::string> HealthServiceNames();

class Server {
 public:
  // Registers the catalog and models_dir, binds `listen`, starts the worker pool. nullptr and
  // *error set on failure (invalid config, bad spec in models_dir, address in use).
  static std::unique_ptr<Server> Start(const ServerConfig& config, std::string* error);
  ~Server();  // shuts down (grace 0) if still running
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // A channel to this server that needs no network (the CLI's embedded mode).
  std::shared_ptr<grpc::Channel> InProcessChannel();
  // The bound TCP port; 0 if in-process only.
  [[nodiscard]] int port() const;
  // The bound port of config.health_listen; 0 without one.
  [[nodiscard]] int health_port() const;
  // The bound port of config.metrics_listen; 0 without one.
  [[nodiscard]] int metrics_port() const;
  // The bound port of config.http_listen; 0 without one.
  [[nodiscard]] int http_port() const;
  // Drains: health NOT_SERVING (every HealthServiceNames() name), new sessions and streams
  // refused (UNAVAILABLE), open streams may run on for ≤ grace, then are cancelled
  // (UNAVAILABLE). Idempotent.
  void Shutdown(std::chrono::milliseconds grace);
  // Blocks until Shutdown completed.
  void Wait();
  [[nodiscard]] ServerMetrics metrics() const;

  struct Impl;

 private:
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// What tether-server's main and `tether serve` call: starts, installs SIGTERM/SIGINT handlers,
// drains on signal (config.drain_grace), returns the process exit code (0 on clean shutdown,
// 1 if the server could not start; the reason goes to stderr).
int RunServer(const ServerConfig& config);

}  // namespace tether::server
