#include "http_server.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <functional>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "embedded_files.h"
#include "errors.h"
#include "http_guard.h"
#include "http_transcoding.h"
#include "session_service.h"
#include "sse_stream.h"
#include "tcp_listener.h"
#include "tether/v1/simulation_service.grpc.pb.h"

namespace tether::server {
namespace {

// libmicrohttpd's threads, each with its own epoll set (bench/http_sse measured 2).
constexpr unsigned kHttpThreads = 2;
// Bytes of one SSE read into the connection's write buffer: one typical frame.
constexpr std::size_t kSseBlockBytes = 32 * 1024;
// An idle connection (no byte either way; suspended ones do not count) is closed after this.
constexpr unsigned kIdleTimeoutSeconds = 120;
// Connections beyond the stream limit: unary calls and clients between requests.
constexpr unsigned kSpareConnections = 256;
// A body larger than this is refused before parsing: a spec of max_spec_bytes inside a JSON
// string can grow by escaping (quotes and newlines double), plus the request's other fields.
std::size_t MaxBodyBytes(std::size_t max_spec_bytes) { return 2 * max_spec_bytes + 64 * 1024; }

// The request and response types of a SessionService method, and a call of it with the
// signature Unary takes: (service, tenant, request, response).
template <auto kMethod>
struct SessionRpc;
template <typename Rq, typename Rs,
          grpc::Status (SessionService::*kMethod)(const std::string&, const Rq&, Rs*)>
struct SessionRpc<kMethod> {
  using Request = Rq;
  using Response = Rs;
  static grpc::Status Run(SessionService* s, const std::string& tenant, const Rq& request,
                          Rs* response) {
    return (s->*kMethod)(tenant, request, response);
  }
};
// A method without a response message (the deletes): google.protobuf.Empty.
template <typename Rq, grpc::Status (SessionService::*kMethod)(const std::string&, const Rq&)>
struct SessionRpc<kMethod> {
  using Request = Rq;
  using Response = google::protobuf::Empty;
  static grpc::Status Run(SessionService* s, const std::string& tenant, const Rq& request,
                          google::protobuf::Empty*) {
    return (s->*kMethod)(tenant, request);
  }
};

constexpr std::string_view kJson = "application/json";

// libmicrohttpd's per-request state: the body as it arrives, then the answer of a call that
// ran on the pool.
struct Call {
  std::string raw_url;  // the request target as sent, before libmicrohttpd decodes it
  bool headers_seen = false;  // the first OnRequest (headers only) came
  std::string body;
  bool has_body = false;  // some body arrived (kept or, too large, dropped)
  bool too_large = false;
  bool started = false;
  bool answered = false;  // set by the pool before it resumes the connection
  unsigned status = 200;
  std::string json;
};

std::optional<std::string_view> Header(MHD_Connection* connection, const char* name) {
  const char* value = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, name);
  if (value == nullptr) return std::nullopt;
  return std::string_view(value);
}

std::vector<std::pair<std::string, std::string>> QueryParameters(MHD_Connection* connection) {
  std::vector<std::pair<std::string, std::string>> out;
  MHD_get_connection_values(
      connection, MHD_GET_ARGUMENT_KIND,
      [](void* cls, MHD_ValueKind, const char* key, const char* value) -> MHD_Result {
        static_cast<std::vector<std::pair<std::string, std::string>>*>(cls)->emplace_back(
            key, value == nullptr ? "" : value);
        return MHD_YES;
      },
      &out);
  return out;
}

// A `Last-Event-ID` header as the request's start_sample_index; INVALID_ARGUMENT naming the
// header if it is not a sample index.
grpc::Status BindLastEventId(std::string_view value, v1::StreamStatesRequest* request) {
  if (BindQuery({{"start_sample_index", std::string(value)}}, request).ok()) {
    return grpc::Status::OK;
  }
  return InvalidArgument(
      "bad Last-Event-ID header",
      {{"header.Last-Event-ID",
        "Last-Event-ID: " + Quote(value) +
            "; must be a sample index (an unsigned integer: the id of the last event received), "
            "which resumes the stream there as start_sample_index"}});
}

// The request's Origin if http_cors_origins allows it ("*" allows any).
std::optional<std::string> AllowedOrigin(MHD_Connection* connection, const ServerConfig& config) {
  const auto origin = Header(connection, "Origin");
  if (!origin) return std::nullopt;
  if (!OriginListed(*origin, config.http_cors_origins)) return std::nullopt;
  return std::string(*origin);
}

std::string Peer(MHD_Connection* connection) {
  const MHD_ConnectionInfo* info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  if (info == nullptr || info->client_addr == nullptr) return "";
  char text[INET6_ADDRSTRLEN] = {};
  const sockaddr* address = info->client_addr;
  if (address->sa_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(address);
    inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
    return "ipv4:" + std::string(text) + ":" + std::to_string(ntohs(v4->sin_port));
  }
  const auto* v6 = reinterpret_cast<const sockaddr_in6*>(address);
  inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
  return "ipv6:[" + std::string(text) + "]:" + std::to_string(ntohs(v6->sin6_port));
}

}  // namespace

// The libmicrohttpd side: routing, CORS, the calls.
struct HttpServer::Handler {
  HttpServer* server;
  MHD_Connection* connection;
  Call* call;
  std::optional<std::string> allowed_origin;  // the request's Origin, if the allow-list has it

  [[nodiscard]] SessionService& core() const { return *server->service_; }
  [[nodiscard]] const ServerConfig& config() const { return core().state()->config; }

  void Cors(MHD_Response* response) const {
    if (!allowed_origin) return;
    MHD_add_response_header(response, "Access-Control-Allow-Origin", allowed_origin->c_str());
    MHD_add_response_header(response, "Vary", "Origin");
  }

  MHD_Result Answer(unsigned status, std::string_view content_type, const std::string& body,
                    const std::string& allow = {}) const {
    MHD_Response* response = MHD_create_response_from_buffer(
        body.size(), const_cast<char*>(body.data()), MHD_RESPMEM_MUST_COPY);
    if (response == nullptr) return MHD_NO;
    MHD_add_response_header(response, "Content-Type", std::string(content_type).c_str());
    MHD_add_response_header(response, "Cache-Control", "no-store");
    if (!allow.empty()) MHD_add_response_header(response, "Allow", allow.c_str());
    Cors(response);
    const MHD_Result result = MHD_queue_response(connection, status, response);
    MHD_destroy_response(response);
    return result;
  }

  MHD_Result Refuse(const grpc::Status& status, unsigned http_status = 0) const {
    return Answer(http_status != 0 ? http_status : HttpStatusOf(status.error_code()), kJson,
                  StatusJson(status));
  }

  MHD_Result Preflight() const {
    MHD_Response* response = MHD_create_response_from_buffer(0, nullptr, MHD_RESPMEM_PERSISTENT);
    if (response == nullptr) return MHD_NO;
    if (allowed_origin) {
      Cors(response);
      MHD_add_response_header(response, "Access-Control-Allow-Methods",
                              "GET, POST, PATCH, DELETE, OPTIONS");
      MHD_add_response_header(response, "Access-Control-Allow-Headers",
                              "authorization, content-type, last-event-id, traceparent");
      MHD_add_response_header(response, "Access-Control-Max-Age", "600");
    }
    const MHD_Result result = MHD_queue_response(connection, MHD_HTTP_NO_CONTENT, response);
    MHD_destroy_response(response);
    return result;
  }

  // The dashboard's static files (embedded_files.h).
  MHD_Result Dashboard(std::string_view method, std::string_view path) const {
    const EmbeddedResponse answer = AnswerEmbeddedFile(
        method, path, Header(connection, MHD_HTTP_HEADER_IF_NONE_MATCH).value_or(""));
    MHD_Response* response = MHD_create_response_from_buffer(
        answer.body.size(), const_cast<char*>(answer.body.data()), MHD_RESPMEM_PERSISTENT);
    if (response == nullptr) return MHD_NO;
    for (const auto& [name, value] : answer.headers) {
      MHD_add_response_header(response, std::string(name).c_str(), std::string(value).c_str());
    }
    if (!answer.allow.empty()) {
      MHD_add_response_header(response, "Allow", std::string(answer.allow).c_str());
    }
    Cors(response);
    const MHD_Result result =
        MHD_queue_response(connection, static_cast<unsigned>(answer.status), response);
    MHD_destroy_response(response);
    return result;
  }

  // The caller's authorization: the header, or (streams only) ?access_token=. The parameter
  // is taken out of the query on every route, so that no message or log line repeats the
  // token; `misplaced` tells of one on a route that does not take it.
  std::optional<std::string> Authorization(
      std::vector<std::pair<std::string, std::string>>* query, bool stream,
      bool* misplaced = nullptr) const {
    std::optional<std::string> token;
    for (auto it = query->begin(); it != query->end(); ++it) {
      if (it->first != "access_token") continue;
      token = it->second;
      query->erase(it);
      break;
    }
    if (misplaced != nullptr) *misplaced = token.has_value() && !stream;
    if (const auto header = Header(connection, MHD_HTTP_HEADER_AUTHORIZATION)) {
      return std::string(*header);
    }
    if (stream && token) return "Bearer " + *token;
    return std::nullopt;
  }

  // Reads the request message: the body (body routes) or the query, then the path's
  // variables (which win, as transcoding specifies).
  grpc::Status Bind(const HttpRoutes::Found& found,
                    const std::vector<std::pair<std::string, std::string>>& query,
                    google::protobuf::Message* request) const {
    grpc::Status status =
        found.route->body ? ParseBody(call->body, request) : BindQuery(query, request);
    if (status.ok()) status = BindQuery(found.bindings, request, "path");
    return status;
  }

  // A unary call: `run(tenant, request, response)` on the pool (numerical) or inline.
  template <typename Request, typename Response, typename Run>
  MHD_Result Unary(const HttpRoutes::Found& found, bool on_pool, Run run) {
    auto query = QueryParameters(connection);
    bool misplaced_token = false;
    const std::optional<std::string> authorization = Authorization(&query, false, &misplaced_token);
    Request request;
    grpc::Status status =
        misplaced_token
            ? InvalidArgument("bad request",
                              {{"query.access_token",
                                "access_token is taken on the stream routes only, where "
                                "EventSource cannot set headers; send the token as "
                                "`Authorization: Bearer` here (its value is not repeated)"}})
            : Bind(found, query, &request);
    std::string session;
    std::string model;
    if constexpr (requires { request.name(); }) {
      (request.name().starts_with("sessions/") ? session : model) = request.name();
    }
    RpcLog log = core().Log(found.route->rpc->name(), session, model);
    log.set_http_call(Peer(connection), Header(connection, "traceparent").value_or(""));
    std::string tenant;
    if (status.ok()) status = core().Authenticate(authorization, &tenant);
    log.set_tenant(tenant);
    if (!status.ok()) return Refuse(log.Finish(Bounded(status)));
    auto work = [core = &core(), run, log, tenant, request = std::move(request)](
                    unsigned* http_status, std::string* json) mutable {
      Response response;
      const grpc::Status s = log.Finish(Bounded(run(core, tenant, request, &response)));
      *http_status = HttpStatusOf(s.error_code());
      *json = s.ok() ? ToJson(response) : StatusJson(s);
    };
    {
      // While the listener stops, nothing may be suspended any more: the call runs here.
      std::lock_guard lock(server->mutex_);
      if (server->stopping_) on_pool = false;
      if (on_pool) ++server->calls_on_pool_;
    }
    if (!on_pool) {
      unsigned http_status = 200;
      std::string json;
      work(&http_status, &json);
      return Answer(http_status, kJson, json);
    }
    MHD_suspend_connection(connection);
    core().state()->pool.Post([server = server, connection = connection, call = call,
                               work = std::move(work)]() mutable {
      work(&call->status, &call->json);
      call->answered = true;
      MHD_resume_connection(connection);
      {
        std::lock_guard lock(server->mutex_);
        --server->calls_on_pool_;
      }
      server->changed_.notify_all();
    });
    return MHD_YES;
  }

  // StreamStates or Simulate as server-sent events.
  MHD_Result Stream(const HttpRoutes::Found& found, bool simulate) {
    auto query = QueryParameters(connection);
    const std::optional<std::string> authorization = Authorization(&query, true);
    v1::StreamStatesRequest states;
    v1::SimulateRequest one_shot;
    grpc::Status status;
    if (simulate) {
      status = Bind(found, query, &one_shot);
    } else {
      status = Bind(found, query, &states);
      // EventSource's reconnect: resume after the last event received.
      const auto last = Header(connection, "Last-Event-ID");
      if (status.ok() && last && !states.has_start_sample_index()) {
        status = BindLastEventId(*last, &states);
      }
    }
    RpcLog log = simulate ? core().Log("Simulate", {},
                                       one_shot.source_case() == v1::SimulateRequest::kSpecJson
                                           ? "(spec_json)"
                                           : one_shot.model())
                          : core().Log("StreamStates", states.name());
    log.set_http_call(Peer(connection), Header(connection, "traceparent").value_or(""));
    std::string tenant;
    if (status.ok()) status = core().Authenticate(authorization, &tenant);
    log.set_tenant(tenant);
    StreamStart start;
    if (status.ok()) {
      status = simulate ? core().OpenSimulate(tenant, one_shot, &start)
                        : core().OpenStateStream(tenant, states, &log, &start);
    }
    if (!status.ok()) return Refuse(log.Finish(Bounded(status)));
    ServiceState* state = core().state();
    HttpServer* owner = server;
    auto* stream = new SseStream(&state->pool, &state->counters, std::move(start.source),
                                 start.settings, std::move(log), core().StreamDone(tenant),
                                 connection, [owner](SseStream* done) {
                                   std::lock_guard lock(owner->mutex_);
                                   owner->streams_.erase(done);
                                 });
    {
      std::lock_guard lock(server->mutex_);
      server->streams_.insert(stream);
      // A stream that starts while the listener stops is let go at once (Stop abandons the
      // streams it knows before it stops libmicrohttpd).
      if (server->stopping_) stream->Abandon();
    }
    start.slot.Attach(stream);
    MHD_Response* response = MHD_create_response_from_callback(
        MHD_SIZE_UNKNOWN, kSseBlockBytes,
        [](void* cls, uint64_t /*position*/, char* buffer, size_t max) -> ssize_t {
          return static_cast<SseStream*>(cls)->Read(buffer, max);
        },
        stream, [](void* cls) { static_cast<SseStream*>(cls)->Detached(); });
    MHD_Result result = MHD_NO;
    if (response != nullptr) {
      MHD_add_response_header(response, "Content-Type", "text/event-stream");
      MHD_add_response_header(response, "Cache-Control", "no-cache");
      // Proxies that buffer responses (nginx) would hold the events back.
      MHD_add_response_header(response, "X-Accel-Buffering", "no");
      Cors(response);
      result = MHD_queue_response(connection, MHD_HTTP_OK, response);
      MHD_destroy_response(response);  // the stream's Detached runs when the connection ends
    }
    // A stream that could not be queued sees its client gone at its first look and ends.
    if (response == nullptr) stream->Cancelled();
    stream->Begin();
    return result;
  }

  // A GET of a session's stream that is not view-only: it advances the session.
  bool DrivesSession(std::string_view method, std::string_view path) const {
    if (method != "GET" || !path.ends_with(":stream")) return false;
    for (const auto& [key, value] : QueryParameters(connection)) {
      if ((key == "viewOnly" || key == "view_only") && value == "true") return false;
    }
    return true;
  }

  MHD_Result Dispatch(std::string_view method, std::string_view path) {
    const GuardedRequest request{method,
                                 Header(connection, MHD_HTTP_HEADER_HOST),
                                 Header(connection, "Origin"),
                                 Header(connection, MHD_HTTP_HEADER_CONTENT_TYPE),
                                 call->has_body,
                                 DrivesSession(method, path)};
    if (const auto refused = Guard(request, server->loopback_, config().http_cors_origins)) {
      return Refuse(refused->status, refused->http_status);
    }
    if (method == "OPTIONS") return Preflight();
    if (const auto problem = PathEncodingProblem(call->raw_url)) {
      return Refuse(InvalidArgument("bad request path", {{"path", *problem}}));
    }
    if ((method == "GET" || method == "HEAD") && !server->routes_.Claims(path) &&
        path != "/healthz") {
      return Dashboard(method, path);
    }
    if (path == "/healthz") return Health(method);
    const HttpRoutes::Found found = server->routes_.Find(method, path);
    if (found.allowed.empty()) {
      return Refuse(Error(grpc::StatusCode::NOT_FOUND,
                          "no route " + std::string(method) + " " + Quote(path) +
                              " (the routes: the google.api.http options of "
                              "proto/tether/v1/simulation_service.proto)"));
    }
    if (found.route == nullptr) {
      return Answer(MHD_HTTP_METHOD_NOT_ALLOWED, kJson,
                    StatusJson(Error(grpc::StatusCode::UNIMPLEMENTED,
                                     std::string(method) + " " + Quote(path) + " is not served; " +
                                         "allowed: " + found.allowed)),
                    found.allowed);
    }
    if (call->too_large) {
      return Refuse(InvalidArgument("request body too large",
                                    {{"body", "more than " +
                                                  std::to_string(MaxBodyBytes(config().max_spec_bytes)) +
                                                  " bytes (2 × max_spec_bytes + 64 KiB)"}}),
                    MHD_HTTP_CONTENT_TOO_LARGE);
    }
    return Serve(found);
  }

  MHD_Result Health(std::string_view method) const {
    if (method != "GET") {
      return Answer(MHD_HTTP_METHOD_NOT_ALLOWED, kJson,
                    StatusJson(Error(grpc::StatusCode::UNIMPLEMENTED,
                                     std::string(method) + " /healthz is not served; allowed: GET")),
                    "GET");
    }
    const bool serving = !core().state()->draining.load();
    return Answer(serving ? MHD_HTTP_OK : MHD_HTTP_SERVICE_UNAVAILABLE, kJson,
                  serving ? R"({"status":"SERVING"})" : R"({"status":"NOT_SERVING"})");
  }

  // The RPC of a route, through the table of RPC names kRpcs.
  MHD_Result Serve(const HttpRoutes::Found& found);

  // A unary RPC of the session layer: SessionService::*kMethod, on the pool if kOnPool.
  template <auto kMethod, bool kOnPool>
  MHD_Result UnaryRpc(const HttpRoutes::Found& found) {
    using Rpc = SessionRpc<kMethod>;
    return Unary<typename Rpc::Request, typename Rpc::Response>(found, kOnPool, &Rpc::Run);
  }
  MHD_Result ServerInfoRpc(const HttpRoutes::Found& found) {
    return Unary<v1::GetServerInfoRequest, v1::ServerInfo>(
        found, false, [](SessionService* s, const std::string&, const auto&, auto* response) {
          s->GetServerInfo(response);
          return grpc::Status::OK;
        });
  }
  MHD_Result StreamRpc(const HttpRoutes::Found& found) { return Stream(found, false); }
  MHD_Result SimulateRpc(const HttpRoutes::Found& found) { return Stream(found, true); }
};

namespace {

struct RpcEntry {
  std::string_view rpc;
  MHD_Result (HttpServer::Handler::*serve)(const HttpRoutes::Found&);
};
// Every RPC with an HTTP route. Calls that compute, read specs or may wait for a session's
// driving stream to let go (Session::AwaitDriverRelease, up to kEndingDriverGrace) run on the
// worker pool, as they do for gRPC, so that the listener's threads serve other connections
// meanwhile; bookkeeping calls that never wait run on the listener's thread.
constexpr bool kPool = true;
constexpr bool kInline = false;
using Handler = HttpServer::Handler;
using S = SessionService;
constexpr std::array<RpcEntry, 14> kRpcs{{
    {"ListModels", &Handler::UnaryRpc<&S::ListModels, kPool>},
    {"GetModel", &Handler::UnaryRpc<&S::GetModel, kPool>},
    {"RegisterModel", &Handler::UnaryRpc<&S::RegisterModel, kPool>},
    {"DeleteModel", &Handler::UnaryRpc<&S::DeleteModel, kInline>},
    {"CreateSession", &Handler::UnaryRpc<&S::CreateSession, kPool>},
    {"GetSession", &Handler::UnaryRpc<&S::GetSession, kInline>},
    {"ListSessions", &Handler::UnaryRpc<&S::ListSessions, kInline>},
    {"UpdateSession", &Handler::UnaryRpc<&S::UpdateSession, kPool>},
    {"ForkSession", &Handler::UnaryRpc<&S::ForkSession, kPool>},
    {"DeleteSession", &Handler::UnaryRpc<&S::DeleteSession, kPool>},
    {"ControlSession", &Handler::UnaryRpc<&S::ControlSession, kPool>},
    {"GetServerInfo", &Handler::ServerInfoRpc},
    {"StreamStates", &Handler::StreamRpc},
    {"Simulate", &Handler::SimulateRpc},
}};

}  // namespace

MHD_Result HttpServer::Handler::Serve(const HttpRoutes::Found& found) {
  const std::string& rpc = found.route->rpc->name();
  const auto* entry = std::find_if(kRpcs.begin(), kRpcs.end(),
                                   [&](const RpcEntry& e) { return e.rpc == rpc; });
  // A route in the proto without an entry here (tests/server/http_test.cc calls every route).
  if (entry == kRpcs.end()) {
    return Refuse(Error(grpc::StatusCode::UNIMPLEMENTED, rpc + " has no HTTP handler"));
  }
  return (this->*entry->serve)(found);
}

namespace {

MHD_Result OnRequest(void* cls, MHD_Connection* connection, const char* url, const char* method,
                     const char* /*version*/, const char* upload_data, size_t* upload_data_size,
                     void** request_state) {
  auto* server = static_cast<HttpServer*>(cls);
  auto* call = static_cast<Call*>(*request_state);
  if (call == nullptr) *request_state = call = new Call;  // OnUri saw no request line
  if (!call->headers_seen) {
    call->headers_seen = true;
    return MHD_YES;
  }
  HttpServer::Handler handler{server, connection, call, std::nullopt};
  if (*upload_data_size != 0) {
    // Bodies arrive in pieces; a body over the limit is dropped and refused at its end.
    call->has_body = true;
    if (!call->too_large) {
      const std::size_t limit = MaxBodyBytes(handler.config().max_spec_bytes);
      if (call->body.size() + *upload_data_size > limit) {
        call->too_large = true;
        call->body.clear();
      } else {
        call->body.append(upload_data, *upload_data_size);
      }
    }
    *upload_data_size = 0;
    return MHD_YES;
  }
  handler.allowed_origin = AllowedOrigin(connection, handler.config());
  if (call->answered) return handler.Answer(call->status, kJson, call->json);
  if (call->started) return MHD_YES;
  call->started = true;
  return handler.Dispatch(method, url);
}

// libmicrohttpd's first look at a request, with the target as sent: the request's state
// starts here, so that the path can be checked before decoding cut it at a "%00".
void* OnUri(void* /*cls*/, const char* uri, MHD_Connection* /*connection*/) {
  auto* call = new Call;
  call->raw_url = uri == nullptr ? "" : uri;
  return call;
}

void OnCompleted(void* /*cls*/, MHD_Connection* /*connection*/, void** request_state,
                 MHD_RequestTerminationCode /*code*/) {
  delete static_cast<Call*>(*request_state);
  *request_state = nullptr;
}

}  // namespace

std::unique_ptr<HttpServer> HttpServer::Start(SessionService* service, std::string* error) {
  const ServerConfig& config = service->state()->config;
  std::unique_ptr<HttpServer> http(new HttpServer(service));
  std::optional<HttpRoutes> routes = HttpRoutes::Of(
      *v1::StateChunk::descriptor()->file()->pool()->FindServiceByName(
          v1::SimulationService::service_full_name()),
      error);
  if (!routes) return nullptr;
  http->routes_ = std::move(*routes);
  http->socket_ = OpenListener(config.http_listen, "http_listen", 128, &http->port_, error);
  if (http->socket_ < 0) return nullptr;
  http->loopback_ = BoundToLoopback(http->socket_);
  const auto limit = static_cast<unsigned>(
      std::min<std::size_t>(config.max_streams + kSpareConnections, 1u << 20));
  http->daemon_ = MHD_start_daemon(
      MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME, 0, nullptr, nullptr, &OnRequest,
      http.get(), MHD_OPTION_LISTEN_SOCKET, http->socket_, MHD_OPTION_THREAD_POOL_SIZE,
      kHttpThreads, MHD_OPTION_CONNECTION_LIMIT, limit, MHD_OPTION_CONNECTION_TIMEOUT,
      kIdleTimeoutSeconds, MHD_OPTION_NOTIFY_COMPLETED, &OnCompleted, nullptr,
      MHD_OPTION_URI_LOG_CALLBACK, &OnUri, nullptr, MHD_OPTION_END);
  if (http->daemon_ == nullptr) {
    *error = "could not start the HTTP listener on http_listen '" + config.http_listen + "'";
    ::close(http->socket_);
    http->socket_ = -1;
    return nullptr;
  }
  http->watcher_ = std::thread([raw = http.get()] { raw->WatchStreams(); });
  return http;
}

HttpServer::~HttpServer() { Stop(); }

void HttpServer::WatchStreams() {
  using Clock = std::chrono::steady_clock;
  std::unique_lock lock(mutex_);
  Clock::time_point keep_alive_due = Clock::now() + kKeepAlivePeriod;
  while (!stopping_) {
    // changed_ also tells of calls finishing: only Stop cuts the wait short.
    changed_.wait_until(lock, Clock::now() + kClientCheckPeriod, [this] { return stopping_; });
    if (stopping_) break;
    const bool keep_alive = Clock::now() >= keep_alive_due;
    if (keep_alive) keep_alive_due = Clock::now() + kKeepAlivePeriod;
    for (SseStream* stream : streams_) {
      stream->WatchClient();
      if (keep_alive) stream->KeepAlive();
    }
  }
}

void HttpServer::Stop() {
  {
    std::unique_lock lock(mutex_);
    if (stopping_ && daemon_ == nullptr) return;
    stopping_ = true;
    // A call on the pool resumes its connection when done; stopping before would leave it
    // suspended, which libmicrohttpd forbids.
    changed_.wait(lock, [this] { return calls_on_pool_ == 0; });
  }
  changed_.notify_all();
  if (watcher_.joinable()) watcher_.join();
  if (daemon_ != nullptr) {
    {
      // Streams still suspended (computing a frame, parked) are let go: their reads end them.
      std::lock_guard lock(mutex_);
      for (SseStream* stream : streams_) stream->Abandon();
    }
    MHD_stop_daemon(daemon_);
    daemon_ = nullptr;
  }
  if (socket_ >= 0) {
    ::close(socket_);
    socket_ = -1;
  }
}

}  // namespace tether::server
