// The HTTP/JSON + server-sent-events face against a real tether-server process on 127.0.0.1:
// every JSON answer equals the gRPC answer to the same call (both parsed into the proto and
// compared, volatile fields aside), errors carry the same code, message and details, an SSE
// stream carries the gRPC stream's samples bit for bit, a reconnect with Last-Event-ID resumes
// with no gap or duplicate, and (in process, to read the server's counters) a client that
// does not read stalls its own run with at most two frames held (one written, one ahead).
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "test_support.h"

namespace tether::server::testing {
namespace {

namespace pb = google::protobuf;

struct HttpResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lowercased
  std::string body;                            // de-chunked
};

// The payload of a chunked body; stops at an incomplete chunk (a stream cut short).
std::string Dechunk(std::string_view raw) {
  std::string out;
  std::size_t at = 0;
  while (at < raw.size()) {
    const std::size_t eol = raw.find("\r\n", at);
    if (eol == std::string_view::npos) break;
    const std::size_t size = std::stoul(std::string(raw.substr(at, eol - at)), nullptr, 16);
    if (size == 0 || eol + 2 + size > raw.size()) break;
    out.append(raw.substr(eol + 2, size));
    at = eol + 2 + size + 2;
  }
  return out;
}

HttpResponse ParseResponse(const std::string& raw) {
  HttpResponse out;
  const std::size_t head_end = raw.find("\r\n\r\n");
  if (raw.size() < 12 || head_end == std::string::npos) return out;
  out.status = std::stoi(raw.substr(9, 3));
  std::istringstream head(raw.substr(0, head_end));
  std::string line;
  std::getline(head, line);
  while (std::getline(head, line)) {
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ')) value.erase(0, 1);
    while (!value.empty() && (value.back() == '\r')) value.pop_back();
    out.headers[name] = value;
  }
  const std::string body = raw.substr(head_end + 4);
  out.body = out.headers["transfer-encoding"] == "chunked" ? Dechunk(body) : body;
  return out;
}

// A request as curl sends it to 127.0.0.1:port; `headers` may replace Host and Content-Type.
HttpResponse Http(int port, const std::string& method, const std::string& path,
                  const std::string& body = {}, const std::string& headers = {}) {
  std::string request = method + " " + path + " HTTP/1.1\r\nConnection: close\r\n" + headers;
  if (headers.find("Host:") == std::string::npos) {
    request += "Host: 127.0.0.1:" + std::to_string(port) + "\r\n";
  }
  if (!body.empty() || method == "POST" || method == "PATCH") {
    if (headers.find("Content-Type:") == std::string::npos) {
      request += "Content-Type: application/json\r\n";
    }
    request += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  }
  request += "\r\n" + body;
  return ParseResponse(HttpExchange(port, request));
}

template <typename Message>
Message FromJson(const std::string& json) {
  Message message;
  const auto parsed = pb::util::JsonStringToMessage(json, &message);
  EXPECT_TRUE(parsed.ok()) << parsed.message() << ": " << json.substr(0, 300);
  return message;
}

std::string ToJsonText(const pb::Message& message) {
  std::string out;
  EXPECT_TRUE(pb::util::MessageToJsonString(message, &out).ok());
  return out;
}

struct SseMessage {
  std::string event;
  std::string id;
  std::string data;
};

// The complete messages of an event stream (a trailing partial one is left out).
std::vector<SseMessage> ParseSse(const std::string& text) {
  std::vector<SseMessage> out;
  std::size_t at = 0;
  for (std::size_t end; (end = text.find("\n\n", at)) != std::string::npos; at = end + 2) {
    SseMessage message;
    std::istringstream lines(text.substr(at, end - at));
    for (std::string line; std::getline(lines, line);) {
      if (line.starts_with("event: ")) message.event = line.substr(7);
      if (line.starts_with("id: ")) message.id = line.substr(4);
      if (line.starts_with("data: ")) message.data = line.substr(6);
    }
    if (!message.event.empty()) out.push_back(message);  // comments (keep-alives) have none
  }
  return out;
}

// What an event stream delivered, in the gRPC stream's terms.
Collected FromSse(const std::vector<SseMessage>& messages) {
  Collected out;
  for (const SseMessage& m : messages) {
    if (m.event == "header") out.header = FromJson<v1::StreamHeader>(m.data);
    if (m.event == "summary") {
      out.has_summary = true;
      out.summary = FromJson<v1::StreamSummary>(m.data);
    }
    if (m.event == "error") {
      const auto status = FromJson<google::rpc::Status>(m.data);
      out.status = grpc::Status(static_cast<grpc::StatusCode>(status.code()), status.message());
    }
    if (m.event != "frame") continue;
    const auto f = FromJson<v1::Frame>(m.data);
    EXPECT_EQ(m.id, std::to_string(f.first_sample_index() + static_cast<std::uint64_t>(f.t_size())))
        << "a frame's id is the index after its last sample";
    AppendFrame(f, &out);
  }
  return out;
}

// Bit-for-bit equality of two sample sequences (== would call -0.0 and 0.0 equal).
void ExpectSameBits(const std::vector<double>& a, const std::vector<double>& b, const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(double)), 0) << what;
}

void ExpectSameSamples(const Collected& http, const Collected& grpc_stream) {
  ASSERT_FALSE(grpc_stream.t.empty());
  EXPECT_EQ(http.index, grpc_stream.index);
  ExpectSameBits(http.t, grpc_stream.t, "t");
  ExpectSameBits(http.values, grpc_stream.values, "values");
  ExpectSameBits(http.residual_position, grpc_stream.residual_position, "residual_position");
  ExpectSameBits(http.residual_velocity, grpc_stream.residual_velocity, "residual_velocity");
}

// The google.rpc.Status a gRPC call ended with (its details, or code and message alone).
google::rpc::Status RichOf(const grpc::Status& status) {
  google::rpc::Status rich;
  if (!status.error_details().empty()) {
    EXPECT_TRUE(rich.ParseFromString(status.error_details()));
  }
  rich.set_code(static_cast<int>(status.error_code()));
  rich.set_message(status.error_message());
  return rich;
}

// Equality of a session's or a list's content: names, routing keys and times differ by design.
bool SameApartFromIdentity(const pb::Message& a, const pb::Message& b, std::string* report) {
  pb::util::MessageDifferencer differ;
  differ.ReportDifferencesToString(report);
  for (const char* field : {"name", "routing_key", "create_time", "update_time", "expire_time"}) {
    if (const pb::FieldDescriptor* f = v1::Session::descriptor()->FindFieldByName(field)) {
      differ.IgnoreField(f);
    }
  }
  return differ.Compare(a, b);
}

v1::CreateSessionRequest PendulumSession(const std::string& id, double t_end) {
  v1::CreateSessionRequest request;
  request.set_model("models/pendulum");
  request.set_session_id(id);
  request.mutable_options()->set_t_end(t_end);
  return request;
}

class HttpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    process_ = std::make_unique<ServerProcess>(
        TETHER_SERVER_BINARY, std::vector<std::string>{"--http-listen", "127.0.0.1:0",
                                                       "--http-cors-origin", "https://dash.example",
                                                       "--quiet"});
    const int port = process_->WaitForPort();
    ASSERT_GT(port, 0) << process_->Log();
    std::smatch match;
    const std::string log = process_->Log();
    ASSERT_TRUE(std::regex_search(log, match, std::regex(R"("http_port":(\d+))"))) << log;
    http_ = std::stoi(match[1]);
    stub_ = v1::SimulationService::NewStub(grpc::CreateChannel(
        "127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
  }

  template <typename Request, typename Response, typename Call>
  grpc::Status Grpc(Call call, const Request& request, Response* response) {
    grpc::ClientContext context;
    SetDeadline(&context);
    return ((*stub_).*call)(&context, request, response);
  }

  // Sessions g (over gRPC) and h (over HTTP) of the pendulum to t = 2; g streamed over gRPC.
  Collected TwinPendulums() {
    v1::Session ignored;
    EXPECT_TRUE(Grpc(&v1::SimulationService::Stub::CreateSession, PendulumSession("g", 2.0),
                     &ignored).ok());
    EXPECT_EQ(Http(http_, "POST", "/v1/sessions", ToJsonText(PendulumSession("h", 2.0))).status, 200);
    v1::StreamStatesRequest request;
    request.set_name("sessions/g");
    request.set_frame_samples(16);
    return Stream(stub_.get(), request);
  }

  std::unique_ptr<ServerProcess> process_;
  int http_ = 0;
  std::unique_ptr<v1::SimulationService::Stub> stub_;
};

TEST_F(HttpTest, EveryUnaryEndpointAnswersWhatGrpcAnswers) {
  using Stub = v1::SimulationService::Stub;
  {
    v1::ListModelsResponse by_grpc;
    ASSERT_TRUE(Grpc(&Stub::ListModels, v1::ListModelsRequest(), &by_grpc).ok());
    const HttpResponse r = Http(http_, "GET", "/v1/models");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(r.headers.at("content-type"), "application/json");
    EXPECT_TRUE(pb::util::MessageDifferencer::Equals(FromJson<v1::ListModelsResponse>(r.body), by_grpc));
    // A query parameter binds to the request's field: page_size = 1 gives one model.
    const HttpResponse page = Http(http_, "GET", "/v1/models?pageSize=1");
    EXPECT_EQ(FromJson<v1::ListModelsResponse>(page.body).models_size(), 1) << page.body;
  }
  {
    v1::GetModelRequest request;
    request.set_name("models/pendulum");
    v1::Model by_grpc;
    ASSERT_TRUE(Grpc(&Stub::GetModel, request, &by_grpc).ok());
    const HttpResponse r = Http(http_, "GET", "/v1/models/pendulum");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_TRUE(pb::util::MessageDifferencer::Equals(FromJson<v1::Model>(r.body), by_grpc));
  }
  {
    // Register over HTTP, delete, register the same over gRPC: the same model resource.
    v1::RegisterModelRequest request;
    request.set_spec_json(kOscillatorSpec);
    const HttpResponse r = Http(http_, "POST", "/v1/models:register", ToJsonText(request));
    ASSERT_EQ(r.status, 200) << r.body;
    const HttpResponse deleted = Http(http_, "DELETE", "/v1/models/oscillator");
    EXPECT_EQ(deleted.status, 200) << deleted.body;
    EXPECT_EQ(deleted.body, "{}");
    v1::Model by_grpc;
    ASSERT_TRUE(Grpc(&Stub::RegisterModel, request, &by_grpc).ok());
    EXPECT_TRUE(pb::util::MessageDifferencer::Equals(FromJson<v1::Model>(r.body), by_grpc));
  }
  std::string report;
  // Sessions: h* over HTTP, g* over gRPC, the same requests.
  const HttpResponse created = Http(http_, "POST", "/v1/sessions", ToJsonText(PendulumSession("h1", 1.0)));
  ASSERT_EQ(created.status, 200) << created.body;
  v1::Session g1;
  ASSERT_TRUE(Grpc(&Stub::CreateSession, PendulumSession("g1", 1.0), &g1).ok());
  const auto h1 = FromJson<v1::Session>(created.body);
  EXPECT_EQ(h1.name(), "sessions/h1");
  EXPECT_TRUE(SameApartFromIdentity(h1, g1, &report)) << report;
  {
    v1::GetSessionRequest request;
    request.set_name("sessions/h1");
    v1::Session by_grpc;
    ASSERT_TRUE(Grpc(&Stub::GetSession, request, &by_grpc).ok());
    const HttpResponse r = Http(http_, "GET", "/v1/sessions/h1");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_TRUE(SameApartFromIdentity(FromJson<v1::Session>(r.body), by_grpc, &report)) << report;
    EXPECT_EQ(FromJson<v1::Session>(r.body).name(), "sessions/h1");
  }
  {
    v1::ListSessionsResponse by_grpc;
    ASSERT_TRUE(Grpc(&Stub::ListSessions, v1::ListSessionsRequest(), &by_grpc).ok());
    const HttpResponse r = Http(http_, "GET", "/v1/sessions");
    ASSERT_EQ(r.status, 200) << r.body;
    const auto by_http = FromJson<v1::ListSessionsResponse>(r.body);
    ASSERT_EQ(by_http.sessions_size(), 2);
    for (int i = 0; i < 2; ++i) {
      EXPECT_EQ(by_http.sessions(i).name(), by_grpc.sessions(i).name());
      EXPECT_TRUE(SameApartFromIdentity(by_http.sessions(i), by_grpc.sessions(i), &report)) << report;
    }
  }
  {
    v1::UpdateSessionRequest request;
    (*request.mutable_parameters())["l"] = 2.0;
    const HttpResponse r = Http(http_, "PATCH", "/v1/sessions/h1", ToJsonText(request));
    ASSERT_EQ(r.status, 200) << r.body;
    request.set_name("sessions/g1");
    v1::Session by_grpc;
    ASSERT_TRUE(Grpc(&Stub::UpdateSession, request, &by_grpc).ok());
    EXPECT_TRUE(SameApartFromIdentity(FromJson<v1::Session>(r.body), by_grpc, &report)) << report;
    EXPECT_EQ(by_grpc.parameters().at("l"), 2.0);
  }
  {
    v1::ControlSessionRequest request;
    request.set_pause(true);
    const HttpResponse r = Http(http_, "POST", "/v1/sessions/h1:control", ToJsonText(request));
    ASSERT_EQ(r.status, 200) << r.body;
    request.set_name("sessions/g1");
    v1::Session by_grpc;
    ASSERT_TRUE(Grpc(&Stub::ControlSession, request, &by_grpc).ok());
    EXPECT_TRUE(SameApartFromIdentity(FromJson<v1::Session>(r.body), by_grpc, &report)) << report;
  }
  {
    v1::ForkSessionRequest request;
    request.set_session_id("h2");
    const HttpResponse r = Http(http_, "POST", "/v1/sessions/h1:fork", ToJsonText(request));
    ASSERT_EQ(r.status, 200) << r.body;
    request.set_name("sessions/g1");
    request.set_session_id("g2");
    v1::Session by_grpc;
    ASSERT_TRUE(Grpc(&Stub::ForkSession, request, &by_grpc).ok());
    EXPECT_TRUE(SameApartFromIdentity(FromJson<v1::Session>(r.body), by_grpc, &report)) << report;
  }
  {
    const HttpResponse r = Http(http_, "DELETE", "/v1/sessions/h2");
    EXPECT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(r.body, "{}");
    v1::DeleteSessionRequest request;
    request.set_name("sessions/g2");
    pb::Empty empty;
    EXPECT_TRUE(Grpc(&Stub::DeleteSession, request, &empty).ok());
  }
  {
    v1::ServerInfo by_grpc;
    ASSERT_TRUE(Grpc(&Stub::GetServerInfo, v1::GetServerInfoRequest(), &by_grpc).ok());
    const HttpResponse r = Http(http_, "GET", "/v1/serverInfo");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_TRUE(pb::util::MessageDifferencer::Equals(FromJson<v1::ServerInfo>(r.body), by_grpc));
  }
  const HttpResponse health = Http(http_, "GET", "/healthz");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.body, R"({"status":"SERVING"})");
}

TEST_F(HttpTest, ErrorsCarryGrpcsCodeMessageAndDetails) {
  using Stub = v1::SimulationService::Stub;
  // Unknown session: NOT_FOUND → 404, the same message.
  {
    v1::GetSessionRequest request;
    request.set_name("sessions/nope");
    v1::Session ignored;
    const grpc::Status by_grpc = Grpc(&Stub::GetSession, request, &ignored);
    ASSERT_EQ(by_grpc.error_code(), grpc::StatusCode::NOT_FOUND);
    const HttpResponse r = Http(http_, "GET", "/v1/sessions/nope");
    EXPECT_EQ(r.status, 404);
    EXPECT_TRUE(pb::util::MessageDifferencer::Equals(FromJson<google::rpc::Status>(r.body),
                                                     RichOf(by_grpc)))
        << r.body;
  }
  // Bad options: INVALID_ARGUMENT → 400 with the same BadRequest field violations.
  {
    v1::CreateSessionRequest request = PendulumSession("bad", 1.0);
    request.mutable_options()->set_rtol(-1.0);
    request.mutable_options()->set_method("rk5");
    (*request.mutable_parameters())["lenght"] = 1.0;
    const HttpResponse r = Http(http_, "POST", "/v1/sessions", ToJsonText(request));
    v1::Session ignored;
    const grpc::Status by_grpc = Grpc(&Stub::CreateSession, request, &ignored);
    ASSERT_EQ(by_grpc.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_GE(BadRequestOf(by_grpc).field_violations_size(), 1);
    EXPECT_EQ(r.status, 400);
    EXPECT_TRUE(pb::util::MessageDifferencer::Equals(FromJson<google::rpc::Status>(r.body),
                                                     RichOf(by_grpc)))
        << r.body;
  }
  // What only HTTP has: a body that is not the request's JSON, a query parameter that names no
  // field, an unknown route, a method the path does not serve.
  {
    const HttpResponse r = Http(http_, "POST", "/v1/sessions", R"({"sessionId": 7, "colour": 1})");
    EXPECT_EQ(r.status, 400);
    const auto status = FromJson<google::rpc::Status>(r.body);
    EXPECT_EQ(status.code(), static_cast<int>(grpc::StatusCode::INVALID_ARGUMENT));
    EXPECT_NE(r.body.find("\"field\":\"body\""), std::string::npos) << r.body;
  }
  {
    const HttpResponse r = Http(http_, "GET", "/v1/models?pageSise=3");
    EXPECT_EQ(r.status, 400);
    EXPECT_NE(r.body.find("query.pageSise"), std::string::npos) << r.body;
  }
  EXPECT_EQ(Http(http_, "GET", "/v2/models").status, 404);
  HttpResponse wrong = Http(http_, "PUT", "/v1/sessions");
  EXPECT_EQ(wrong.status, 405);
  EXPECT_EQ(wrong.headers["allow"], "POST, GET");  // the proto's order
}

TEST_F(HttpTest, CorsAllowsOnlyTheListedOrigins) {
  HttpResponse allowed =
      Http(http_, "OPTIONS", "/v1/sessions", {},
           "Origin: https://dash.example\r\nAccess-Control-Request-Method: POST\r\n");
  EXPECT_EQ(allowed.status, 204);
  EXPECT_EQ(allowed.headers["access-control-allow-origin"], "https://dash.example");
  EXPECT_NE(allowed.headers["access-control-allow-methods"].find("POST"), std::string::npos);
  HttpResponse other = Http(http_, "GET", "/v1/models", {}, "Origin: https://evil.example\r\n");
  EXPECT_EQ(other.status, 200);
  EXPECT_EQ(other.headers.count("access-control-allow-origin"), 0U);
  HttpResponse listed = Http(http_, "GET", "/v1/models", {}, "Origin: https://dash.example\r\n");
  EXPECT_EQ(listed.headers["access-control-allow-origin"], "https://dash.example");
}

// A page of another site can make a browser send a "simple" POST (text/plain, no preflight) to
// any address: requests that change state are served to the listener's own origin and the
// configured ones only, with JSON bodies only.
TEST_F(HttpTest, AForeignOriginCannotChangeState) {
  const std::string session = ToJsonText(PendulumSession("csrf", 1.0));
  const std::string evil = "Origin: http://evil.example\r\n";
  const HttpResponse refused = Http(http_, "POST", "/v1/sessions", session, evil);
  EXPECT_EQ(refused.status, 403);
  EXPECT_EQ(FromJson<google::rpc::Status>(refused.body).code(),
            static_cast<int>(grpc::StatusCode::PERMISSION_DENIED));
  EXPECT_NE(refused.body.find("'http://evil.example'"), std::string::npos) << refused.body;
  EXPECT_EQ(Http(http_, "POST", "/v1/sessions", session,
                 evil + "Content-Type: text/plain\r\n").status, 403);
  // An opaque origin (a sandboxed frame, a data: URL) is no allowed origin either.
  EXPECT_EQ(Http(http_, "POST", "/v1/sessions", session, "Origin: null\r\n").status, 403);
  EXPECT_EQ(Http(http_, "GET", "/v1/sessions/csrf").status, 404) << "refused, yet created";

  // The listener's own origin (what a page it served sends) and a configured one are served.
  const std::string own = "Origin: http://127.0.0.1:" + std::to_string(http_) + "\r\n";
  EXPECT_EQ(Http(http_, "POST", "/v1/sessions", session, own).status, 200);
  EXPECT_EQ(Http(http_, "POST", "/v1/sessions/csrf:control", R"({"pause":true})", evil).status,
            403);
  EXPECT_EQ(Http(http_, "DELETE", "/v1/sessions/csrf", {}, evil).status, 403);
  EXPECT_EQ(Http(http_, "GET", "/v1/sessions/csrf").status, 200) << "deleted by a foreign origin";
  // A GET of the session's stream that is not view-only drives it (a page's EventSource).
  EXPECT_EQ(Http(http_, "GET", "/v1/sessions/csrf:stream", {}, evil).status, 403);
  EXPECT_EQ(Http(http_, "GET", "/v1/sessions/csrf").status, 200);
  const std::string listed = "Origin: https://dash.example\r\n";
  EXPECT_EQ(Http(http_, "DELETE", "/v1/sessions/csrf", {}, listed).status, 200);
  // Reading stays open to any origin: CORS keeps the answer from a page that is not allowed.
  EXPECT_EQ(Http(http_, "GET", "/v1/models", {}, evil).status, 200);
}

TEST_F(HttpTest, ABodyThatIsNotJsonIsRefused) {
  const std::string session = ToJsonText(PendulumSession("plain", 1.0));
  const HttpResponse plain =
      Http(http_, "POST", "/v1/sessions", session, "Content-Type: text/plain;charset=UTF-8\r\n");
  EXPECT_EQ(plain.status, 415);
  EXPECT_NE(plain.body.find("'text/plain;charset=UTF-8'"), std::string::npos) << plain.body;
  // curl -d sends a form's type.
  EXPECT_EQ(Http(http_, "POST", "/v1/sessions", session,
                 "Content-Type: application/x-www-form-urlencoded\r\n").status, 415);
  EXPECT_EQ(Http(http_, "GET", "/v1/sessions/plain").status, 404) << "refused, yet created";
  EXPECT_EQ(Http(http_, "POST", "/v1/sessions", session,
                 "Content-Type: Application/JSON; charset=utf-8\r\n").status, 200);
}

// DNS rebinding: a site whose name comes to resolve to 127.0.0.1 is same-origin with the
// listener in the browser's eyes; its requests name that site in Host.
TEST_F(HttpTest, ALoopbackListenerAnswersOnlyToItsOwnNames) {
  const std::string port = std::to_string(http_);
  const std::string evil = "Host: evil.example:" + port + "\r\n";
  const HttpResponse rebound = Http(http_, "GET", "/v1/sessions", {}, evil);
  EXPECT_EQ(rebound.status, 403);
  EXPECT_NE(rebound.body.find("'evil.example:" + port + "'"), std::string::npos) << rebound.body;
  EXPECT_EQ(Http(http_, "GET", "/", {}, evil).status, 403);
  for (const std::string& host : {"localhost:" + port, "[::1]:" + port, "127.0.0.1:" + port,
                                 // a relay or tunnel on another local port
                                 std::string("localhost:9999"),
                                 // the host of --http-cors-origin, e.g. a proxy that keeps Host
                                 std::string("dash.example")}) {
    EXPECT_EQ(Http(http_, "GET", "/v1/sessions", {}, "Host: " + host + "\r\n").status, 200)
        << host;
  }
}

TEST_F(HttpTest, AnSseStreamCarriesTheGrpcStreamsSamplesBitForBit) {
  const Collected by_grpc = TwinPendulums();
  ASSERT_TRUE(by_grpc.status.ok()) << by_grpc.status.error_message();

  const HttpResponse r = Http(http_, "GET", "/v1/sessions/h:stream?frameSamples=16");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.headers.at("content-type"), "text/event-stream");
  const std::vector<SseMessage> messages = ParseSse(r.body);
  ASSERT_GE(messages.size(), 3U);
  EXPECT_EQ(messages.front().event, "header");
  EXPECT_EQ(messages.back().event, "summary");
  const Collected by_http = FromSse(messages);
  EXPECT_TRUE(by_http.status.ok());
  ExpectSameSamples(by_http, by_grpc);
  EXPECT_EQ(by_http.summary.termination(), by_grpc.summary.termination());

  // Simulate: the same run, one shot, as events of the same format.
  v1::SimulateRequest simulate;
  simulate.set_model("models/pendulum");
  simulate.mutable_options()->set_t_end(2.0);
  simulate.set_frame_samples(16);
  const Collected one_shot = FromSse(ParseSse(Http(http_, "POST", "/v1:simulate", ToJsonText(simulate)).body));
  ExpectSameSamples(one_shot, by_grpc);
}

// Reads an event stream until it holds `frames` complete frames, then closes the connection.
std::vector<SseMessage> ReadFramesThenLeave(int port, const std::string& path, std::size_t frames) {
  const int fd = ConnectLoopback(port);
  EXPECT_GE(fd, 0);
  const std::string request = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string raw;
  std::vector<SseMessage> messages;
  char buffer[4096];
  for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) {
    raw.append(buffer, static_cast<std::size_t>(n));
    const std::size_t body = raw.find("\r\n\r\n");
    if (body == std::string::npos) continue;
    messages = ParseSse(Dechunk(std::string_view(raw).substr(body + 4)));
    std::size_t complete = 0;
    for (const SseMessage& m : messages) complete += m.event == "frame" ? 1U : 0U;
    if (complete >= frames) break;
  }
  ::close(fd);
  // Keep the messages up to the `frames`-th frame: what this client processed.
  std::vector<SseMessage> kept;
  std::size_t seen = 0;
  for (const SseMessage& m : messages) {
    if (seen == frames) break;
    kept.push_back(m);
    seen += m.event == "frame" ? 1U : 0U;
  }
  return kept;
}

TEST_F(HttpTest, AReconnectWithLastEventIdContinuesWithoutGapOrDuplicate) {
  const Collected by_grpc = TwinPendulums();
  ASSERT_TRUE(by_grpc.status.ok());

  // The client leaves after 3 frames of 8 samples; the server may have sent (and the history
  // kept) more than it read.
  const std::vector<SseMessage> first = ReadFramesThenLeave(http_, "/v1/sessions/h:stream?frameSamples=8", 3);
  ASSERT_EQ(first.back().event, "frame");
  const std::string last_id = first.back().id;
  EXPECT_EQ(last_id, "24");
  // The server releases the session once it notices the client gone (its next write fails);
  // until then the resumed stream ends at once with FAILED_PRECONDITION (an `event: error`:
  // the run's start found the session busy), and EventSource would retry.
  HttpResponse resumed;
  for (int i = 0; i < 400; ++i) {
    resumed = Http(http_, "GET", "/v1/sessions/h:stream?frameSamples=8", {},
                   "Last-Event-ID: " + last_id + "\r\n");
    if (resumed.body.find("\"code\":9") == std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(resumed.status, 200) << resumed.body;
  std::vector<SseMessage> joined = first;
  const std::vector<SseMessage> rest = ParseSse(resumed.body);
  ASSERT_GE(rest.size(), 3U) << resumed.body.substr(0, 2000);
  joined.insert(joined.end(), rest.begin(), rest.end());
  const Collected by_http = FromSse(joined);
  ExpectSameSamples(by_http, by_grpc);
}

// A stream request that the run's start would refuse for a reason known before the first event
// is refused as a bad query parameter is, with its HTTP status and google.rpc.Status JSON: an
// EventSource given 200 and `event: error` would reconnect to the same error forever.
TEST_F(HttpTest, AStreamRefusedBeforeItsFirstEventIsAnHttpError) {
  ASSERT_EQ(Http(http_, "POST", "/v1/sessions", ToJsonText(PendulumSession("v", 1.0))).status, 200);
  // {query, what the refusal names}; the session has computed nothing, so its replayable range
  // is [0, 0]; 1e-12 s between samples over 1 s asks for more than max_samples_per_stream.
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"maxSamples=0", "max_samples = 0"},
      {"stopTime=nan", "stop_time = nan"},
      {"startSampleIndex=99", "start_sample_index = 99 is outside"},
      {"outputInterval=1e-12", "output_interval"},
      {"tEnd=-1", "t_end = -1"},
      {"columns=z", "unknown column 'z'"},
      {"viewOnly=true&maxSamples=0", "max_samples = 0"},
      {"viewOnly=true&startSampleIndex=99", "start_sample_index = 99 is outside"},
  };
  for (const auto& [query, names] : refused) {
    HttpResponse r = Http(http_, "GET", "/v1/sessions/v:stream?" + query);
    EXPECT_EQ(r.status, 400) << query << ": " << r.body;
    EXPECT_EQ(r.headers["content-type"], "application/json") << query;
    EXPECT_NE(r.body.find(names), std::string::npos) << query << ": " << r.body;
  }
  // Checking changed nothing: the session streams from its start to its own t_end.
  const HttpResponse good = Http(http_, "GET", "/v1/sessions/v:stream");
  ASSERT_EQ(good.status, 200) << good.body;
  const Collected samples = FromSse(ParseSse(good.body));
  EXPECT_TRUE(samples.status.ok()) << samples.status.error_message();
  EXPECT_EQ(samples.t.size(), 21U);  // t = 0, 0.05, …, 1
}

// EventSource's reconnect sends the last event's id as a header: a bad one is named as the
// header, not as a query parameter the client never sent.
TEST_F(HttpTest, ABadLastEventIdIsNamedAsTheHeader) {
  ASSERT_EQ(Http(http_, "POST", "/v1/sessions", ToJsonText(PendulumSession("le", 1.0))).status,
            200);
  const HttpResponse r =
      Http(http_, "GET", "/v1/sessions/le:stream", {}, "Last-Event-ID: abc\r\n");
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_NE(r.body.find("\"field\":\"header.Last-Event-ID\""), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("Last-Event-ID: 'abc'; must be a sample index"), std::string::npos)
      << r.body;
  EXPECT_EQ(r.body.find("query."), std::string::npos) << r.body;
}

// A percent-decoded NUL would end the name as a C string: /v1/sessions/rob1%00zzz must not be
// session rob1. A path whose decoding holds a control character or is not UTF-8 is refused,
// naming the segment as sent.
TEST_F(HttpTest, APathThatDecodesToAControlCharacterOrNotUtf8IsRefused) {
  ASSERT_EQ(Http(http_, "POST", "/v1/sessions", ToJsonText(PendulumSession("rob1", 1.0))).status,
            200);
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"/v1/sessions/rob1%00zzz", "'rob1%00zzz' decodes to control character 0x00"},
      {"/v1/models/pendulum%00garbage", "'pendulum%00garbage' decodes to control character 0x00"},
      {"/v1/sessions/rob1%0A", "'rob1%0A' decodes to control character 0x0a"},
      {"/v1/models/pendulum%ff", "'pendulum%ff' decodes to bytes that are not UTF-8"},
      {"/v1/sessions/rob1%00zzz:stream", "'rob1%00zzz:stream' decodes to control character 0x00"},
  };
  for (const auto& [path, names] : refused) {
    const HttpResponse r = Http(http_, "GET", path);
    EXPECT_EQ(r.status, 400) << path << ": " << r.body;
    EXPECT_NE(r.body.find("path segment 3 " + names), std::string::npos) << path << ": " << r.body;
  }
  // Escapes of printable characters, UTF-8 included, still decode to the name.
  EXPECT_EQ(Http(http_, "GET", "/v1/sessions/rob%31").status, 200);
  EXPECT_EQ(Http(http_, "GET", "/v1/models/pendul%C3%BCm").status, 404);
}

// Bearer tokens and tenants as gRPC has them: the header, or ?access_token= on a stream.
TEST(HttpTokenTest, TokensAndTenantsAreGrpcs) {
  const std::string file = ::testing::TempDir() + "http_tokens_" + std::to_string(::getpid());
  std::ofstream(file) << TokenLine("alpha", "alpha-secret") << "\n" << TokenLine("beta", "beta-secret") << "\n";
  ServerProcess process(TETHER_SERVER_BINARY,
                        {"--http-listen", "127.0.0.1:0", "--token-file", file,
                         "--allow-insecure-tokens", "--quiet"});
  const int grpc_port = process.WaitForPort();
  ASSERT_GT(grpc_port, 0) << process.Log();
  std::smatch match;
  const std::string log = process.Log();
  ASSERT_TRUE(std::regex_search(log, match, std::regex(R"("http_port":(\d+))"))) << log;
  const int port = std::stoi(match[1]);
  const std::string alpha = "Authorization: Bearer alpha-secret\r\n";
  const std::string beta = "Authorization: Bearer beta-secret\r\n";

  // No token: UNAUTHENTICATED → 401 with gRPC's message.
  auto stub = v1::SimulationService::NewStub(grpc::CreateChannel(
      "127.0.0.1:" + std::to_string(grpc_port), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  SetDeadline(&context);
  v1::ListSessionsResponse ignored;
  const grpc::Status by_grpc = stub->ListSessions(&context, v1::ListSessionsRequest(), &ignored);
  ASSERT_EQ(by_grpc.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  const HttpResponse refused = Http(port, "GET", "/v1/sessions");
  EXPECT_EQ(refused.status, 401);
  EXPECT_TRUE(pb::util::MessageDifferencer::Equals(FromJson<google::rpc::Status>(refused.body),
                                                   RichOf(by_grpc)))
      << refused.body;
  EXPECT_EQ(Http(port, "GET", "/v1/sessions", {}, "Authorization: Bearer wrong\r\n").status, 401);

  // Each tenant sees its own sessions only.
  ASSERT_EQ(Http(port, "POST", "/v1/sessions", ToJsonText(PendulumSession("mine", 0.5)), alpha).status, 200);
  EXPECT_EQ(Http(port, "GET", "/v1/sessions/mine", {}, alpha).status, 200);
  EXPECT_EQ(Http(port, "GET", "/v1/sessions/mine", {}, beta).status, 404);

  // EventSource cannot send the header: the stream takes ?access_token=, for its tenant only.
  EXPECT_EQ(Http(port, "GET", "/v1/sessions/mine:stream").status, 401);
  EXPECT_EQ(Http(port, "GET", "/v1/sessions/mine:stream?access_token=beta-secret").status, 404);
  const HttpResponse streamed = Http(port, "GET", "/v1/sessions/mine:stream?access_token=alpha-secret");
  ASSERT_EQ(streamed.status, 200) << streamed.body;
  const Collected samples = FromSse(ParseSse(streamed.body));
  EXPECT_EQ(samples.t.size(), 11U);  // t = 0, 0.05, …, 0.5
  EXPECT_TRUE(samples.has_summary);
  // Not on unary calls: a token in a URL is for EventSource's sake only, and the refusal
  // does not repeat it (the message also goes to the server's log).
  const HttpResponse unary = Http(port, "GET", "/v1/sessions/mine?access_token=alpha-secret");
  EXPECT_EQ(unary.status, 400);
  EXPECT_NE(unary.body.find("query.access_token"), std::string::npos) << unary.body;
  EXPECT_EQ(unary.body.find("alpha-secret"), std::string::npos) << unary.body;
  std::remove(file.c_str());
}

// A server in this process, `config` with its HTTP listener on 127.0.0.1; nullptr if it failed.
std::unique_ptr<Server> StartInProcess(ServerConfig config) {
  config.http_listen = "127.0.0.1:0";
  std::string error;
  std::unique_ptr<Server> server = Server::Start(config, &error);
  EXPECT_NE(server, nullptr) << error;
  return server;
}

// Opens an event stream at `path`, reads until its first event arrived, and closes the
// connection; false if no event came.
bool OpenStreamThenLeave(int port, const std::string& path) {
  const int fd = ConnectLoopback(port);
  if (fd < 0) return false;
  const std::string request = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string raw;
  char buffer[4096];
  for (ssize_t n; raw.find("event: header") == std::string::npos &&
                  (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) {
    raw.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return raw.find("event: header") != std::string::npos;
}

// How long a closed connection may keep its stream: the listener looks at suspended streams'
// sockets every 0.25 s (sse_stream.h, kClientCheckPeriod); the rest is the stream's end on a
// worker pool that a loaded test machine may keep busy.
constexpr auto kClientGoneBound = std::chrono::seconds(2);

// Calls `attempt` every 20 ms until it returns true or kClientGoneBound passed; whether it did.
template <typename Attempt>
bool SucceedsWithinBound(Attempt attempt) {
  const auto deadline = std::chrono::steady_clock::now() + kClientGoneBound;
  while (std::chrono::steady_clock::now() < deadline) {
    if (attempt()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// A viewer of an idle session writes nothing, so no failed write tells the server its client
// left: the listener must notice the closed socket itself and free the stream's place.
TEST(HttpClientGoneTest, AViewerWhoseClientLeftFreesItsPlace) {
  ServerConfig config = TestConfig();
  config.max_streams = 1;
  const std::unique_ptr<Server> server = StartInProcess(config);
  ASSERT_NE(server, nullptr);
  const int port = server->http_port();
  ASSERT_EQ(Http(port, "POST", "/v1/sessions", ToJsonText(PendulumSession("idle", 0.5))).status,
            200);
  ASSERT_TRUE(OpenStreamThenLeave(port, "/v1/sessions/idle:stream?viewOnly=true"));
  // The one place is free again once a driving stream is admitted (429 while it is held); that
  // stream runs the session to its t_end and ends.
  HttpResponse streamed;
  EXPECT_TRUE(SucceedsWithinBound([&] {
    streamed = Http(port, "GET", "/v1/sessions/idle:stream");
    return streamed.status != 429;
  })) << "the viewer's place is still held: " << streamed.body;
  EXPECT_EQ(streamed.status, 200) << streamed.body;
  EXPECT_TRUE(FromSse(ParseSse(streamed.body)).has_summary);
}

// A driver whose client leaves while the run computes towards a distant sample: the run is
// cancelled (it polls the flag per step) and the session is free, not held until that sample.
TEST(HttpClientGoneTest, ADriverWhoseClientLeftFreesItsSession) {
  const std::unique_ptr<Server> server = StartInProcess(TestConfig());
  ASSERT_NE(server, nullptr);
  const int port = server->http_port();
  // 10^7 fixed rk4 steps from the sample at t = 0 to the next, at t = 10: seconds of work.
  v1::CreateSessionRequest busy = PendulumSession("busy", 20.0);
  busy.mutable_options()->set_method("rk4");
  busy.mutable_options()->set_step(1e-6);
  busy.mutable_options()->set_output_interval(10.0);
  ASSERT_EQ(Http(port, "POST", "/v1/sessions", ToJsonText(busy)).status, 200);
  ASSERT_TRUE(OpenStreamThenLeave(port, "/v1/sessions/busy:stream"));
  HttpResponse deleted;
  EXPECT_TRUE(SucceedsWithinBound([&] {
    deleted = Http(port, "DELETE", "/v1/sessions/busy");
    return deleted.status == 200;
  })) << "the session is still held by the stream: " << deleted.body;
}

// DeleteSession waits for the session's driving stream to let go (Session::AwaitDriverRelease:
// kUnseenCancelGrace = 250 ms for a driver that was not cancelled, then FAILED_PRECONDITION).
// That wait must not hold libmicrohttpd's threads (kHttpThreads = 2): with four such DELETEs
// sent, /healthz, sent after them, is answered before any of them. Were the DELETEs served on
// those threads, /healthz would wait in the accept queue behind them, for two grace periods.
TEST(HttpDeleteTest, ADeleteWaitingForADriverDoesNotHoldTheListener) {
  const std::unique_ptr<Server> server = StartInProcess(TestConfig());
  ASSERT_NE(server, nullptr);
  const int port = server->http_port();
  auto stub = v1::SimulationService::NewStub(server->InProcessChannel());
  // Four sessions, each driven by a paced stream (a frame per 2.56 s of wall time: it holds no
  // worker while it waits), open until cancelled.
  constexpr int kSessions = 4;
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  std::vector<std::unique_ptr<grpc::ClientReader<v1::StateChunk>>> readers;
  for (int i = 0; i < kSessions; ++i) {
    const std::string id = "d" + std::to_string(i);
    ASSERT_EQ(Http(port, "POST", "/v1/sessions", ToJsonText(PendulumSession(id, 1000.0))).status,
              200);
    v1::StreamStatesRequest request;
    request.set_name("sessions/" + id);
    request.set_realtime_factor(1.0);
    contexts.push_back(std::make_unique<grpc::ClientContext>());
    SetDeadline(contexts.back().get());
    readers.push_back(stub->StreamStates(contexts.back().get(), request));
    v1::StateChunk header;
    ASSERT_TRUE(readers.back()->Read(&header));  // Begin ran: the session is driven
  }
  std::vector<int> deletes;
  for (int i = 0; i < kSessions; ++i) {
    const int fd = ConnectLoopback(port);
    ASSERT_GE(fd, 0);
    const std::string request = "DELETE /v1/sessions/d" + std::to_string(i) +
                                " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
    deletes.push_back(fd);
  }
  EXPECT_EQ(Http(port, "GET", "/healthz").status, 200);
  for (const int fd : deletes) {
    char byte = 0;
    EXPECT_LT(::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT), 0)
        << "a DELETE was answered before /healthz: the DELETEs held the listener's threads";
  }
  for (const int fd : deletes) {
    std::string raw;
    char buffer[4096];
    for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) {
      raw.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fd);
    // The drivers were not cancelled: each DELETE waited its grace and was refused.
    EXPECT_EQ(ParseResponse(raw).status, 400) << raw;
  }
  for (std::size_t i = 0; i < readers.size(); ++i) {
    contexts[i]->TryCancel();
    v1::StateChunk chunk;
    while (readers[i]->Read(&chunk)) {
    }
    readers[i]->Finish();
  }
}

// In process, to read the server's own frame counters: a client that stops reading (a small
// receive buffer, never read) stalls its session's run once the socket buffers are full, and
// the server holds at most one computed frame for it meanwhile.
TEST(HttpSlowClientTest, AClientThatDoesNotReadStallsOnlyItsOwnRun) {
  const std::unique_ptr<Server> server = StartInProcess(TestConfig());
  ASSERT_NE(server, nullptr);
  const int port = server->http_port();
  ASSERT_GT(port, 0);
  ASSERT_EQ(Http(port, "POST", "/v1/sessions", ToJsonText(PendulumSession("slow", 10.0))).status, 200);
  ASSERT_EQ(Http(port, "POST", "/v1/sessions", ToJsonText(PendulumSession("other", 2.0))).status, 200);

  const int fd = ConnectLoopback(port, 4096);
  ASSERT_GE(fd, 0);
  const std::string request =
      "GET /v1/sessions/slow:stream?indefinite=true&frameSamples=64 HTTP/1.1\r\n"
      "Host: 127.0.0.1\r\n\r\n";
  ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);

  // The run advances until the buffers between the server and this client are full, then
  // stops: three equal readings of its time, 100 ms apart, at most 30 s of polling.
  double t = -1.0;
  int equal = 0;
  for (int i = 0; i < 300 && equal < 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const auto session = FromJson<v1::Session>(Http(port, "GET", "/v1/sessions/slow").body);
    equal = session.t() == t ? equal + 1 : 0;
    t = session.t();
  }
  EXPECT_EQ(equal, 3) << "the run did not stall behind a client that does not read";
  EXPECT_GT(t, 0.0);
  const ServerMetrics metrics = server->metrics();
  // Stalled, the pipeline is full: the event whose write waits and the frame computed ahead.
  EXPECT_EQ(metrics.frames_buffered, 2U);
  EXPECT_EQ(metrics.max_frames_buffered_per_stream, 2U);
  // Another session streams to its end meanwhile.
  const Collected other = FromSse(ParseSse(Http(port, "GET", "/v1/sessions/other:stream").body));
  EXPECT_EQ(other.t.size(), 41U);  // t = 0, 0.05, …, 2
  EXPECT_TRUE(other.has_summary);
  ::close(fd);
}

}  // namespace
}  // namespace tether::server::testing
