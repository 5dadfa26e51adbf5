#include "tether/server/server.h"

#include <csignal>
#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include <absl/synchronization/mutex.h>
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server.h>
#include <grpcpp/server_builder.h>
#include <nlohmann/json.hpp>

#include "errors.h"
#include "rpc_log.h"
#include "http_server.h"
#include "metrics_http.h"
#include "service.h"
#include "tether/expr/program.h"
#include "tether/version.h"
#include "transport_security.h"

namespace tether::server {
namespace {

// How often idle sessions are looked for at most: one second keeps expiry within a second of
// expire_time for production TTLs (hours); a shorter TTL is swept every ttl / 4.
constexpr std::chrono::milliseconds kMaxExpirySweep{1000};

std::chrono::milliseconds ExpirySweep(std::chrono::milliseconds ttl) {
  return std::clamp(ttl / 4, std::chrono::milliseconds(1), kMaxExpirySweep);
}
// After the drain grace, aborted streams end at their next frame boundary; this bounds the
// wait for that before gRPC cancels whatever is left.
constexpr std::chrono::seconds kAbortWait{2};

bool Check(bool ok, std::string_view field, const std::string& value, std::string_view rule,
           std::string* why) {
  if (!ok && why != nullptr) {
    *why = "ServerConfig::" + std::string(field) + " = " + value + "; must be " + std::string(rule);
  }
  return ok;
}

bool LoadModelsDir(model::ModelRegistry* registry, const std::string& dir, std::string* error) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    *error = "models_dir '" + dir + "' is not a directory";
    return false;
  }
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::string problems;
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    model::RegistryResult result = registry->Register(text.str());
    if (result.status == model::RegistryStatus::kOk) continue;
    problems += "\n  " + file.string() + ": " + result.message;
    for (const model::SpecProblem& p : result.problems) problems += "\n    " + p.ToString();
  }
  if (!problems.empty()) {
    *error = "models_dir '" + dir + "' holds bad specs:" + problems;
    return false;
  }
  return true;
}

// The configuration as the startup line shows it. It holds no secret: the TLS key and the
// token file appear as paths (their contents are never read into a log line).
nlohmann::json ConfigToJson(const ServerConfig& c) {
  return {{"listen", c.listen},
          {"health_listen", c.health_listen},
          {"metrics_listen", c.metrics_listen},
          {"http_listen", c.http_listen},
          {"http_cors_origins", c.http_cors_origins},
          {"models_dir", c.models_dir},
          {"max_sessions", c.max_sessions},
          {"max_streams", c.max_streams},
          {"max_registered_models", c.max_registered_models},
          {"max_spec_bytes", c.max_spec_bytes},
          {"max_spec_variables", c.max_spec_variables},
          {"max_spec_constraints", c.max_spec_constraints},
          {"max_spec_nodes", c.max_spec_nodes},
          {"default_frame_samples", c.default_frame_samples},
          {"max_frame_samples", c.max_frame_samples},
          {"max_steps_per_stream", c.max_steps_per_stream},
          {"max_samples_per_stream", c.max_samples_per_stream},
          {"session_ttl_ms", c.session_ttl.count()},
          {"drain_grace_ms", c.drain_grace.count()},
          {"worker_threads", c.worker_threads},
          {"replay_bytes", c.replay_bytes},
          {"replay_total_bytes", c.replay_total_bytes},
          {"log_rpcs", c.log_rpcs},
          {"log_level", LogLevelName(c.log_level)},
          {"tls_cert_file", c.tls_cert_file},
          {"tls_key_file", c.tls_key_file},
          {"tls_client_ca_file", c.tls_client_ca_file},
          {"tls_refresh_s", c.tls_refresh.count()},
          {"token_file", c.token_file},
          {"allow_insecure_tokens", c.allow_insecure_tokens},
          {"tenant_max_sessions", c.tenant_max_sessions},
          {"tenant_max_registered_models", c.tenant_max_registered_models},
          {"tenant_max_streams", c.tenant_max_streams}};
}

// A startup or shutdown line; written unless log_level is above info.
void LogEvent(const ServerConfig& config, nlohmann::json line) {
  if (config.log_level > LogLevel::kInfo) return;
  line["time"] = NowUtc();
  line["level"] = "info";
  std::fprintf(stderr, "%s\n",
               line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  std::fflush(stderr);
}

}  // namespace

std::vector<std::string> HealthServiceNames() {
  return {"", std::string(v1::SimulationService::service_full_name())};
}

bool ServerConfig::IsValid(std::string* why) const {
  return Check(max_sessions >= 1, "max_sessions", std::to_string(max_sessions), ">= 1", why) &&
         Check(max_streams >= 1, "max_streams", std::to_string(max_streams), ">= 1", why) &&
         Check(max_spec_bytes >= 1, "max_spec_bytes", std::to_string(max_spec_bytes), ">= 1", why) &&
         Check(max_spec_variables >= 1, "max_spec_variables", std::to_string(max_spec_variables),
               ">= 1", why) &&
         Check(max_spec_constraints >= 1, "max_spec_constraints",
               std::to_string(max_spec_constraints), ">= 1", why) &&
         Check(max_spec_nodes >= 1, "max_spec_nodes", std::to_string(max_spec_nodes), ">= 1",
               why) &&
         Check(max_frame_samples >= 1, "max_frame_samples", std::to_string(max_frame_samples),
               ">= 1", why) &&
         Check(default_frame_samples >= 1 && default_frame_samples <= max_frame_samples,
               "default_frame_samples", std::to_string(default_frame_samples),
               "in [1, max_frame_samples = " + std::to_string(max_frame_samples) + "]", why) &&
         Check(max_steps_per_stream >= 1, "max_steps_per_stream",
               std::to_string(max_steps_per_stream), ">= 1", why) &&
         Check(max_samples_per_stream >= 1, "max_samples_per_stream",
               std::to_string(max_samples_per_stream), ">= 1", why) &&
         Check(session_ttl.count() >= 1, "session_ttl",
               std::to_string(session_ttl.count()) + " ms", ">= 1 ms", why) &&
         Check(drain_grace.count() >= 0, "drain_grace", std::to_string(drain_grace.count()) + " ms",
               ">= 0 ms", why) &&
         Check(replay_bytes >= 1, "replay_bytes", std::to_string(replay_bytes), ">= 1", why) &&
         Check(replay_total_bytes >= 1, "replay_total_bytes", std::to_string(replay_total_bytes),
               ">= 1", why) &&
         Check(tls_cert_file.empty() == tls_key_file.empty(), "tls_key_file",
               "'" + tls_key_file + "' with tls_cert_file '" + tls_cert_file + "'",
               "given together with tls_cert_file (both or neither)", why) &&
         Check(tls_client_ca_file.empty() || !tls_cert_file.empty(), "tls_client_ca_file",
               "'" + tls_client_ca_file + "'",
               "used with tls_cert_file and tls_key_file (mutual TLS needs the server's own)",
               why) &&
         Check(tls_refresh.count() >= 1, "tls_refresh", std::to_string(tls_refresh.count()) + " s",
               ">= 1 s", why) &&
         Check(health_listen.empty() || health_listen != listen || listen.ends_with(":0"),
               "health_listen",
               "'" + health_listen + "'", "a different address than listen", why) &&
         Check(token_file.empty() || listen.empty() || !tls_cert_file.empty() ||
                   allow_insecure_tokens,
               "token_file", "'" + token_file + "' with a plaintext listen '" + listen + "'",
               "used with TLS (tls_cert_file, tls_key_file): bearer tokens would cross the "
               "network in the clear; set allow_insecure_tokens for loopback development",
               why) &&
         Check(token_file.empty() || http_listen.empty() || allow_insecure_tokens, "token_file",
               "'" + token_file + "' with http_listen '" + http_listen + "'",
               "used with allow_insecure_tokens: the HTTP listener speaks plaintext only, so "
               "bearer tokens would cross the network in the clear (loopback, or a TLS proxy in "
               "front such as deploy/envoy.yaml)",
               why) &&
         Check(tenant_max_sessions >= 1, "tenant_max_sessions",
               std::to_string(tenant_max_sessions), ">= 1", why) &&
         Check(tenant_max_registered_models >= 1, "tenant_max_registered_models",
               std::to_string(tenant_max_registered_models), ">= 1", why) &&
         Check(tenant_max_streams >= 1, "tenant_max_streams", std::to_string(tenant_max_streams),
               ">= 1", why);
}

model::SpecLimits ServerConfig::ModelLimits() const {
  model::SpecLimits limits;
  limits.max_document_bytes = std::max(limits.max_document_bytes, max_spec_bytes);
  limits.max_variables = max_spec_variables;
  limits.max_constraints = max_spec_constraints;
  limits.max_nodes = max_spec_nodes;
  return limits;
}

struct Server::Impl {
  explicit Impl(const ServerConfig& config) : state(config), service(&state) {}

  void Janitor() {
    std::unique_lock lock(janitor_mutex);
    while (!janitor_stop) {
      janitor_wake.wait_for(lock, ExpirySweep(state.config.session_ttl));
      if (!janitor_stop) state.sessions.Expire(Session::Clock::now());
    }
  }

  std::size_t OpenStreams() {
    std::lock_guard lock(state.streams_mutex);
    return state.streams.size();
  }

  // Waits until no stream is open or `deadline`; true if none is open.
  bool WaitForStreams(std::chrono::steady_clock::time_point deadline) {
    while (OpenStreams() > 0) {
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
  }

  // Every health status of both ports at once.
  void SetServing(bool serving) {
    for (grpc::Server* s : {server.get(), health_server.get()}) {
      if (s == nullptr) continue;
      if (grpc::HealthCheckServiceInterface* health = s->GetHealthCheckService()) {
        for (const std::string& name : HealthServiceNames()) health->SetServingStatus(name, serving);
      }
    }
  }

  ServiceState state;
  SimulationService service;
  std::unique_ptr<grpc::Server> server;
  int port = 0;
  std::unique_ptr<grpc::Server> health_server;  // config.health_listen: health only, plaintext
  int health_port = 0;
  std::unique_ptr<MetricsHttp> metrics_http;  // config.metrics_listen
  std::unique_ptr<HttpServer> http;           // config.http_listen
  SessionService http_core{&state};           // what `http` calls

  // The exposition text of one scrape: counters plus the gauges read now.
  std::string RenderMetrics() {
    const SessionStore::Census census = state.sessions.Count();
    const std::map<std::string, std::size_t> tenant_models = state.models.RegisteredByTenant();
    std::size_t registered = 0;
    for (const auto& entry : state.registry.List()) registered += entry.builtin ? 0 : 1;
    for (const auto& [tenant, n] : tenant_models) registered += n;
    std::map<std::string, std::size_t> tenant_streams;
    {
      std::lock_guard lock(state.streams_mutex);
      tenant_streams = state.tenant_streams;
    }
    auto count = [](std::size_t n) { return static_cast<double>(n); };
    Metrics::Gauge by_state{"tether_sessions_by_state", "Live sessions by state.", {}};
    // Every state, also the empty ones, so that a dashboard's series do not vanish.
    for (int i = v1::SessionState_MIN; i <= v1::SessionState_MAX; ++i) {
      const auto s = static_cast<v1::SessionState>(i);
      if (!v1::SessionState_IsValid(i) || s == v1::SESSION_STATE_UNSPECIFIED) continue;
      const auto found = census.by_state.find(s);
      by_state.series.push_back({LabelPair("state", v1::SessionState_Name(s)),
                                 count(found == census.by_state.end() ? 0 : found->second)});
    }
    // Per tenant: with tenants only (without, everything is the one anonymous tenant "").
    auto per_tenant = [&](const char* name, const char* help,
                          const std::map<std::string, std::size_t>& values) {
      Metrics::Gauge gauge{name, help, {}};
      for (const auto& [tenant, n] : values) {
        if (!tenant.empty()) gauge.series.push_back({LabelPair("tenant", tenant), count(n)});
      }
      return gauge;
    };
    std::vector<Metrics::Gauge> gauges = {
        {"tether_sessions", "Live sessions.", {{"", count(state.sessions.size())}}},
        by_state,
        {"tether_open_streams", "Open StreamStates and Simulate calls.",
         {{"", count(OpenStreams())}}},
        {"tether_busy_workers", "Worker threads computing now.", {{"", count(state.pool.busy())}}},
        {"tether_queued_tasks", "Worker tasks waiting.", {{"", count(state.pool.queued())}}},
        {"tether_replay_bytes_held", "Bytes of all sessions' replay histories.",
         {{"", count(state.sessions.replay_bytes_held())}}},
        {"tether_registered_models",
         "Models registered at run time (all tenants) and from models_dir.",
         {{"", count(registered)}}},
        {"tether_draining", "1 while the server drains.",
         {{"", state.draining.load() ? 1.0 : 0.0}}}};
    if (state.tokens != nullptr) {
      gauges.push_back(per_tenant("tether_tenant_sessions", "Live sessions of each tenant.",
                                  census.by_tenant));
      gauges.push_back(per_tenant("tether_tenant_open_streams", "Open streams of each tenant.",
                                  tenant_streams));
      gauges.push_back(per_tenant("tether_tenant_registered_models",
                                  "Models each tenant registered.", tenant_models));
    }
    return state.metrics.Render(gauges);
  }

  std::mutex janitor_mutex;
  std::condition_variable janitor_wake;
  bool janitor_stop = false;
  std::thread janitor;

  std::mutex shutdown_mutex;
  std::condition_variable shutdown_done_cv;
  bool shutdown_started = false;
  bool shutdown_done = false;
};

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Server::~Server() {
  Shutdown(std::chrono::milliseconds(0));
  Wait();
}

std::unique_ptr<Server> Server::Start(const ServerConfig& config, std::string* error) {
  std::string why;
  if (!config.IsValid(&why)) {
    *error = why;
    return nullptr;
  }
  expr::SetNativeCodeEnabled(config.native_code);
  // Debian's abseil is built without NDEBUG, which leaves absl::Mutex's deadlock detection on:
  // every lock of gRPC's mutexes then updates a process-wide lock-order graph under a global
  // lock. It is a debugging aid that abseil turns off in release builds. On, it took about 2 %
  // of the CPU of a stream of the seed pendulum at 16 samples per frame (perf, stream_vs_raw).
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  auto impl = std::make_unique<Impl>(config);
  std::string problems;
  for (const model::SpecProblem& p : impl->state.registry.LoadBuiltinCatalog()) {
    problems += "\n  " + p.ToString();
  }
  if (!problems.empty()) {
    *error = "the built-in catalog failed validation:" + problems;
    return nullptr;
  }
  if (!config.models_dir.empty() &&
      !LoadModelsDir(&impl->state.registry, config.models_dir, error)) {
    return nullptr;
  }
  if (!config.token_file.empty()) {
    impl->state.tokens = TokenFile::Open(config.token_file, error);
    if (impl->state.tokens == nullptr) return nullptr;
  }

  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  if (!config.listen.empty()) {
    std::shared_ptr<grpc::ServerCredentials> credentials = ListeningCredentials(config, error);
    if (credentials == nullptr) return nullptr;
    builder.AddListeningPort(config.listen, std::move(credentials), &impl->port);
  }
  builder.RegisterService(&impl->service);
  impl->server = builder.BuildAndStart();
  if (impl->server == nullptr || (!config.listen.empty() && impl->port == 0)) {
    *error = "could not listen on '" + config.listen + "' (address in use or malformed?)";
    if (impl->server != nullptr) impl->server->Shutdown();
    return nullptr;
  }
  if (!config.health_listen.empty()) {
    grpc::ServerBuilder health_builder;  // no service of ours: the default health service only
    health_builder.AddListeningPort(config.health_listen, grpc::InsecureServerCredentials(),
                                    &impl->health_port);
    impl->health_server = health_builder.BuildAndStart();
    if (impl->health_server == nullptr || impl->health_port == 0) {
      *error = "could not listen on health_listen '" + config.health_listen +
               "' (address in use or malformed?)";
      impl->server->Shutdown();
      return nullptr;
    }
  }
  if (!config.metrics_listen.empty()) {
    impl->metrics_http = MetricsHttp::Start(
        config.metrics_listen, [raw = impl.get()] { return raw->RenderMetrics(); }, error);
    if (impl->metrics_http == nullptr) {
      impl->server->Shutdown();
      if (impl->health_server != nullptr) impl->health_server->Shutdown();
      return nullptr;
    }
  }
  if (!config.http_listen.empty()) {
    impl->http = HttpServer::Start(&impl->http_core, error);
    if (impl->http == nullptr) {
      impl->server->Shutdown();
      if (impl->health_server != nullptr) impl->health_server->Shutdown();
      return nullptr;
    }
  }
  impl->SetServing(true);
  impl->janitor = std::thread([raw = impl.get()] { raw->Janitor(); });
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

std::shared_ptr<grpc::Channel> Server::InProcessChannel() {
  return impl_->server->InProcessChannel(grpc::ChannelArguments());
}

int Server::port() const { return impl_->port; }

int Server::health_port() const { return impl_->health_port; }

int Server::http_port() const { return impl_->http == nullptr ? 0 : impl_->http->port(); }

int Server::metrics_port() const {
  return impl_->metrics_http == nullptr ? 0 : impl_->metrics_http->port();
}

void Server::Shutdown(std::chrono::milliseconds grace) {
  {
    std::lock_guard lock(impl_->shutdown_mutex);
    if (impl_->shutdown_started) return;
    impl_->shutdown_started = true;
  }
  impl_->state.draining.store(true);
  impl_->SetServing(false);
  const auto now = std::chrono::steady_clock::now();
  if (!impl_->WaitForStreams(now + grace)) {
    {
      std::lock_guard lock(impl_->state.streams_mutex);
      for (StreamDriver* stream : impl_->state.streams) stream->Abort();
    }
    impl_->WaitForStreams(std::chrono::steady_clock::now() + kAbortWait);
  }
  // Cancels whatever is left (a stream blocked on a reader that never reads) and waits for
  // every reactor to finish; the pool still runs, so queued work can complete.
  impl_->server->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(100));
  if (impl_->health_server != nullptr) {
    impl_->health_server->Shutdown(std::chrono::system_clock::now());
  }
  if (impl_->http != nullptr) {
    // Closes the HTTP connections left (a stream whose client does not read), then lets their
    // streams end on the pool, which still runs.
    impl_->http->Stop();
    impl_->WaitForStreams(std::chrono::steady_clock::now() + kAbortWait);
  }
  impl_->state.pool.Stop();
  {
    std::lock_guard lock(impl_->janitor_mutex);
    impl_->janitor_stop = true;
  }
  impl_->janitor_wake.notify_all();
  if (impl_->janitor.joinable()) impl_->janitor.join();
  {
    std::lock_guard lock(impl_->shutdown_mutex);
    impl_->shutdown_done = true;
  }
  impl_->shutdown_done_cv.notify_all();
}

void Server::Wait() {
  std::unique_lock lock(impl_->shutdown_mutex);
  impl_->shutdown_done_cv.wait(lock, [this] { return impl_->shutdown_done; });
}

ServerMetrics Server::metrics() const {
  ServerMetrics m;
  m.sessions = impl_->state.sessions.size();
  m.open_streams = impl_->OpenStreams();
  m.busy_workers = impl_->state.pool.busy();
  m.queued_tasks = impl_->state.pool.queued();
  m.frames_buffered = impl_->state.counters.frames_buffered.load();
  m.max_frames_buffered_per_stream = impl_->state.counters.max_frames_buffered.load();
  m.replay_bytes_held = impl_->state.sessions.replay_bytes_held();
  return m;
}

int RunServer(const ServerConfig& config) {
  // Blocked before any thread starts, so that every gRPC and worker thread inherits the mask
  // and the signals reach only the sigwait below.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  std::string error;
  std::unique_ptr<Server> server = Server::Start(config, &error);
  if (server == nullptr) {
    std::fprintf(stderr, "tether-server: %s\n", error.c_str());
    return 1;
  }
  nlohmann::json serving = {{"event", "serving"},
                            {"listen", config.listen},
                            {"port", server->port()},
                            {"transport", TransportName(config)},
                            {"version", std::string(kVersion)},
                            {"git_commit", std::string(kGitCommit)},
                            {"authentication", config.token_file.empty() ? "none" : "bearer tokens"},
                            {"config", ConfigToJson(config)}};
  if (!config.health_listen.empty()) serving["health_port"] = server->health_port();
  if (!config.metrics_listen.empty()) serving["metrics_port"] = server->metrics_port();
  if (!config.http_listen.empty()) serving["http_port"] = server->http_port();
  // The port line is written whatever the level: tests and scripts read the port from it.
  std::fprintf(stderr, "%s\n", serving.dump(-1, ' ', false,
                                            nlohmann::json::error_handler_t::replace).c_str());
  std::fflush(stderr);

  int signal_number = 0;
  sigwait(&signals, &signal_number);
  LogEvent(config, {{"event", "draining"},
                    {"signal", signal_number == SIGTERM ? "SIGTERM" : "SIGINT"},
                    {"grace_ms", config.drain_grace.count()}});
  server->Shutdown(config.drain_grace);
  server->Wait();
  LogEvent(config, {{"event", "stopped"}, {"version", std::string(kVersion)}});
  return 0;
}

}  // namespace tether::server
