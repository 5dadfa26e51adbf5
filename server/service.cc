#include "service.h"

#include <unistd.h>

#include <array>
#include <optional>
#include <string_view>

#include "errors.h"

namespace tether::server {
namespace {

// A stream refused before it started.
class RefusedStream final : public grpc::ServerWriteReactor<v1::StateChunk> {
 public:
  explicit RefusedStream(const grpc::Status& status) { Finish(Bounded(status)); }
  void OnDone() override { delete this; }
};

}  // namespace

// ---- calls -----------------------------------------------------------------------------------

grpc::Status SimulationService::Authenticate(const grpc::CallbackServerContext& context,
                                             std::string* tenant) {
  const auto& metadata = context.client_metadata();
  const auto found = metadata.find("authorization");
  if (found == metadata.end()) return core_.Authenticate(std::nullopt, tenant);
  return core_.Authenticate(std::string_view(found->second.data(), found->second.size()), tenant);
}

namespace {

// The initial metadata that names the replica to the client (client/src/client.cc and the
// Python client read it).
constexpr char kReplicaHeader[] = "x-tether-replica";

std::string ReplicaName(const ServerConfig& config) {
  if (!config.replica_name.empty()) return config.replica_name;
  std::array<char, 256> host{};
  if (gethostname(host.data(), host.size() - 1) != 0) return {};
  return host.data();
}

}  // namespace

SimulationService::SimulationService(ServiceState* state)
    : state_(state), core_(state), replica_name_(ReplicaName(state->config)) {}

template <typename Body>
grpc::ServerUnaryReactor* SimulationService::RunUnary(grpc::CallbackServerContext* context,
                                                      RpcLog log, WorkerPool* pool, Body body) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  log.set_call(*context);
  std::string tenant;
  if (grpc::Status refused = Authenticate(*context, &tenant); !refused.ok()) {
    reactor->Finish(log.Finish(refused));
    return reactor;
  }
  log.set_tenant(tenant);
  auto run = [reactor, log, body, tenant = std::move(tenant)]() mutable {
    reactor->Finish(log.Finish(Bounded(body(tenant))));
  };
  if (pool != nullptr) {
    pool->Post(std::move(run));
  } else {
    run();
  }
  return reactor;
}

// ---- models ----------------------------------------------------------------------------------

grpc::ServerUnaryReactor* SimulationService::ListModels(grpc::CallbackServerContext* context,
                                                        const v1::ListModelsRequest* request,
                                                        v1::ListModelsResponse* response) {
  return RunUnary(context, core_.Log("ListModels"), &state_->pool,
                  [this, request, response](const std::string& tenant) {
                    return core_.ListModels(tenant, *request, response);
                  });
}

grpc::ServerUnaryReactor* SimulationService::GetModel(grpc::CallbackServerContext* context,
                                                      const v1::GetModelRequest* request,
                                                      v1::Model* response) {
  return RunUnary(context, core_.Log("GetModel", {}, request->name()), &state_->pool,
                  [this, request, response](const std::string& tenant) {
                    return core_.GetModel(tenant, *request, response);
                  });
}

grpc::ServerUnaryReactor* SimulationService::RegisterModel(grpc::CallbackServerContext* context,
                                                           const v1::RegisterModelRequest* request,
                                                           v1::Model* response) {
  return RunUnary(context, core_.Log("RegisterModel"), &state_->pool,
                  [this, request, response](const std::string& tenant) {
                    return core_.RegisterModel(tenant, *request, response);
                  });
}

grpc::ServerUnaryReactor* SimulationService::DeleteModel(grpc::CallbackServerContext* context,
                                                         const v1::DeleteModelRequest* request,
                                                         google::protobuf::Empty* /*response*/) {
  return RunUnary(context, core_.Log("DeleteModel", {}, request->name()), nullptr,
                  [this, request](const std::string& tenant) {
                    return core_.DeleteModel(tenant, *request);
                  });
}

// ---- sessions --------------------------------------------------------------------------------

grpc::ServerUnaryReactor* SimulationService::CreateSession(grpc::CallbackServerContext* context,
                                                           const v1::CreateSessionRequest* request,
                                                           v1::Session* response) {
  RpcLog log = core_.Log("CreateSession", {}, request->model());
  return RunUnary(context, log, &state_->pool,
                  [this, request, response](const std::string& tenant) {
                    return core_.CreateSession(tenant, *request, response);
                  });
}

grpc::ServerUnaryReactor* SimulationService::GetSession(grpc::CallbackServerContext* context,
                                                        const v1::GetSessionRequest* request,
                                                        v1::Session* response) {
  return RunUnary(context, core_.Log("GetSession", request->name()),
                  nullptr, [this, request, response](const std::string& tenant) {
                    return core_.GetSession(tenant, *request, response);
                  });
}

grpc::ServerUnaryReactor* SimulationService::ListSessions(grpc::CallbackServerContext* context,
                                                          const v1::ListSessionsRequest* request,
                                                          v1::ListSessionsResponse* response) {
  return RunUnary(context, core_.Log("ListSessions"), nullptr,
                  [this, request, response](const std::string& tenant) {
                    return core_.ListSessions(tenant, *request, response);
                  });
}

grpc::ServerUnaryReactor* SimulationService::UpdateSession(grpc::CallbackServerContext* context,
                                                           const v1::UpdateSessionRequest* request,
                                                           v1::Session* response) {
  return RunUnary(context,
                  core_.Log("UpdateSession", request->name()),
                  &state_->pool,
                  [this, request, response](const std::string& tenant) {
                    return core_.UpdateSession(tenant, *request, response);
                  });
}

grpc::ServerUnaryReactor* SimulationService::ControlSession(grpc::CallbackServerContext* context,
                                                            const v1::ControlSessionRequest* request,
                                                            v1::Session* response) {
  // On the pool: without a stream, a change runs consistent initialization.
  return RunUnary(context, core_.Log("ControlSession", request->name()), &state_->pool,
                  [this, request, response](const std::string& tenant) {
                    return core_.ControlSession(tenant, *request, response);
                  });
}

grpc::ServerUnaryReactor* SimulationService::ForkSession(grpc::CallbackServerContext* context,
                                                         const v1::ForkSessionRequest* request,
                                                         v1::Session* response) {
  return RunUnary(context, core_.Log("ForkSession", request->name()),
                  &state_->pool,
                  [this, request, response](const std::string& tenant) {
                    return core_.ForkSession(tenant, *request, response);
                  });
}

grpc::ServerUnaryReactor* SimulationService::DeleteSession(grpc::CallbackServerContext* context,
                                                           const v1::DeleteSessionRequest* request,
                                                           google::protobuf::Empty* /*response*/) {
  // On the pool: it may wait for the session's driving stream to let go, and gRPC's callback
  // threads must not block.
  return RunUnary(context,
                  core_.Log("DeleteSession", request->name()),
                  &state_->pool, [this, request](const std::string& tenant) {
                    return core_.DeleteSession(tenant, *request);
                  });
}

// ---- streams ---------------------------------------------------------------------------------

grpc::ServerWriteReactor<v1::StateChunk>* SimulationService::StartStream(
    const std::string& tenant, StreamStart start, RpcLog log) {
  auto* stream = new StateStream(&state_->pool, &state_->counters, std::move(start.source),
                                 start.settings, std::move(log), core_.StreamDone(tenant));
  start.slot.Attach(stream);
  stream->Begin();
  return stream;
}

grpc::ServerWriteReactor<v1::StateChunk>* SimulationService::StreamStates(
    grpc::CallbackServerContext* context, const v1::StreamStatesRequest* request) {
  RpcLog log = core_.Log("StreamStates", request->name());
  log.set_call(*context);
  std::string tenant;
  grpc::Status status = Authenticate(*context, &tenant);
  log.set_tenant(tenant);
  StreamStart start;
  if (status.ok()) status = core_.OpenStateStream(tenant, *request, &log, &start);
  if (!status.ok()) return new RefusedStream(log.Finish(Bounded(status)));
  if (!replica_name_.empty()) context->AddInitialMetadata(kReplicaHeader, replica_name_);
  return StartStream(tenant, std::move(start), std::move(log));
}

grpc::ServerWriteReactor<v1::StateChunk>* SimulationService::Simulate(
    grpc::CallbackServerContext* context, const v1::SimulateRequest* request) {
  RpcLog log = core_.Log("Simulate", {},
                         request->source_case() == v1::SimulateRequest::kSpecJson
                             ? "(spec_json)"
                             : request->model());
  log.set_call(*context);
  std::string tenant;
  grpc::Status status = Authenticate(*context, &tenant);
  log.set_tenant(tenant);
  StreamStart start;
  if (status.ok()) status = core_.OpenSimulate(tenant, *request, &start);
  if (!status.ok()) return new RefusedStream(log.Finish(Bounded(status)));
  if (!replica_name_.empty()) context->AddInitialMetadata(kReplicaHeader, replica_name_);
  return StartStream(tenant, std::move(start), std::move(log));
}

// ---- server --------------------------------------------------------------------------------

grpc::ServerUnaryReactor* SimulationService::GetServerInfo(grpc::CallbackServerContext* context,
                                                           const v1::GetServerInfoRequest* /*request*/,
                                                           v1::ServerInfo* response) {
  return RunUnary(context, core_.Log("GetServerInfo"), nullptr,
                  [this, response](const std::string& /*tenant*/) {
                    core_.GetServerInfo(response);
                    return grpc::Status::OK;
                  });
}

}  // namespace tether::server
