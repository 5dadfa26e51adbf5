// tether.v1.SimulationService on gRPC's callback API. Handlers validate cheaply on the gRPC
// thread and hand everything numerical (spec parsing, consistent initialization, frames) to
// the worker pool.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "session.h"
#include "state_stream.h"
#include "tether/model/registry.h"
#include "tether/server/server.h"
#include "tether/v1/simulation_service.grpc.pb.h"
#include "worker_pool.h"

namespace tether::server {

// Everything the handlers share; owned by Server::Impl.
struct ServiceState {
  explicit ServiceState(const ServerConfig& config_in);

  const ServerConfig config;
  model::ModelRegistry registry;
  SessionStore sessions;
  WorkerPool pool;
  StreamCounters counters;
  std::atomic<bool> draining{false};
  const std::chrono::system_clock::time_point start_time = std::chrono::system_clock::now();

  std::mutex streams_mutex;
  std::set<StateStream*> streams;  // open streams, for Shutdown's abort
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
  grpc::ServerWriteReactor<v1::StateChunk>* StreamStates(
      grpc::CallbackServerContext* context, const v1::StreamStatesRequest* request) override;
  grpc::ServerWriteReactor<v1::StateChunk>* Simulate(
      grpc::CallbackServerContext* context, const v1::SimulateRequest* request) override;
  grpc::ServerUnaryReactor* GetServerInfo(grpc::CallbackServerContext* context,
                                          const v1::GetServerInfoRequest* request,
                                          v1::ServerInfo* response) override;

 private:
  grpc::Status DoListModels(const v1::ListModelsRequest& request, v1::ListModelsResponse* response);
  grpc::Status DoGetModel(const v1::GetModelRequest& request, v1::Model* response);
  grpc::Status DoRegisterModel(const v1::RegisterModelRequest& request, v1::Model* response);
  grpc::Status DoDeleteModel(const v1::DeleteModelRequest& request);
  grpc::Status DoCreateSession(const v1::CreateSessionRequest& request, v1::Session* response);
  grpc::Status DoGetSession(const v1::GetSessionRequest& request, v1::Session* response);
  grpc::Status DoListSessions(const v1::ListSessionsRequest& request,
                              v1::ListSessionsResponse* response);
  grpc::Status DoUpdateSession(const v1::UpdateSessionRequest& request, v1::Session* response);
  grpc::Status DoForkSession(const v1::ForkSessionRequest& request, v1::Session* response);
  grpc::Status DoDeleteSession(const v1::DeleteSessionRequest& request);
  void DoGetServerInfo(v1::ServerInfo* response);

  // The model resource, with the columns its sessions stream (simulate::DefaultColumns).
  v1::Model Describe(const model::ModelRegistry::Entry& entry);
  // Admits a new stream (limits, draining) or returns why not.
  grpc::Status AdmitStream(std::size_t frame_samples_requested, double realtime_factor,
                           std::size_t* frame_samples);
  grpc::ServerWriteReactor<v1::StateChunk>* StartStream(std::unique_ptr<RunSource> source,
                                                        StateStream::Settings settings,
                                                        RpcLog log);

  ServiceState* state_;
};

}  // namespace tether::server
