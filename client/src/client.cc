#include "tether/client/client.h"

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <random>
#include <thread>

#include <grpcpp/client_context.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>

#include "grpc/health/v1/health.grpc.pb.h"
#include "stream_decoder.h"

namespace tether::client {
namespace {

std::string WithPrefix(std::string_view prefix, std::string_view name) {
  if (name.substr(0, prefix.size()) == prefix) return std::string(name);
  return std::string(prefix) + std::string(name);
}

// The id part of "sessions/{id}" or "{id}".
std::string SessionId(std::string_view name) {
  constexpr std::string_view kPrefix = "sessions/";
  if (name.substr(0, kPrefix.size()) == kPrefix) name.remove_prefix(kPrefix.size());
  return std::string(name);
}

// A session id for CreateSession without one, so that its routing key is known before the
// call: "cc-" and 64 random bits in hex (unique enough among one server's sessions; a
// collision is ALREADY_EXISTS, not a silent merge).
std::string NewSessionId() {
  thread_local std::mt19937_64 engine{std::random_device{}()};
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(engine()));
  return std::string("cc-") + hex;
}

// The error of every call of a Client whose options are invalid.
Error OptionsError(const std::string& problem) {
  Error error;
  error.code = grpc::StatusCode::INVALID_ARGUMENT;
  error.message = "invalid client options: " + problem;
  return error;
}

// How many forks' routing keys a Client remembers; beyond it the oldest-learnt are dropped
// (calls for them then fall back to the fork's own id).
constexpr std::size_t kMaxRememberedKeys = 1 << 16;

// The x-tether-replica initial metadata the server sent, else the peer address.
std::string ReplicaOf(const grpc::ClientContext& context) {
  const auto& metadata = context.GetServerInitialMetadata();
  if (const auto named = metadata.find("x-tether-replica"); named != metadata.end()) {
    return std::string(named->second.data(), named->second.size());
  }
  return context.peer();
}

}  // namespace

// Reads a server stream to its end through a StreamDecoder; cancels the call when the decoder
// says stop, then drains (Finish requires that every message was read).
template <typename Request, typename StartCall>
StreamEnd Client::Stream(std::string_view routing_key, const Request& request,
                         const StreamHandlers& handlers, StartCall start) {
  if (!options_problem_.empty()) {
    StreamEnd end;
    end.error = OptionsError(options_problem_);
    return end;
  }
  grpc::ClientContext context;
  Prepare(&context, options_.stream_deadline, routing_key);
  auto reader = start(&context, request);
  StreamDecoder decoder(handlers);
  // Read blocks until a message comes: the stop flag is watched beside it, and the watcher is
  // woken when the stream has been read (no wait for its next poll).
  std::mutex mutex;
  std::condition_variable read_all_cv;
  bool read_all = false;
  std::thread watcher;
  if (handlers.stop != nullptr) {
    watcher = std::thread([&, stop = handlers.stop] {
      std::unique_lock lock(mutex);
      while (!read_all_cv.wait_for(lock, StreamHandlers::kStopPollInterval,
                                   [&] { return read_all; })) {
        if (stop->load()) {
          context.TryCancel();
          return;
        }
      }
    });
  }
  v1::StateChunk chunk;
  bool reading = true;
  while (reader->Read(&chunk)) {
    if (reading && !decoder.Consume(chunk)) {
      reading = false;
      context.TryCancel();
    }
  }
  if (watcher.joinable()) {
    {
      std::lock_guard lock(mutex);
      read_all = true;
    }
    read_all_cv.notify_one();
    watcher.join();
  }
  StreamEnd end = decoder.Finish(reader->Finish());
  end.replica = ReplicaOf(context);
  return end;
}

std::string_view HealthStatusName(HealthStatus status) {
  switch (status) {
    case HealthStatus::kServing: return "SERVING";
    case HealthStatus::kNotServing: return "NOT_SERVING";
    case HealthStatus::kServiceUnknown: return "SERVICE_UNKNOWN";
    case HealthStatus::kUnknown: break;
  }
  return "UNKNOWN";
}

std::string ModelName(std::string_view name) { return WithPrefix("models/", name); }
std::string SessionName(std::string_view name) { return WithPrefix("sessions/", name); }

Client::Client(const std::string& target, ClientOptions options)
    // A copy, not a move: the order in which arguments are evaluated is unspecified, and the
    // channel must see the options before they could be moved from.
    : Client(CreateChannel(target, options), options) {}

std::shared_ptr<grpc::Channel> Client::CreateChannel(const std::string& target,
                                                     const ClientOptions& options) {
  grpc::ChannelArguments arguments;
  if (!options.tls_server_name.empty()) arguments.SetSslTargetNameOverride(options.tls_server_name);
  return grpc::CreateCustomChannel(target,
                                   options.channel_credentials != nullptr
                                       ? options.channel_credentials
                                       : grpc::InsecureChannelCredentials(),
                                   arguments);
}

Client::Client(std::shared_ptr<grpc::Channel> channel, ClientOptions options)
    : channel_(std::move(channel)),
      options_(std::move(options)),
      stub_(v1::SimulationService::NewStub(channel_)) {
  options_.IsValid(&options_problem_);
}

void Client::Prepare(grpc::ClientContext* context, std::chrono::milliseconds timeout,
                     std::string_view routing_key) const {
  if (timeout.count() > 0) context->set_deadline(std::chrono::system_clock::now() + timeout);
  if (options_.call_credentials != nullptr) context->set_credentials(options_.call_credentials);
  for (const auto& [key, value] : options_.metadata) context->AddMetadata(key, value);
  if (!routing_key.empty()) {
    context->AddMetadata(std::string(kRoutingKeyHeader), std::string(routing_key));
  }
}

std::string Client::RoutingKey(std::string_view name) const {
  std::string id = SessionId(name);
  std::lock_guard lock(keys_mutex_);
  if (const auto known = keys_.find(id); known != keys_.end()) return known->second;
  return id;
}

void Client::SetRoutingKey(std::string_view name, std::string key) {
  std::string id = SessionId(name);
  std::lock_guard lock(keys_mutex_);
  if (key.empty() || key == id) {  // a root session's key is its id: nothing to remember
    keys_.erase(id);
    return;
  }
  if (keys_.size() >= kMaxRememberedKeys && keys_.count(id) == 0) keys_.erase(keys_.begin());
  keys_[id] = std::move(key);
}

const v1::Session& Client::Remember(const v1::Session& session) {
  if (!session.routing_key().empty()) SetRoutingKey(session.name(), session.routing_key());
  return session;
}

Client::~Client() = default;

// Each attempt gets a fresh context and the full deadline; only UNAVAILABLE is retried, after
// initial_backoff · multiplier^(k−1) (capped), since only it says the call did not happen.
template <typename Response, typename Call>
Result<Response> Client::Unary(std::string_view routing_key, Call call) {
  if (!options_problem_.empty()) return OptionsError(options_problem_);
  auto backoff = options_.initial_backoff;
  for (int attempt = 1;; ++attempt) {
    grpc::ClientContext context;
    Prepare(&context, options_.deadline, routing_key);
    Response response;
    const grpc::Status status = call(&context, &response);
    if (status.ok()) return response;
    if (status.error_code() != grpc::StatusCode::UNAVAILABLE || attempt >= options_.max_attempts) {
      Error error = Error::FromStatus(status);
      error.attempts = attempt;
      return error;
    }
    std::this_thread::sleep_for(backoff);
    const auto next = std::chrono::duration_cast<std::chrono::milliseconds>(
        backoff * options_.backoff_multiplier);
    backoff = std::min(next, options_.max_backoff);
  }
}

Result<v1::ListModelsResponse> Client::ListModels(const v1::ListModelsRequest& request) {
  return Unary<v1::ListModelsResponse>({}, [&](grpc::ClientContext* c, v1::ListModelsResponse* r) {
    return stub_->ListModels(c, request, r);
  });
}

Result<std::vector<v1::Model>> Client::ListAllModels() {
  std::vector<v1::Model> models;
  v1::ListModelsRequest request;
  do {
    auto page = ListModels(request);
    if (!page.ok()) return page.error();
    models.insert(models.end(), page->models().begin(), page->models().end());
    request.set_page_token(page->next_page_token());
  } while (!request.page_token().empty());
  return models;
}

Result<v1::Model> Client::GetModel(std::string_view name) {
  v1::GetModelRequest request;
  request.set_name(ModelName(name));
  return Unary<v1::Model>({}, [&](grpc::ClientContext* c, v1::Model* r) {
    return stub_->GetModel(c, request, r);
  });
}

Result<v1::Model> Client::RegisterModel(std::string spec_json, bool replace) {
  v1::RegisterModelRequest request;
  request.set_spec_json(std::move(spec_json));
  request.set_replace(replace);
  return Unary<v1::Model>({}, [&](grpc::ClientContext* c, v1::Model* r) {
    return stub_->RegisterModel(c, request, r);
  });
}

Result<Done> Client::DeleteModel(std::string_view name) {
  v1::DeleteModelRequest request;
  request.set_name(ModelName(name));
  auto result = Unary<google::protobuf::Empty>(
      {}, [&](grpc::ClientContext* c, google::protobuf::Empty* r) {
        return stub_->DeleteModel(c, request, r);
      });
  if (!result.ok()) return result.error();
  return Done{};
}

Result<v1::Session> Client::CreateSession(const v1::CreateSessionRequest& request) {
  v1::CreateSessionRequest named = request;
  named.set_model(ModelName(request.model()));
  if (named.session_id().empty()) named.set_session_id(NewSessionId());
  auto session = Unary<v1::Session>(named.session_id(), [&](grpc::ClientContext* c, v1::Session* r) {
    return stub_->CreateSession(c, named, r);
  });
  if (session.ok()) Remember(*session);
  return session;
}

Result<v1::Session> Client::GetSession(std::string_view name) {
  v1::GetSessionRequest request;
  request.set_name(SessionName(name));
  auto session = Unary<v1::Session>(RoutingKey(name), [&](grpc::ClientContext* c, v1::Session* r) {
    return stub_->GetSession(c, request, r);
  });
  if (session.ok()) Remember(*session);
  return session;
}

Result<v1::ListSessionsResponse> Client::ListSessions(const v1::ListSessionsRequest& request) {
  auto page = Unary<v1::ListSessionsResponse>(
      {}, [&](grpc::ClientContext* c, v1::ListSessionsResponse* r) {
        return stub_->ListSessions(c, request, r);
      });
  if (page.ok()) {
    for (const v1::Session& session : page->sessions()) Remember(session);
  }
  return page;
}

Result<std::vector<v1::Session>> Client::ListAllSessions() {
  std::vector<v1::Session> sessions;
  v1::ListSessionsRequest request;
  do {
    auto page = ListSessions(request);
    if (!page.ok()) return page.error();
    sessions.insert(sessions.end(), page->sessions().begin(), page->sessions().end());
    request.set_page_token(page->next_page_token());
  } while (!request.page_token().empty());
  return sessions;
}

Result<v1::Session> Client::UpdateSession(const v1::UpdateSessionRequest& request) {
  v1::UpdateSessionRequest named = request;
  named.set_name(SessionName(request.name()));
  auto session = Unary<v1::Session>(RoutingKey(request.name()), [&](grpc::ClientContext* c, v1::Session* r) {
    return stub_->UpdateSession(c, named, r);
  });
  if (session.ok()) Remember(*session);
  return session;
}

Result<v1::Session> Client::ControlSession(const v1::ControlSessionRequest& request) {
  v1::ControlSessionRequest named = request;
  named.set_name(SessionName(request.name()));
  auto session = Unary<v1::Session>(RoutingKey(request.name()), [&](grpc::ClientContext* c, v1::Session* r) {
    return stub_->ControlSession(c, named, r);
  });
  if (session.ok()) Remember(*session);
  return session;
}

Result<v1::Session> Client::Pause(std::string_view name) {
  v1::ControlSessionRequest request;
  request.set_name(std::string(name));
  request.set_pause(true);
  return ControlSession(request);
}

Result<v1::Session> Client::ForkSession(std::string_view name, std::string session_id) {
  v1::ForkSessionRequest request;
  request.set_name(SessionName(name));
  request.set_session_id(std::move(session_id));
  const std::string key = RoutingKey(name);  // the fork lives on its parent's replica
  auto fork = Unary<v1::Session>(key, [&](grpc::ClientContext* c, v1::Session* r) {
    return stub_->ForkSession(c, request, r);
  });
  if (fork.ok()) SetRoutingKey(fork->name(), fork->routing_key().empty() ? key : fork->routing_key());
  return fork;
}

Result<Done> Client::DeleteSession(std::string_view name) {
  v1::DeleteSessionRequest request;
  request.set_name(SessionName(name));
  auto result = Unary<google::protobuf::Empty>(
      RoutingKey(name), [&](grpc::ClientContext* c, google::protobuf::Empty* r) {
        return stub_->DeleteSession(c, request, r);
      });
  if (!result.ok()) return result.error();
  SetRoutingKey(name, {});
  return Done{};
}

StreamEnd Client::StreamStates(const v1::StreamStatesRequest& request, const StreamHandlers& handlers) {
  v1::StreamStatesRequest named = request;
  named.set_name(SessionName(request.name()));
  return Stream(RoutingKey(request.name()), named, handlers, [this](grpc::ClientContext* c, const auto& r) {
    return stub_->StreamStates(c, r);
  });
}

StreamEnd Client::Resume(std::string_view session, std::uint64_t next_sample_index,
                         const StreamHandlers& handlers, v1::StreamStatesRequest request) {
  request.set_name(SessionName(session));
  request.set_start_sample_index(next_sample_index);
  return StreamStates(request, handlers);
}

StreamEnd Client::View(std::string_view session, const StreamHandlers& handlers,
                       v1::StreamStatesRequest request) {
  request.set_name(SessionName(session));
  request.set_view_only(true);
  return StreamStates(request, handlers);
}

StreamEnd Client::Simulate(const v1::SimulateRequest& request, const StreamHandlers& handlers) {
  return Stream({}, request, handlers, [this](grpc::ClientContext* c, const auto& r) {
    return stub_->Simulate(c, r);
  });
}

Result<v1::ServerInfo> Client::GetServerInfo() {
  return Unary<v1::ServerInfo>({}, [&](grpc::ClientContext* c, v1::ServerInfo* r) {
    return stub_->GetServerInfo(c, v1::GetServerInfoRequest{}, r);
  });
}

Result<HealthStatus> Client::Health(const std::string& service) {
  if (!options_problem_.empty()) return OptionsError(options_problem_);
  auto health = grpc::health::v1::Health::NewStub(channel_);
  grpc::ClientContext context;
  Prepare(&context, options_.deadline, {});
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(service);
  grpc::health::v1::HealthCheckResponse response;
  const grpc::Status status = health->Check(&context, request, &response);
  if (!status.ok()) return Error::FromStatus(status);
  switch (response.status()) {
    case grpc::health::v1::HealthCheckResponse::SERVING: return HealthStatus::kServing;
    case grpc::health::v1::HealthCheckResponse::NOT_SERVING: return HealthStatus::kNotServing;
    case grpc::health::v1::HealthCheckResponse::SERVICE_UNKNOWN: return HealthStatus::kServiceUnknown;
    default: return HealthStatus::kUnknown;
  }
}

}  // namespace tether::client
