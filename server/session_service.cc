#include "session_service.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <thread>

#include "convert.h"
#include "errors.h"
#include "one_shot_run.h"
#include "session_run.h"
#include "view_run.h"
#include "tether/simulate/overrides.h"
#include "tether/model/unlisted_problems.h"
#include "tether/version.h"

namespace tether::server {
namespace {

constexpr std::string_view kServiceName = "tether.v1.SimulationService/";
// AIP-158 paging: the page size when the request says 0, and the largest accepted.
constexpr int kDefaultPageSize = 100;
constexpr int kMaxPageSize = 1000;

// The scheme of the authorization metadata (RFC 6750 §2.1; the scheme is case-insensitive).
constexpr std::string_view kBearer = "bearer ";

grpc::Status PageSize(int requested, std::size_t* size) {
  if (requested < 0 || requested > kMaxPageSize) {
    return InvalidArgument("bad page_size",
                           {{"page_size", "page_size = " + std::to_string(requested) +
                                              "; must be in [0, " + std::to_string(kMaxPageSize) + "]"}});
  }
  *size = static_cast<std::size_t>(requested == 0 ? kDefaultPageSize : requested);
  return grpc::Status::OK;
}

// "'sessions/{id}'", the id as the client sent it, quoted and bounded.
std::string SessionName(std::string_view id) {
  return Quote(std::string(kSessionPrefix) + std::string(id));
}

grpc::Status SessionNotFound(std::string_view id) {
  return Error(grpc::StatusCode::NOT_FOUND, "session " + SessionName(id) + " not found");
}

grpc::Status Busy(std::string_view id, std::string_view what) {
  return Error(grpc::StatusCode::FAILED_PRECONDITION,
               "session " + SessionName(id) + " has an open StreamStates call; cancel it before " +
                   std::string(what));
}

// SESSION_STATE_FAILED: the run cannot go on, nor could a copy of it.
grpc::Status FailedSource(std::string_view id, const std::string& failure) {
  return Error(grpc::StatusCode::FAILED_PRECONDITION,
               "session " + SessionName(id) + " failed and cannot be forked (" + failure +
                   "); UpdateSession with new values revives it, then it can be forked");
}

grpc::Status Draining() {
  return Error(grpc::StatusCode::UNAVAILABLE,
               "server is draining: no new sessions or streams; retry on another replica");
}

grpc::Status ChooseSessionId(const std::string& requested, std::string* id) {
  if (requested.empty()) {
    *id = NewSessionId();
    return grpc::Status::OK;
  }
  if (!IsValidSessionId(requested)) {
    return InvalidArgument("bad session_id",
                           {{"session_id", Quote(requested) + " must match [a-z][a-z0-9-]{0,62}"}});
  }
  *id = requested;
  return grpc::Status::OK;
}

grpc::Status SessionLimit(const SessionStore& store) {
  return Error(grpc::StatusCode::RESOURCE_EXHAUSTED,
               "max_sessions = " + std::to_string(store.max_sessions()) +
                   " live sessions reached; delete sessions or wait for idle ones to expire");
}

grpc::Status TenantSessionLimit(const SessionStore& store) {
  return Error(grpc::StatusCode::RESOURCE_EXHAUSTED,
               "tenant_max_sessions = " + std::to_string(store.max_per_tenant()) +
                   " live sessions of this tenant reached; delete sessions or wait for idle "
                   "ones to expire");
}

// Either quota that stops `tenant` from adding a session now; OK if none. Add checks again
// atomically; this spares a costly initialization that could not be kept.
grpc::Status SessionQuota(const SessionStore& store, const std::string& tenant) {
  if (store.size() >= store.max_sessions()) return SessionLimit(store);
  if (store.size(tenant) >= store.max_per_tenant()) return TenantSessionLimit(store);
  return grpc::Status::OK;
}

grpc::Status AddSession(SessionStore* store, std::shared_ptr<Session> session) {
  const std::string id = session->id;
  switch (store->Add(std::move(session))) {
    case SessionStore::AddResult::kOk: return grpc::Status::OK;
    case SessionStore::AddResult::kAlreadyExists:
      return Error(grpc::StatusCode::ALREADY_EXISTS, "session " + SessionName(id) + " already exists");
    case SessionStore::AddResult::kTenantLimit: return TenantSessionLimit(*store);
    case SessionStore::AddResult::kLimit: break;
  }
  return SessionLimit(*store);
}

std::size_t TenantMaxSessions(const ServerConfig& config) {
  // Without tenants the one anonymous tenant has the whole server.
  return config.token_file.empty() ? config.max_sessions : config.tenant_max_sessions;
}

}  // namespace

ServiceState::ServiceState(const ServerConfig& config_in)
    : config(config_in),
      registry(config_in.ModelLimits(), config_in.max_registered_models),
      models(&registry, !config_in.token_file.empty(), config_in.ModelLimits(),
             config_in.max_registered_models, config_in.tenant_max_registered_models),
      sessions(config_in.max_sessions, TenantMaxSessions(config_in), config_in.session_ttl,
               config_in.replay_total_bytes),
      pool(config_in.worker_threads != 0
               ? config_in.worker_threads
               : std::max<std::size_t>(1, std::thread::hardware_concurrency())) {}

std::string MethodName(std::string_view name) {
  return std::string(kServiceName) + std::string(name);
}

RpcLog SessionService::Log(std::string_view method, std::string session, std::string model) const {
  const bool streaming = method == "StreamStates" || method == "Simulate";
  RpcLog log(state_->config.log_rpcs, state_->config.log_level, &state_->metrics, streaming,
             MethodName(method), std::move(session));
  log.set_model(std::string(StripPrefix(model, kModelPrefix)));
  return log;
}

grpc::Status SessionService::Authenticate(std::optional<std::string_view> authorization,
                                          std::string* tenant) {
  tenant->clear();
  if (state_->tokens == nullptr) return grpc::Status::OK;
  if (!authorization) {
    return Error(grpc::StatusCode::UNAUTHENTICATED,
                 "this server requires a bearer token: send `authorization: Bearer TOKEN` (gRPC "
                 "metadata or HTTP header; the tether CLI's --token or --token-file)");
  }
  const std::string_view value = *authorization;
  const bool bearer = value.size() > kBearer.size() &&
                      std::equal(kBearer.begin(), kBearer.end(), value.begin(), [](char a, char b) {
                        return a == std::tolower(static_cast<unsigned char>(b));
                      });
  if (!bearer) {
    return Error(grpc::StatusCode::UNAUTHENTICATED,
                 "the authorization metadata is not a bearer token (expected `Bearer TOKEN`)");
  }
  std::optional<std::string> owner = state_->tokens->Lookup(value.substr(kBearer.size()));
  if (!owner) {
    return Error(grpc::StatusCode::UNAUTHENTICATED,
                 "the bearer token is not accepted (not in the server's token file)");
  }
  *tenant = std::move(*owner);
  return grpc::Status::OK;
}

namespace {

// Changes a session that no stream drives (caller holds its mutex): the history stays (its
// samples describe the session up to the change), the next computed sample carries the
// UPDATED event, and a client that had not received every computed sample still gets them
// (delivered_end is kept) before the change.
grpc::Status ApplyChange(Session* session, const ControlCommand& change,
                         std::chrono::milliseconds ttl, v1::Session* response) {
  ChangedRun changed = ChangeRun(*session->simulation, change);
  if (changed.simulation == nullptr) return InvalidArgument("bad update", changed.violations);
  session->InstallChange(std::move(changed.simulation), std::move(changed.event));
  if (session->state != v1::SESSION_STATE_CREATED) session->state = v1::SESSION_STATE_PAUSED;
  *response = session->ToProto(ttl);
  return grpc::Status::OK;
}

}  // namespace

grpc::Status SessionService::ListModels(const std::string& tenant,
                                             const v1::ListModelsRequest& request,
                                             v1::ListModelsResponse* response) {
  std::size_t page = 0;
  if (grpc::Status s = PageSize(request.page_size(), &page); !s.ok()) return s;
  const std::vector<model::ModelRegistry::Entry> entries = state_->models.List(tenant);
  for (const auto& entry : entries) {
    if (!request.page_token().empty() && entry.model->name <= request.page_token()) continue;
    if (static_cast<std::size_t>(response->models_size()) == page) {
      response->set_next_page_token(response->models(response->models_size() - 1).name().substr(
          kModelPrefix.size()));
      break;
    }
    *response->add_models() = Describe(entry);
  }
  return grpc::Status::OK;
}

grpc::Status SessionService::GetModel(const std::string& tenant,
                                           const v1::GetModelRequest& request, v1::Model* response) {
  const std::string_view name = StripPrefix(request.name(), kModelPrefix);
  std::shared_ptr<const model::Model> found = state_->models.Find(tenant, name);
  if (found == nullptr) {
    return Error(grpc::StatusCode::NOT_FOUND, state_->models.NotFoundMessage(tenant, name));
  }
  *response = Describe({found, state_->models.IsBuiltin(name)});
  return grpc::Status::OK;
}

grpc::Status SessionService::RegisterModel(const std::string& tenant,
                                                const v1::RegisterModelRequest& request,
                                                v1::Model* response) {
  if (request.spec_json().size() > state_->config.max_spec_bytes) {
    return InvalidArgument("spec too large",
                           {{"spec_json", std::to_string(request.spec_json().size()) +
                                              " bytes; the limit max_spec_bytes is " +
                                              std::to_string(state_->config.max_spec_bytes)}});
  }
  model::RegistryResult result =
      state_->models.Register(tenant, request.spec_json(), request.replace());
  switch (result.status) {
    case model::RegistryStatus::kOk:
      *response = Describe({result.model, false});
      return grpc::Status::OK;
    case model::RegistryStatus::kInvalid:
      return InvalidArgument("invalid model spec", SpecViolations(result.problems, "spec_json: "),
                             model::UnlistedProblems(result.problems));
    case model::RegistryStatus::kAlreadyExists:
      return Error(grpc::StatusCode::ALREADY_EXISTS, result.message);
    case model::RegistryStatus::kLimit:
      if (!state_->config.token_file.empty()) {
        return Error(grpc::StatusCode::RESOURCE_EXHAUSTED, result.message);  // names its quota
      }
      return Error(grpc::StatusCode::RESOURCE_EXHAUSTED,
                   "max_registered_models = " + std::to_string(state_->config.max_registered_models) +
                       " reached; delete registered models first (" + result.message + ")");
    case model::RegistryStatus::kReadOnly:
      return Error(grpc::StatusCode::FAILED_PRECONDITION, result.message);
    case model::RegistryStatus::kNotFound:
      break;
  }
  return Error(grpc::StatusCode::INTERNAL, "unexpected registry status: " + result.message);
}

grpc::Status SessionService::DeleteModel(const std::string& tenant,
                                              const v1::DeleteModelRequest& request) {
  const std::string_view name = StripPrefix(request.name(), kModelPrefix);
  model::RegistryResult result = state_->models.Remove(tenant, name);
  switch (result.status) {
    case model::RegistryStatus::kOk:
      return grpc::Status::OK;
    case model::RegistryStatus::kReadOnly:
      if (!state_->models.IsBuiltin(name)) {
        return Error(grpc::StatusCode::FAILED_PRECONDITION, result.message);
      }
      return Error(grpc::StatusCode::FAILED_PRECONDITION,
                   "model " + Quote(name) + " belongs to the built-in catalog, which is read-only");
    case model::RegistryStatus::kNotFound:
      return Error(grpc::StatusCode::NOT_FOUND, result.message);
    default:
      break;
  }
  return Error(grpc::StatusCode::INTERNAL, "unexpected registry status: " + result.message);
}

grpc::Status SessionService::CreateSession(const std::string& tenant,
                                                const v1::CreateSessionRequest& request,
                                                v1::Session* response) {
  if (state_->draining.load()) return Draining();
  std::string id;
  if (grpc::Status s = ChooseSessionId(request.session_id(), &id); !s.ok()) return s;
  if (grpc::Status s = SessionQuota(state_->sessions, tenant); !s.ok()) return s;
  const std::string model_name(StripPrefix(request.model(), kModelPrefix));
  std::shared_ptr<const model::Model> model = state_->models.Find(tenant, model_name);
  if (model == nullptr) {
    return Error(grpc::StatusCode::NOT_FOUND, state_->models.NotFoundMessage(tenant, model_name));
  }
  std::unique_ptr<simulate::Simulation> simulation;
  if (grpc::Status s = CreateRun(model, request.parameters(), request.initial_values(),
                                 request.fixed(), request.options(),
                                 std::numeric_limits<std::uint64_t>::max(), &simulation);
      !s.ok()) {
    return s;
  }
  auto session = std::make_shared<Session>(tenant, id, model_name, std::move(simulation),
                                           state_->config.replay_bytes,
                                           state_->sessions.replay_budget());
  {
    std::lock_guard lock(session->mutex);
    *response = session->ToProto(state_->config.session_ttl);
  }
  return AddSession(&state_->sessions, std::move(session));
}

grpc::Status SessionService::GetSession(const std::string& tenant,
                                             const v1::GetSessionRequest& request,
                                             v1::Session* response) {
  const std::string id(StripPrefix(request.name(), kSessionPrefix));
  std::shared_ptr<Session> session = state_->sessions.Find(tenant, id);
  if (session == nullptr) return SessionNotFound(id);
  std::lock_guard lock(session->mutex);
  session->Touch();
  *response = session->ToProto(state_->config.session_ttl);
  return grpc::Status::OK;
}

grpc::Status SessionService::ListSessions(const std::string& tenant,
                                               const v1::ListSessionsRequest& request,
                                               v1::ListSessionsResponse* response) {
  std::size_t page = 0;
  if (grpc::Status s = PageSize(request.page_size(), &page); !s.ok()) return s;
  // One more than the page tells whether another page follows.
  std::vector<std::shared_ptr<Session>> sessions =
      state_->sessions.List(tenant, request.page_token(), page + 1);
  for (std::size_t i = 0; i < sessions.size() && i < page; ++i) {
    std::lock_guard lock(sessions[i]->mutex);
    *response->add_sessions() = sessions[i]->ToProto(state_->config.session_ttl);
  }
  if (sessions.size() > page) response->set_next_page_token(sessions[page - 1]->id);
  return grpc::Status::OK;
}

grpc::Status SessionService::UpdateSession(const std::string& tenant,
                                                const v1::UpdateSessionRequest& request,
                                                v1::Session* response) {
  const std::string id(StripPrefix(request.name(), kSessionPrefix));
  std::shared_ptr<Session> session = state_->sessions.Find(tenant, id);
  if (session == nullptr) return SessionNotFound(id);
  std::unique_lock lock(session->mutex);
  if (!session->AwaitDriverRelease(lock)) {
    return Busy(id, "updating it, or change it with ControlSession");
  }
  ControlCommand change;
  change.parameters = ToMap(request.parameters());
  change.values = ToMap(request.values());
  return ApplyChange(session.get(), change, state_->config.session_ttl, response);
}

grpc::Status SessionService::ControlSession(const std::string& tenant,
                                                 const v1::ControlSessionRequest& request,
                                                 v1::Session* response) {
  const std::string id(StripPrefix(request.name(), kSessionPrefix));
  ControlCommand command;
  command.pause = request.pause();
  command.parameters = ToMap(request.parameters());
  command.values = ToMap(request.values());
  if (command.empty()) {
    return InvalidArgument("empty control command",
                           {{"pause", "nothing to do: set pause, parameters or values"}});
  }
  std::shared_ptr<Session> session = state_->sessions.Find(tenant, id);
  if (session == nullptr) return SessionNotFound(id);
  std::lock_guard lock(session->mutex);
  if (!session->streaming) {
    // Nothing runs: a pause has nothing to stop, and a change is an UpdateSession.
    if (command.changes()) {
      return ApplyChange(session.get(), command, state_->config.session_ttl, response);
    }
    *response = session->ToProto(state_->config.session_ttl);
    return grpc::Status::OK;
  }
  // The stream's worker applies it; refuse what it would refuse now, while the caller waits.
  // The model is immutable and shared, so reading it beside the running stream is safe.
  const std::vector<simulate::SetupProblem> problems = simulate::OverrideProblems(
      session->simulation->model(), command.parameters, command.values);
  if (!problems.empty()) {
    return InvalidArgument("bad control command", SetupViolations(problems, "values"));
  }
  session->control.Merge(command);
  session->Touch();
  *response = session->ToProto(state_->config.session_ttl);
  return grpc::Status::OK;
}

grpc::Status SessionService::ForkSession(const std::string& tenant,
                                              const v1::ForkSessionRequest& request,
                                              v1::Session* response) {
  if (state_->draining.load()) return Draining();
  const std::string id(StripPrefix(request.name(), kSessionPrefix));
  std::shared_ptr<Session> source = state_->sessions.Find(tenant, id);
  if (source == nullptr) return SessionNotFound(id);
  if (grpc::Status s = SessionQuota(state_->sessions, tenant); !s.ok()) return s;
  std::string fork_id;
  if (grpc::Status s = ChooseSessionId(request.session_id(), &fork_id); !s.ok()) return s;
  std::unique_ptr<simulate::Simulation> copy;
  {
    std::unique_lock lock(source->mutex);
    if (!source->AwaitDriverRelease(lock)) return Busy(id, "forking it");
    if (source->state == v1::SESSION_STATE_FAILED) return FailedSource(id, source->last_message);
    copy = std::make_unique<simulate::Simulation>(*source->simulation);
    source->Touch();
  }
  // The fork stays in its parent's tenant and routing key (the parent's replica).
  auto fork = std::make_shared<Session>(source->tenant, fork_id, source->model, std::move(copy),
                                        state_->config.replay_bytes,
                                        state_->sessions.replay_budget(), source->routing_key);
  {
    std::lock_guard lock(fork->mutex);
    *response = fork->ToProto(state_->config.session_ttl);
  }
  return AddSession(&state_->sessions, std::move(fork));
}

grpc::Status SessionService::DeleteSession(const std::string& tenant,
                                                const v1::DeleteSessionRequest& request) {
  const std::string id(StripPrefix(request.name(), kSessionPrefix));
  if (std::shared_ptr<Session> session = state_->sessions.Find(tenant, id); session != nullptr) {
    std::unique_lock lock(session->mutex);
    session->AwaitDriverRelease(lock);
  }
  bool streaming = false;
  if (!state_->sessions.Remove(tenant, id, &streaming)) return SessionNotFound(id);
  if (streaming) return Busy(id, "deleting it");
  return grpc::Status::OK;
}

void SessionService::GetServerInfo(v1::ServerInfo* response) {
  const ServerConfig& config = state_->config;
  response->set_version(std::string(kVersion));
  response->set_git_commit(std::string(kGitCommit));
  response->set_build(std::string(kBuildType) + ", " + std::string(kCompiler));
  for (const std::string_view method : simulate::MethodNames()) {
    response->add_methods(std::string(method));
  }
  response->set_max_sessions(config.max_sessions);
  response->set_max_streams(config.max_streams);
  response->set_max_frame_samples(config.max_frame_samples);
  response->set_max_spec_bytes(config.max_spec_bytes);
  response->set_max_spec_variables(config.max_spec_variables);
  response->set_max_spec_constraints(config.max_spec_constraints);
  response->set_max_spec_nodes(config.max_spec_nodes);
  response->set_max_steps_per_stream(config.max_steps_per_stream);
  response->set_session_ttl_seconds(std::chrono::duration<double>(config.session_ttl).count());
  TimestampToProto(state_->start_time, response->mutable_start_time());
  response->set_draining(state_->draining.load());
}

grpc::Status SessionService::AdmitStream(const std::string& tenant,
                                            std::size_t frame_samples_requested,
                                            double realtime_factor, std::size_t* frame_samples,
                                            StreamSlot* slot) {
  if (state_->draining.load()) return Draining();
  std::vector<FieldViolation> violations;
  if (frame_samples_requested > state_->config.max_frame_samples) {
    violations.push_back({"frame_samples", "frame_samples = " + std::to_string(frame_samples_requested) +
                                               "; the limit max_frame_samples is " +
                                               std::to_string(state_->config.max_frame_samples)});
  }
  if (!(realtime_factor >= 0.0) || !std::isfinite(realtime_factor)) {
    violations.push_back({"realtime_factor", "realtime_factor = " + FormatDouble(realtime_factor) +
                                                 "; must be finite and >= 0"});
  }
  if (!violations.empty()) return InvalidArgument("bad stream request", violations);
  *frame_samples = frame_samples_requested == 0 ? state_->config.default_frame_samples
                                                : frame_samples_requested;
  std::lock_guard lock(state_->streams_mutex);
  if (state_->streams.size() + state_->admitted_streams >= state_->config.max_streams) {
    return Error(grpc::StatusCode::RESOURCE_EXHAUSTED,
                 "max_streams = " + std::to_string(state_->config.max_streams) +
                     " concurrent streams reached; retry later");
  }
  if (state_->tokens != nullptr) {
    const auto open = state_->tenant_streams.find(tenant);
    if (open != state_->tenant_streams.end() && open->second >= state_->config.tenant_max_streams) {
      return Error(grpc::StatusCode::RESOURCE_EXHAUSTED,
                   "tenant_max_streams = " + std::to_string(state_->config.tenant_max_streams) +
                       " concurrent streams of this tenant reached; retry later");
    }
  }
  ++state_->admitted_streams;
  ++state_->tenant_streams[tenant];
  *slot = StreamSlot(state_, tenant);
  return grpc::Status::OK;
}

v1::Model SessionService::Describe(const model::ModelRegistry::Entry& entry) {
  return ModelToProto(*entry.model, entry.builtin, simulate::DefaultColumns(*entry.model));
}

// ---- streams ---------------------------------------------------------------------------------

grpc::Status SessionService::OpenStateStream(const std::string& tenant,
                                             const v1::StreamStatesRequest& request, RpcLog* log,
                                             StreamStart* out) {
  out->settings.realtime_factor = request.realtime_factor();
  if (grpc::Status s = AdmitStream(tenant, request.frame_samples(), request.realtime_factor(),
                                   &out->settings.frame_samples, &out->slot);
      !s.ok()) {
    return s;
  }
  const std::string id(StripPrefix(request.name(), kSessionPrefix));
  std::shared_ptr<Session> session = state_->sessions.Find(tenant, id);
  if (session == nullptr) return SessionNotFound(id);
  log->set_model(session->model);
  if (request.view_only()) {
    out->source = std::make_unique<ViewRun>(std::move(session), request);
  } else {
    out->source = std::make_unique<SessionRun>(std::move(session), &state_->sessions, request,
                                               state_->config.max_steps_per_stream,
                                               state_->config.max_samples_per_stream);
  }
  return out->source->Check();
}

grpc::Status SessionService::OpenSimulate(const std::string& tenant,
                                          const v1::SimulateRequest& request, StreamStart* out) {
  if (grpc::Status s = AdmitStream(tenant, request.frame_samples(), 0.0,
                                   &out->settings.frame_samples, &out->slot);
      !s.ok()) {
    return s;
  }
  out->source = std::make_unique<OneShotRun>(&state_->models, tenant, request,
                                             state_->config.max_spec_bytes,
                                             state_->config.ModelLimits(),
                                             state_->config.max_steps_per_stream,
                                             state_->config.max_samples_per_stream);
  return grpc::Status::OK;
}

namespace {

// One stream of `tenant` fewer (the caller holds streams_mutex); a tenant with none is dropped.
void ReleaseTenantStream(ServiceState* state, const std::string& tenant) {
  const auto open = state->tenant_streams.find(tenant);
  if (open != state->tenant_streams.end() && --open->second == 0) {
    state->tenant_streams.erase(open);
  }
}

}  // namespace

std::function<void(StreamDriver*)> SessionService::StreamDone(const std::string& tenant) {
  return [state = state_, tenant](StreamDriver* done) {
    std::lock_guard lock(state->streams_mutex);
    state->streams.erase(done);
    ReleaseTenantStream(state, tenant);
  };
}

StreamSlot& StreamSlot::operator=(StreamSlot&& other) noexcept {
  if (this != &other) {
    Release();
    state_ = std::exchange(other.state_, nullptr);
    tenant_ = std::move(other.tenant_);
  }
  return *this;
}

void StreamSlot::Attach(StreamDriver* stream) {
  if (state_ == nullptr) return;
  std::lock_guard lock(state_->streams_mutex);
  --state_->admitted_streams;
  state_->streams.insert(stream);
  state_ = nullptr;
}

void StreamSlot::Release() {
  if (state_ == nullptr) return;
  std::lock_guard lock(state_->streams_mutex);
  --state_->admitted_streams;
  ReleaseTenantStream(state_, tenant_);
  state_ = nullptr;
}

}  // namespace tether::server
