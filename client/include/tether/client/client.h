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
#pragma once

#include <memory>
#include <string>
#include <string_view>
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
  // Connects (lazily, on the first call) to `target` "host:port" without TLS.
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
  Result<v1::Model> RegisterModel(std::string spec_json);
  Result<Done> DeleteModel(std::string_view name);

  // Sessions. `name` is "sessions/{session}" or a bare "{session}".
  Result<v1::Session> CreateSession(const v1::CreateSessionRequest& request);
  Result<v1::Session> GetSession(std::string_view name);
  Result<v1::ListSessionsResponse> ListSessions(const v1::ListSessionsRequest& request = {});
  Result<std::vector<v1::Session>> ListAllSessions();
  Result<v1::Session> UpdateSession(const v1::UpdateSessionRequest& request);
  Result<v1::Session> ForkSession(std::string_view name, std::string session_id = {});
  Result<Done> DeleteSession(std::string_view name);

  // Streams the session's samples (StreamStates). Blocks until the stream ends.
  StreamEnd StreamStates(const v1::StreamStatesRequest& request, const StreamHandlers& handlers);
  // Continues a session's stream at sample `next_sample_index` (a previous StreamEnd's), with
  // no gap and no duplicate: StreamStates with start_sample_index set. `request` supplies the
  // other fields (t_end, columns, …); its name and start index are overwritten.
  StreamEnd Resume(std::string_view session, std::uint64_t next_sample_index,
                   const StreamHandlers& handlers, v1::StreamStatesRequest request = {});
  // One-shot run (Simulate). Blocks until the stream ends.
  StreamEnd Simulate(const v1::SimulateRequest& request, const StreamHandlers& handlers);

  // grpc.health.v1.Health/Check for `service` ("" = the whole server). One attempt, no retry:
  // a health probe wants the answer now.
  Result<HealthStatus> Health(const std::string& service = {});

  [[nodiscard]] const std::shared_ptr<grpc::Channel>& channel() const { return channel_; }
  [[nodiscard]] const ClientOptions& options() const { return options_; }

 private:
  template <typename Response, typename Call>
  Result<Response> Unary(Call call);

  std::shared_ptr<grpc::Channel> channel_;
  ClientOptions options_;
  std::unique_ptr<v1::SimulationService::Stub> stub_;
};

// "models/pendulum" for "pendulum" or "models/pendulum"; likewise for sessions.
std::string ModelName(std::string_view name);
std::string SessionName(std::string_view name);

}  // namespace tether::client
