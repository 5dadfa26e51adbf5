// tether.v1.SimulationService on gRPC's callback API. Handlers validate cheaply on the gRPC
// thread and hand everything numerical (spec parsing, consistent initialization, frames) to
// the worker pool.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "auth.h"
#include "metrics.h"
#include "session.h"
#include "state_stream.h"
#include "tether/model/registry.h"
#include "tether/server/server.h"
#include "tenant_models.h"
#include "tether/v1/simulation_service.grpc.pb.h"
#include "worker_pool.h"

namespace tether::server {

// Everything the handlers share; owned by Server::Impl.
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

  std::mutex streams_mutex;
  std::set<StateStream*> streams;  // open streams, for Shutdown's abort
  std::map<std::string, std::size_t> tenant_streams;  // open streams per tenant that has any
};

class SimulationService final : public v1::SimulationService::CallbackService {
 public:
  explicit SimulationService(ServiceState* state) : state_(state) {}

  grpc::ServerUnaryReactor* ListModels(grpc::CallbackServerContext* context,
                                       const v1::ListModelsRequest* request,
                                       v1::ListModelsResponse* response) override;
  grpc::ServerUnaryReactor* GetModel(grpc::CallbackServerContext* context,
                                     const v1::GetModelRequest* request,
                                     v1::Model* response) override;
  grpc::ServerUnaryReactor* RegisterModel(grpc::CallbackServerContext* context,
                                          const v1::RegisterModelRequest* request,
                                          v1::Model* response) override;
  grpc::ServerUnaryReactor* DeleteModel(grpc::CallbackServerContext* context,
                                        const v1::DeleteModelRequest* request,
                                        google::protobuf::Empty* response) override;
  grpc::ServerUnaryReactor* CreateSession(grpc::CallbackServerContext* context,
                                          const v1::CreateSessionRequest* request,
                                          v1::Session* response) override;
  grpc::ServerUnaryReactor* GetSession(grpc::CallbackServerContext* context,
                                       const v1::GetSessionRequest* request,
                                       v1::Session* response) override;
  grpc::ServerUnaryReactor* ListSessions(grpc::CallbackServerContext* context,
                                         const v1::ListSessionsRequest* request,
                                         v1::ListSessionsResponse* response) override;
  grpc::ServerUnaryReactor* UpdateSession(grpc::CallbackServerContext* context,
                                          const v1::UpdateSessionRequest* request,
                                          v1::Session* response) override;
  grpc::ServerUnaryReactor* ForkSession(grpc::CallbackServerContext* context,
                                        const v1::ForkSessionRequest* request,
                                        v1::Session* response) override;
  grpc::ServerUnaryReactor* DeleteSession(grpc::CallbackServerContext* context,
                                          const v1::DeleteSessionRequest* request,
                                          google::protobuf::Empty* response) override;
  grpc::ServerUnaryReactor* ControlSession(grpc::CallbackServerContext* context,
                                           const v1::ControlSessionRequest* request,
                                           v1::Session* response) override;
  grpc::ServerWriteReactor<v1::StateChunk>* StreamStates(
      grpc::CallbackServerContext* context, const v1::StreamStatesRequest* request) override;
  grpc::ServerWriteReactor<v1::StateChunk>* Simulate(
      grpc::CallbackServerContext* context, const v1::SimulateRequest* request) override;
  grpc::ServerUnaryReactor* GetServerInfo(grpc::CallbackServerContext* context,
                                          const v1::GetServerInfoRequest* request,
                                          v1::ServerInfo* response) override;

 private:
  // Every Do* acts for `tenant` ("" without tenants): it sees that tenant's sessions and models.
  grpc::Status DoListModels(const std::string& tenant, const v1::ListModelsRequest& request,
                            v1::ListModelsResponse* response);
  grpc::Status DoGetModel(const std::string& tenant, const v1::GetModelRequest& request,
                          v1::Model* response);
  grpc::Status DoRegisterModel(const std::string& tenant, const v1::RegisterModelRequest& request,
                               v1::Model* response);
  grpc::Status DoDeleteModel(const std::string& tenant, const v1::DeleteModelRequest& request);
  grpc::Status DoCreateSession(const std::string& tenant, const v1::CreateSessionRequest& request,
                               v1::Session* response);
  grpc::Status DoGetSession(const std::string& tenant, const v1::GetSessionRequest& request,
                            v1::Session* response);
  grpc::Status DoListSessions(const std::string& tenant, const v1::ListSessionsRequest& request,
                              v1::ListSessionsResponse* response);
  grpc::Status DoUpdateSession(const std::string& tenant, const v1::UpdateSessionRequest& request,
                               v1::Session* response);
  grpc::Status DoForkSession(const std::string& tenant, const v1::ForkSessionRequest& request,
                             v1::Session* response);
  grpc::Status DoDeleteSession(const std::string& tenant, const v1::DeleteSessionRequest& request);
  grpc::Status DoControlSession(const std::string& tenant, const v1::ControlSessionRequest& request,
                                v1::Session* response);
  void DoGetServerInfo(v1::ServerInfo* response);

  // The log line of a call; `model` with or without "models/".
  RpcLog Log(std::string method, std::string session = {}, std::string model = {}) const;
  // The caller's tenant from its `authorization: Bearer TOKEN` metadata ("" without a token
  // file), or UNAUTHENTICATED. The token never appears in the status.
  grpc::Status Authenticate(const grpc::CallbackServerContext& context, std::string* tenant);
  // Authenticates, then finishes the unary call with body(tenant)'s status, on the pool
  // (numerical work) or inline.
  template <typename Body>
  grpc::ServerUnaryReactor* RunUnary(grpc::CallbackServerContext* context, RpcLog log,
                                     WorkerPool* pool, Body body);

  // The model resource, with the columns its sessions stream (simulate::DefaultColumns).
  v1::Model Describe(const model::ModelRegistry::Entry& entry);
  // Admits a new stream (limits, draining) or returns why not.
  grpc::Status AdmitStream(const std::string& tenant, std::size_t frame_samples_requested,
                           double realtime_factor, std::size_t* frame_samples);
  grpc::ServerWriteReactor<v1::StateChunk>* StartStream(const std::string& tenant,
                                                        std::unique_ptr<RunSource> source,
                                                        StateStream::Settings settings,
                                                        RpcLog log);

  ServiceState* state_;
};

}  // namespace tether::server
