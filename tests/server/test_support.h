// Helpers shared by the server tests: an in-process or loopback server, stream collection,
// and decoding of google.rpc details.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"
#include "tether/server/server.h"
#include "tether/v1/simulation_service.grpc.pb.h"

namespace tether::server::testing {

// Every call of a test gets this deadline: far above any run here (< 1 s), so that a hang
// fails instead of blocking ctest.
// How many times slower a sanitizer build runs the server (ThreadSanitizer 5-15x, ASan 2-3x):
// the wall-clock bounds that depend on the server's speed are multiplied by it.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr int kSlowdown = 10;
#else
inline constexpr int kSlowdown = 1;
#endif

inline constexpr std::chrono::seconds kCallDeadline{20 * kSlowdown};

inline void SetDeadline(grpc::ClientContext* context) {
  context->set_deadline(std::chrono::system_clock::now() + kCallDeadline);
}

// A small registrable model (index 1, x'' = -k x written with the algebraic a = -k x).
inline constexpr const char* kOscillatorSpec = R"({
  "name": "oscillator", "form": "index1",
  "parameters": {"k": {"value": 4.0}},
  "differential": ["x", "v"], "algebraic": ["a"],
  "rhs": ["v", "a"], "constraints": ["a + k*x"],
  "initial": {"x": 1, "v": 0, "a": -4},
  "simulation": {"t_end": 1, "output_interval": 0.1}
})";

// kOscillatorSpec under another model name.
inline std::string OscillatorSpecNamed(const std::string& name) {
  std::string spec = kOscillatorSpec;
  const std::string original = "\"oscillator\"";
  return spec.replace(spec.find(original), original.size(), "\"" + name + "\"");
}

// A config for tests: in-process only, quiet, 2 workers.
inline ServerConfig TestConfig() {
  ServerConfig config;
  config.listen = "";
  config.log_rpcs = false;
  config.worker_threads = 2;
  return config;
}

// Everything a stream delivered.
struct Collected {
  v1::StreamHeader header;
  std::vector<std::uint64_t> index;
  std::vector<double> t;
  std::vector<double> values;  // row-major over header.columns
  std::vector<double> residual_position;
  std::vector<double> residual_velocity;
  std::vector<double> residual_inequality;  // empty for models without inequalities
  std::vector<v1::Event> events;
  std::size_t frames = 0;
  bool has_summary = false;
  v1::StreamSummary summary;
  grpc::Status status;
};

// Appends a frame's samples, residuals and events.
inline void AppendFrame(const v1::Frame& f, Collected* out) {
  ++out->frames;
  for (int i = 0; i < f.t_size(); ++i) {
    out->index.push_back(f.first_sample_index() + static_cast<std::uint64_t>(i));
  }
  out->t.insert(out->t.end(), f.t().begin(), f.t().end());
  out->values.insert(out->values.end(), f.values().begin(), f.values().end());
  out->residual_position.insert(out->residual_position.end(), f.residual_position().begin(),
                                f.residual_position().end());
  out->residual_velocity.insert(out->residual_velocity.end(), f.residual_velocity().begin(),
                                f.residual_velocity().end());
  out->residual_inequality.insert(out->residual_inequality.end(), f.residual_inequality().begin(),
                                  f.residual_inequality().end());
  out->events.insert(out->events.end(), f.events().begin(), f.events().end());
}

// Reads a stream to its end, or until `max_samples` samples arrived; then cancels it.
inline Collected Collect(grpc::ClientContext* context,
                         grpc::ClientReader<v1::StateChunk>* reader,
                         std::size_t max_samples = SIZE_MAX) {
  Collected out;
  v1::StateChunk chunk;
  bool cancelled = false;
  while (reader->Read(&chunk)) {
    if (chunk.has_header()) out.header = chunk.header();
    if (chunk.has_summary()) {
      out.has_summary = true;
      out.summary = chunk.summary();
    }
    if (!chunk.has_frame()) continue;
    AppendFrame(chunk.frame(), &out);
    if (out.t.size() >= max_samples) {
      context->TryCancel();
      cancelled = true;
      break;
    }
  }
  if (cancelled) {
    while (reader->Read(&chunk)) {
    }
  }
  out.status = reader->Finish();
  return out;
}

// Appends what a resumed stream delivered to what the earlier ones did; the status and the
// summary become the last stream's.
inline void Join(const Collected& part, Collected* joined) {
  auto append = [](auto& to, const auto& from) { to.insert(to.end(), from.begin(), from.end()); };
  append(joined->index, part.index);
  append(joined->t, part.t);
  append(joined->values, part.values);
  append(joined->residual_position, part.residual_position);
  append(joined->residual_velocity, part.residual_velocity);
  append(joined->residual_inequality, part.residual_inequality);
  append(joined->events, part.events);
  joined->has_summary = part.has_summary;
  joined->summary = part.summary;
  joined->status = part.status;
}

inline Collected Stream(v1::SimulationService::Stub* stub, const v1::StreamStatesRequest& request,
                        std::size_t max_samples = SIZE_MAX) {
  grpc::ClientContext context;
  SetDeadline(&context);
  auto reader = stub->StreamStates(&context, request);
  return Collect(&context, reader.get(), max_samples);
}

inline Collected RunSimulate(v1::SimulationService::Stub* stub, const v1::SimulateRequest& request) {
  grpc::ClientContext context;
  SetDeadline(&context);
  auto reader = stub->Simulate(&context, request);
  return Collect(&context, reader.get());
}

// The google.rpc.BadRequest of a status, or an empty one.
inline google::rpc::BadRequest BadRequestOf(const grpc::Status& status) {
  google::rpc::Status rich;
  google::rpc::BadRequest bad;
  if (rich.ParseFromString(status.error_details())) {
    for (const auto& detail : rich.details()) {
      if (detail.UnpackTo(&bad)) return bad;
    }
  }
  return bad;
}

// The first detail of type `Detail` (google.rpc.*) of a status, or an empty one.
template <typename Detail>
Detail DetailOf(const grpc::Status& status) {
  google::rpc::Status rich;
  Detail out;
  if (rich.ParseFromString(status.error_details())) {
    for (const auto& detail : rich.details()) {
      if (detail.UnpackTo(&out)) return out;
    }
  }
  return out;
}

inline google::rpc::ErrorInfo ErrorInfoOf(const grpc::Status& status) {
  return DetailOf<google::rpc::ErrorInfo>(status);
}

// An in-process server per test, with the unary calls the tests share.
class ServerFixture : public ::testing::Test {
 protected:
  void SetUp() override { Restart(TestConfig()); }

  void Restart(const ServerConfig& config) {
    stub_.reset();
    server_.reset();
    std::string error;
    server_ = Server::Start(config, &error);
    ASSERT_NE(server_, nullptr) << error;
    stub_ = v1::SimulationService::NewStub(server_->InProcessChannel());
  }

  grpc::Status CreateSession(const v1::CreateSessionRequest& request, v1::Session* session) {
    grpc::ClientContext context;
    SetDeadline(&context);
    return stub_->CreateSession(&context, request, session);
  }

  // Creates session `id` of catalog model `model` with `options`; a failure fails the test.
  v1::Session MustCreateSession(const std::string& model, const std::string& id,
                                const v1::SimulationOptions& options) {
    v1::CreateSessionRequest request;
    request.set_model("models/" + model);
    request.set_session_id(id);
    *request.mutable_options() = options;
    v1::Session session;
    const grpc::Status status = CreateSession(request, &session);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return session;
  }

  v1::Session Get(const std::string& name, grpc::Status* status = nullptr) {
    grpc::ClientContext context;
    SetDeadline(&context);
    v1::GetSessionRequest request;
    request.set_name(name);
    v1::Session session;
    const grpc::Status s = stub_->GetSession(&context, request, &session);
    if (status != nullptr) *status = s;
    return session;
  }

  // Polls (bounded) until the session's stream has been released by the server.
  v1::Session WaitNotRunning(const std::string& name) {
    v1::Session session;
    for (int i = 0; i < 500; ++i) {
      session = Get(name);
      if (session.state() != v1::SESSION_STATE_RUNNING) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return session;
  }

  std::unique_ptr<Server> server_;
  std::unique_ptr<v1::SimulationService::Stub> stub_;
};

// grpc.health.v1.Health/Check for `service` through the generic stub (the health protos are
// not ours to compile into the test): request field 1 is the service name; response field 1
// is the status enum. Returns 1 SERVING, 2 NOT_SERVING, -1 on an RPC error (NOT_FOUND for a
// name the server does not know).
int HealthStatus(const std::shared_ptr<grpc::Channel>& channel, const std::string& service = "");

// A TCP connection to 127.0.0.1:port with a 5 s receive timeout (and, when > 0, a receive
// buffer of `receive_buffer` bytes); -1 if it could not connect.
int ConnectLoopback(int port, int receive_buffer = 0);
// Sends `request` (raw HTTP/1.1) to 127.0.0.1:port and returns everything the server answered
// until it closed the connection (5 s receive timeout); "" if it could not connect.
std::string HttpExchange(int port, const std::string& request);
// The samples of a Prometheus exposition text: "name{labels}" → value. Every line must be a
// comment or a sample "name[{labels}] value" (a test failure otherwise).
std::map<std::string, double> ParseExposition(const std::string& body);
// GET /metrics from 127.0.0.1:port, parsed; a test failure unless the answer is 200.
std::map<std::string, double> ScrapeMetrics(int port);
// ScrapeMetrics once tether_open_streams is 0 (polled, at most 5 s): a stream leaves the open
// set only after its client saw the status, so a scrape right after a call may still count it.
std::map<std::string, double> ScrapeMetricsWhenIdle(int port);

// A token file line as server/auth.h documents it, computed here independently of the server:
// TENANT:SALT:hex(SHA-256(SALT ‖ token)).
std::string TokenLine(const std::string& tenant, const std::string& token,
                      const std::string& salt = "00112233445566778899aabbccddeeff");

// A real tether-server process on 127.0.0.1 port 0 with 2 worker threads and `args` added;
// its stderr goes to a file read for the port. Killed (SIGKILL) at destruction if still running,
// and with the test process if that dies.
class ServerProcess {
 public:
  ServerProcess(const std::string& binary, const std::vector<std::string>& args);
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  // The port from the {"event":"serving","port":N} line; 0 if none within 10 s.
  int WaitForPort();
  // Exit code, or -1 if the process did not exit within `limit`.
  int WaitForExit(std::chrono::milliseconds limit);
  void Signal(int number);
  [[nodiscard]] std::string Log() const;
  [[nodiscard]] int pid() const { return pid_; }
  // Open file descriptors of the process (entries of /proc/<pid>/fd); -1 if unreadable.
  [[nodiscard]] int OpenFileDescriptors() const;

 private:
  std::string log_;
  int pid_ = -1;
  bool exited_ = false;
};

}  // namespace tether::server::testing
