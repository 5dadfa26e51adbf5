// The service logic of tether.v1.SimulationService, free of any transport: every call takes the
// caller's tenant and the proto request and returns a status and the proto response, and a
// stream call returns a RunSource admitted against the server's limits. The gRPC callback
// service (service.h) and the HTTP/JSON + server-sent-events listener (http_server.h) are thin
// adapters over it, so both transports share the session store, the limits and the accounting.
//
// The status type is grpc::Status: it already carries the code, the message and the
// serialized google.rpc details (errors.h builds and bounds them), which is exactly what the
// HTTP face sends as google.rpc.Status JSON; a second status type would only copy it.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include <grpcpp/support/status.h>

#include "auth.h"
#include "metrics.h"
#include "rpc_log.h"
#include "run_source.h"
#include "session.h"
#include "stream_driver.h"
#include "tenant_models.h"
#include "tether/model/registry.h"
#include "tether/server/server.h"
#include "tether/v1/simulation_service.pb.h"
#include "worker_pool.h"

namespace tether::server {

// Everything the calls share; owned by Server::Impl.
struct ServiceState {
  explicit ServiceState(const ServerConfig& config_in);

  const ServerConfig config;
  // The shared catalog (built-in + models_dir) and, without tenants, every registered model.
  model::ModelRegistry registry;
  TenantModels models;  // what each tenant sees of `registry` and its own
  // config.token_file, read by Server::Start; null = no authentication, one anonymous tenant.
  std::unique_ptr<TokenFile> tokens;
  SessionStore sessions;
  WorkerPool pool;
  StreamCounters counters;
  Metrics metrics;  // served on config.metrics_listen
  std::atomic<bool> draining{false};
  const std::chrono::system_clock::time_point start_time = std::chrono::system_clock::now();

  // Open streams of every transport: one accounting for max_streams and tenant_max_streams.
  // A stream counts from its admission (a StreamSlot) until its driver is done.
  std::mutex streams_mutex;
  std::set<StreamDriver*> streams;  // open streams, for Shutdown's abort
  std::size_t admitted_streams = 0;  // admitted, not yet in `streams`
  std::map<std::string, std::size_t> tenant_streams;  // admitted or open, per tenant that has any
};

// An admitted stream's place among the open streams (max_streams, tenant_max_streams). It is
// taken at admission, under the same lock as the check, so that streams admitted at the same
// time cannot all take the last place; it passes to the stream's driver with Attach (then
// SessionService::StreamDone gives it back) or is given back when a slot that was never
// attached is destroyed (the call failed between admission and start).
class StreamSlot {
 public:
  StreamSlot() = default;
  StreamSlot(ServiceState* state, std::string tenant) : state_(state), tenant_(std::move(tenant)) {}
  StreamSlot(StreamSlot&& other) noexcept
      : state_(std::exchange(other.state_, nullptr)), tenant_(std::move(other.tenant_)) {}
  StreamSlot& operator=(StreamSlot&& other) noexcept;
  ~StreamSlot() { Release(); }

  // `stream` holds the place from now on, until its on_done (StreamDone) runs.
  void Attach(StreamDriver* stream);

 private:
  void Release();

  ServiceState* state_ = nullptr;  // null: no place held (default, moved from, attached)
  std::string tenant_;
};

// The full method name "tether.v1.SimulationService/<name>" (log lines, metrics).
std::string MethodName(std::string_view name);

// A stream admitted and ready to be driven by a transport.
struct StreamStart {
  std::unique_ptr<RunSource> source;
  StreamDriver::Settings settings;
  StreamSlot slot;  // Attach it to the driver made from `source`
};

class SessionService {
 public:
  explicit SessionService(ServiceState* state) : state_(state) {}

  [[nodiscard]] ServiceState* state() const { return state_; }

  // The caller's tenant from the value of its `authorization` metadata or header (`Bearer
  // TOKEN`; nullopt when absent): "" without a token file, or UNAUTHENTICATED. The token never
  // appears in the status.
  grpc::Status Authenticate(std::optional<std::string_view> authorization, std::string* tenant);
  // The log line (and metrics) of a call; `model` with or without "models/".
  [[nodiscard]] RpcLog Log(std::string_view method, std::string session = {},
                           std::string model = {}) const;

  // Each call acts for `tenant` ("" without tenants): it sees that tenant's sessions and models.
  grpc::Status ListModels(const std::string& tenant, const v1::ListModelsRequest& request,
                          v1::ListModelsResponse* response);
  grpc::Status GetModel(const std::string& tenant, const v1::GetModelRequest& request,
                        v1::Model* response);
  grpc::Status RegisterModel(const std::string& tenant, const v1::RegisterModelRequest& request,
                             v1::Model* response);
  grpc::Status DeleteModel(const std::string& tenant, const v1::DeleteModelRequest& request);
  grpc::Status CreateSession(const std::string& tenant, const v1::CreateSessionRequest& request,
                             v1::Session* response);
  grpc::Status GetSession(const std::string& tenant, const v1::GetSessionRequest& request,
                          v1::Session* response);
  grpc::Status ListSessions(const std::string& tenant, const v1::ListSessionsRequest& request,
                            v1::ListSessionsResponse* response);
  grpc::Status UpdateSession(const std::string& tenant, const v1::UpdateSessionRequest& request,
                             v1::Session* response);
  grpc::Status ForkSession(const std::string& tenant, const v1::ForkSessionRequest& request,
                           v1::Session* response);
  grpc::Status DeleteSession(const std::string& tenant, const v1::DeleteSessionRequest& request);
  grpc::Status ControlSession(const std::string& tenant, const v1::ControlSessionRequest& request,
                              v1::Session* response);
  void GetServerInfo(v1::ServerInfo* response);

  // StreamStates: admits the stream (limits, draining) and makes its source (the session's
  // driver, or a viewer for view_only), refusing a request the source's Begin would refuse as
  // the session is now (RunSource::Check); the model goes to `log`.
  grpc::Status OpenStateStream(const std::string& tenant, const v1::StreamStatesRequest& request,
                               RpcLog* log, StreamStart* out);
  // Simulate: admits the stream and makes its one-shot source.
  grpc::Status OpenSimulate(const std::string& tenant, const v1::SimulateRequest& request,
                            StreamStart* out);
  // The on_done of a stream of `tenant` whose StreamStart::slot was attached to it: gives the
  // place back.
  std::function<void(StreamDriver*)> StreamDone(const std::string& tenant);

 private:
  // The model resource, with the columns its sessions stream (simulate::DefaultColumns).
  v1::Model Describe(const model::ModelRegistry::Entry& entry);
  // Admits a new stream (limits, draining) and takes its place in *slot, or returns why not.
  grpc::Status AdmitStream(const std::string& tenant, std::size_t frame_samples_requested,
                           double realtime_factor, std::size_t* frame_samples, StreamSlot* slot);

  ServiceState* state_;
};

}  // namespace tether::server
