// tether::client::Client — the typed C++ API of tether.v1.SimulationService.
//
//   tether::client::Client client("127.0.0.1:50051");
//   auto models = client.ListModels();
//   if (!models.ok()) std::cerr << models.error().ToString();
//   v1::SimulateRequest request;
//   request.set_model("pendulum");
//   client.Simulate(request, {.on_sample = [](const Sample& s) {
//     std::cout << s.t << " " << s.Value("x") << "\n";
//     return true;
//   }});
//
// A Client owns its channel and stub and is safe to use from several threads at once (gRPC
// stubs are). Unary calls return Result<T>; UNAVAILABLE is retried with exponential backoff
// (ClientOptions), every other error is returned at once. Streams deliver decoded samples to
// callbacks and return a StreamEnd; a broken stream is continued explicitly with Resume.
//
// Session routing: every call about a session (Get, Update, Fork, Delete, StreamStates) carries
// the metadata x-tether-session = the session's routing key, so that the session proxy
// (deploy/README.md) sends it to the replica that holds the session. The key is the root
// session's id; a fork keeps its parent's. CreateSession without a session_id chooses one
// ("cc-" and 16 hex digits), so that the key is known before a replica is. The client learns
// keys from the Session resources it receives (routing_key); for a fork made by another
// process, tell it with SetRoutingKey. Catalog calls and Simulate carry no key.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <grpcpp/channel.h>

#include "tether/client/client_options.h"
#include "tether/client/error.h"
#include "tether/client/result.h"
#include "tether/client/sample.h"
#include "tether/v1/simulation_service.grpc.pb.h"

namespace tether::client {

// grpc.health.v1 serving status.
enum class HealthStatus { kUnknown, kServing, kNotServing, kServiceUnknown };
std::string_view HealthStatusName(HealthStatus status);  // "SERVING", "NOT_SERVING", …

class Client {
 public:
  // Connects (lazily, on the first call) to `target` "host:port", with
  // options.channel_credentials (plaintext when null). Invalid options (ClientOptions::IsValid)
  // fail every call with INVALID_ARGUMENT "invalid client options: …" and send nothing.
  explicit Client(const std::string& target, ClientOptions options = {});
  // Uses an existing channel, e.g. tether::server::Server::InProcessChannel().
  explicit Client(std::shared_ptr<grpc::Channel> channel, ClientOptions options = {});
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Models. `name` is "models/{model}" or a bare "{model}".
  Result<v1::ListModelsResponse> ListModels(const v1::ListModelsRequest& request = {});
  Result<std::vector<v1::Model>> ListAllModels();  // follows next_page_token to the end
  Result<v1::Model> GetModel(std::string_view name);
  // `replace`: swap a registered model of the same name for this one (RegisterModelRequest).
  Result<v1::Model> RegisterModel(std::string spec_json, bool replace = false);
  Result<Done> DeleteModel(std::string_view name);

  // Sessions. `name` is "sessions/{session}" or a bare "{session}".
  Result<v1::Session> CreateSession(const v1::CreateSessionRequest& request);
  Result<v1::Session> GetSession(std::string_view name);
  Result<v1::ListSessionsResponse> ListSessions(const v1::ListSessionsRequest& request = {});
  Result<std::vector<v1::Session>> ListAllSessions();
  Result<v1::Session> UpdateSession(const v1::UpdateSessionRequest& request);
  Result<v1::Session> ForkSession(std::string_view name, std::string session_id = {});
  Result<Done> DeleteSession(std::string_view name);
  // Live control of a session (ControlSession): pause its open stream at the next frame
  // boundary, or change parameters/values while it streams (applied by the stream between
  // frames and reported as EVENT_KIND_UPDATED); without a stream a change is an UpdateSession.
  Result<v1::Session> ControlSession(const v1::ControlSessionRequest& request);
  // ControlSession with `pause`: the open stream ends with status OK and TERMINATION_PAUSED;
  // the next StreamStates continues at its summary's next_sample_index.
  Result<v1::Session> Pause(std::string_view name);

  // The x-tether-session value of calls for session `name`: the key learnt from a Session
  // resource or set here, else the session's own id (a root session's key).
  [[nodiscard]] std::string RoutingKey(std::string_view name) const;
  // Routes the calls for session `name` by `key`, e.g. a fork created by another process,
  // whose key is its root session's id. An empty key forgets the session's key.
  void SetRoutingKey(std::string_view name, std::string key);

  // Streams the session's samples (StreamStates). Blocks until the stream ends.
  StreamEnd StreamStates(const v1::StreamStatesRequest& request, const StreamHandlers& handlers);
  // Continues a session's stream at sample `next_sample_index` (a previous StreamEnd's), with
  // no gap and no duplicate: StreamStates with start_sample_index set. `request` supplies the
  // other fields (t_end, columns, …); its name and start index are overwritten.
  StreamEnd Resume(std::string_view session, std::uint64_t next_sample_index,
                   const StreamHandlers& handlers, v1::StreamStatesRequest request = {});
  // A read-only viewer of the session (StreamStates with view_only): the samples its driving
  // stream computes, from `request.start_sample_index` (absent: the current end). Blocks until
  // the viewer ends (cancelled, a stop condition of `request`, the session deleted). `request`
  // supplies columns, frame_samples and stop conditions; its name and view_only are set here.
  StreamEnd View(std::string_view session, const StreamHandlers& handlers,
                 v1::StreamStatesRequest request = {});
  // One-shot run (Simulate). Blocks until the stream ends.
  StreamEnd Simulate(const v1::SimulateRequest& request, const StreamHandlers& handlers);

  // The server's version, build, methods and limits (GetServerInfo).
  Result<v1::ServerInfo> GetServerInfo();

  // grpc.health.v1.Health/Check for `service` ("" = the whole server). One attempt, no retry:
  // a health probe wants the answer now.
  Result<HealthStatus> Health(const std::string& service = {});

  [[nodiscard]] const std::shared_ptr<grpc::Channel>& channel() const { return channel_; }
  // The channel the target constructor makes: options.channel_credentials (plaintext when
  // null) and options.tls_server_name.
  static std::shared_ptr<grpc::Channel> CreateChannel(const std::string& target,
                                                      const ClientOptions& options);
  [[nodiscard]] const ClientOptions& options() const { return options_; }

 private:
  // Sets the deadline (0 = none), the call credentials, the caller's metadata and, for a
  // session-scoped call, the routing key.
  void Prepare(grpc::ClientContext* context, std::chrono::milliseconds timeout,
               std::string_view routing_key) const;
  template <typename Response, typename Call>
  Result<Response> Unary(std::string_view routing_key, Call call);
  template <typename Request, typename StartCall>
  StreamEnd Stream(std::string_view routing_key, const Request& request,
                   const StreamHandlers& handlers, StartCall start);
  // Learns the routing key a Session resource names; returns the session unchanged.
  const v1::Session& Remember(const v1::Session& session);

  std::shared_ptr<grpc::Channel> channel_;
  ClientOptions options_;
  std::string options_problem_;  // why options_ are invalid; "" if they are valid
  std::unique_ptr<v1::SimulationService::Stub> stub_;
  mutable std::mutex keys_mutex_;
  // Session id → routing key, for sessions whose key is not their id (forks). Bounded.
  std::unordered_map<std::string, std::string> keys_;
};

// "models/pendulum" for "pendulum" or "models/pendulum"; likewise for sessions.
std::string ModelName(std::string_view name);
std::string SessionName(std::string_view name);

}  // namespace tether::client
