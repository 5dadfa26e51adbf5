// Time to first sample (comparison 5): wall time from CreateSession to the first Frame
// of StreamStates over loopback TCP, for the catalog pendulum and for a model registered in the
// same call sequence (RegisterModel + CreateSession + StreamStates). The channel is connected
// before timing (one ListModels), so connection set-up is reported apart. Writes
// first_sample.json and first_sample.md.
#include <grpcpp/client_context.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "common/arguments.h"
#include "common/chain.h"
#include "common/cpu_timer.h"
#include "common/report.h"
#include "tether/server/server.h"
#include "tether/v1/simulation_service.grpc.pb.h"

namespace tether::bench {
namespace {

namespace v1 = tether::v1;

// Wall seconds of each phase of one trial.
struct Trial {
  bool ok = false;
  std::string error;
  double register_seconds = 0.0;  // RegisterModel (registered case only)
  double create_seconds = 0.0;    // CreateSession
  double first_frame_seconds = 0.0;  // StreamStates call until its first Frame
  double total_seconds = 0.0;     // everything above
};

std::string Describe(const grpc::Status& status) {
  return std::to_string(static_cast<int>(status.error_code())) + " " + status.error_message();
}

// Registers `spec` (unless empty), creates a session of `model` and reads up to the first
// frame; cleans up afterwards (not timed).
Trial RunTrial(v1::SimulationService::Stub& stub, const std::string& model, const std::string& spec,
               const std::string& session_id) {
  Trial trial;
  const double start = WallSeconds();
  if (!spec.empty()) {
    grpc::ClientContext context;
    v1::RegisterModelRequest request;
    request.set_spec_json(spec);
    v1::Model registered;
    const grpc::Status status = stub.RegisterModel(&context, request, &registered);
    if (!status.ok()) {
      trial.error = "RegisterModel: " + Describe(status);
      return trial;
    }
  }
  const double registered_at = WallSeconds();
  v1::Session session;
  {
    grpc::ClientContext context;
    v1::CreateSessionRequest request;
    request.set_model(model);
    request.set_session_id(session_id);
    const grpc::Status status = stub.CreateSession(&context, request, &session);
    if (!status.ok()) {
      trial.error = "CreateSession: " + Describe(status);
      return trial;
    }
  }
  const double created_at = WallSeconds();
  {
    grpc::ClientContext context;
    v1::StreamStatesRequest request;
    request.set_name(session.name());
    request.set_frame_samples(1);
    std::unique_ptr<grpc::ClientReader<v1::StateChunk>> reader = stub.StreamStates(&context, request);
    v1::StateChunk chunk;
    bool got_frame = false;
    while (!got_frame && reader->Read(&chunk)) got_frame = chunk.has_frame();
    const double framed_at = WallSeconds();
    context.TryCancel();
    reader->Finish();  // CANCELLED, by us
    if (!got_frame) {
      trial.error = "StreamStates ended before its first frame";
      return trial;
    }
    trial.ok = true;
    trial.register_seconds = registered_at - start;
    trial.create_seconds = created_at - registered_at;
    trial.first_frame_seconds = framed_at - created_at;
    trial.total_seconds = framed_at - start;
  }
  grpc::ClientContext delete_context;
  v1::DeleteSessionRequest delete_session;
  delete_session.set_name(session.name());
  google::protobuf::Empty empty;
  stub.DeleteSession(&delete_context, delete_session, &empty);
  if (!spec.empty()) {
    grpc::ClientContext context;
    v1::DeleteModelRequest request;
    request.set_name("models/" + model);
    stub.DeleteModel(&context, request, &empty);
  }
  return trial;
}

int Run(int argc, char** argv) {
  Arguments arguments;
  std::string why;
  if (!ParseArguments(argc, argv, TETHER_BENCH_RESULTS_DIR, &arguments, &why)) {
    std::fprintf(stderr, "first_sample: %s\n", why.c_str());
    return 2;
  }
  server::ServerConfig config;
  config.listen = "127.0.0.1:0";
  config.log_rpcs = false;
  std::unique_ptr<server::Server> server = server::Server::Start(config, &why);
  if (server == nullptr) {
    std::fprintf(stderr, "first_sample: the server did not start: %s\n", why.c_str());
    return 1;
  }
  auto channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(server->port()),
                                     grpc::InsecureChannelCredentials());
  auto stub = v1::SimulationService::NewStub(channel);
  const double connect_start = WallSeconds();
  {
    grpc::ClientContext context;
    v1::ListModelsRequest request;
    v1::ListModelsResponse response;
    const grpc::Status status = stub->ListModels(&context, request, &response);
    if (!status.ok()) {
      std::fprintf(stderr, "first_sample: ListModels failed: %s\n", Describe(status).c_str());
      return 1;
    }
  }
  const double connect_seconds = WallSeconds() - connect_start;

  const int trials = arguments.quick ? 2 : 100;
  Report report("first_sample", arguments.command);
  Table table("Time to first sample over loopback TCP (" + std::to_string(trials) +
                  " trials each, wall clock)",
              {"case", "p50 total [ms]", "min [ms]", "p90 [ms]", "RegisterModel p50 [ms]",
               "CreateSession p50 [ms]", "first frame p50 [ms]"});
  report.json()["connect_and_first_rpc_seconds"] = connect_seconds;
  int status_code = 0;
  for (const bool registered : {false, true}) {
    std::vector<double> total, reg, create, frame;
    std::string error;
    for (int i = 0; i < trials; ++i) {
      const std::string model = registered ? "bench-first-" + std::to_string(i) : "pendulum";
      const std::string spec = registered ? ChainSpecJson(SeedPendulum(), SeedPendulumStart(), model)
                                          : std::string();
      const Trial trial = RunTrial(*stub, model, spec, "bench-first-session-" + std::to_string(i) +
                                                            (registered ? "-r" : "-c"));
      if (!trial.ok) {
        error = trial.error;
        break;
      }
      total.push_back(trial.total_seconds);
      reg.push_back(trial.register_seconds);
      create.push_back(trial.create_seconds);
      frame.push_back(trial.first_frame_seconds);
    }
    const std::string name = registered ? "registered pendulum spec" : "catalog pendulum";
    if (!error.empty()) {
      report.AddNote(name + ": failed: " + error);
      report.json()[registered ? "registered" : "catalog"] = {{"error", error}};
      status_code = 1;
      continue;
    }
    table.AddRow({name, Format(1e3 * Percentile(total, 0.5)), Format(1e3 * Percentile(total, 0.0)),
                  Format(1e3 * Percentile(total, 0.9)),
                  registered ? Format(1e3 * Percentile(reg, 0.5)) : "-",
                  Format(1e3 * Percentile(create, 0.5)), Format(1e3 * Percentile(frame, 0.5))});
    report.json()[registered ? "registered" : "catalog"] = {
        {"trials", trials},
        {"total_p50_seconds", Percentile(total, 0.5)},
        {"total_min_seconds", Percentile(total, 0.0)},
        {"total_p90_seconds", Percentile(total, 0.9)},
        {"register_p50_seconds", Percentile(reg, 0.5)},
        {"create_p50_seconds", Percentile(create, 0.5)},
        {"first_frame_p50_seconds", Percentile(frame, 0.5)}};
  }
  report.AddTable(table);
  report.AddNote("Channel connection plus the first RPC (ListModels, not in the table): " +
                 Format(1e3 * connect_seconds) + " ms. The registered spec is the seed pendulum "
                 "under a new name per trial, deleted after it.");
  server->Shutdown(std::chrono::milliseconds(0));
  if (!report.Write(arguments.results, &why)) {
    std::fprintf(stderr, "first_sample: %s\n", why.c_str());
    return 1;
  }
  std::printf("first_sample: wrote %s/first_sample.{json,md}\n", arguments.results.c_str());
  return status_code;
}

}  // namespace
}  // namespace tether::bench

int main(int argc, char** argv) { return tether::bench::Run(argc, argv); }
