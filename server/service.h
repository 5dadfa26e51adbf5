// tether.v1.SimulationService on gRPC's callback API: a thin adapter over SessionService
// (session_service.h). Handlers authenticate on the gRPC thread and hand everything numerical
// (spec parsing, consistent initialization, frames) to the worker pool.
#pragma once

#include <memory>
#include <string>

#include "session_service.h"
#include "state_stream.h"
#include "tether/v1/simulation_service.grpc.pb.h"

namespace tether::server {

class SimulationService final : public v1::SimulationService::CallbackService {
 public:
  explicit SimulationService(ServiceState* state);

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
  // The caller's tenant from its `authorization` metadata (SessionService::Authenticate).
  grpc::Status Authenticate(const grpc::CallbackServerContext& context, std::string* tenant);
  // Authenticates, then finishes the unary call with body(tenant)'s status, on the pool
  // (numerical work) or inline.
  template <typename Body>
  grpc::ServerUnaryReactor* RunUnary(grpc::CallbackServerContext* context, RpcLog log,
                                     WorkerPool* pool, Body body);
  grpc::ServerWriteReactor<v1::StateChunk>* StartStream(const std::string& tenant,
                                                        StreamStart start, RpcLog log);

  ServiceState* state_;
  SessionService core_;
  std::string replica_name_;  // sent as x-tether-replica (ServerConfig::replica_name)
};

}  // namespace tether::server
