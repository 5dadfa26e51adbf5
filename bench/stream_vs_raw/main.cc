// Streaming against raw gRPC (comparison 3): samples per second delivered over
// loopback TCP to a client in this process, for the seed pendulum with all columns, from
//   tether — an in-process tether server (StreamStates of a fresh "pendulum" session with the
//            default options: adaptive dp5, each sample interpolated and projected), and the
//            same with the hand server's numerics (fixed-step rk4, one step per sample),
//   raw    — a bare callback server (raw_server.h) replaying the very messages tether sent for
//            the same frame size: same type, size and count, values pre-filled,
//   hand   — a bare callback server sending the same messages with every frame computed anew
//            by the hand-written RK4 + projection step (raw_server.h): what the fastest honest
//            simulating server streams here,
// at several frame sizes, each the best of --repeats runs, the four interleaved so that all
// see the same machine load. All are read by the same synchronous client code.
// Writes stream_vs_raw.json and stream_vs_raw.md.
#include <grpcpp/client_context.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/arguments.h"
#include "common/cpu_timer.h"
#include "common/report.h"
#include "stream_vs_raw/raw_server.h"
#include "tether/server/server.h"
#include "tether/v1/simulation_service.grpc.pb.h"

namespace tether::bench {
namespace {

namespace v1 = tether::v1;

constexpr double kOutputInterval = 0.01;  // [s] of simulated time between samples
constexpr int kRawPerTether = 3;         // raw and hand streams timed per tether stream
constexpr int kColumns = RawStreamServer::kHandColumns;  // the seed pendulum's columns

// One stream as the client saw it.
struct StreamRun {
  bool ok = false;
  std::string error;
  long samples = 0;
  double seconds = 0.0;   // wall clock, from the call to Finish
  std::size_t columns = 0;
  double simulation_cpu = 0.0;  // the summary's statistics.cpu_seconds (tether only)
  std::vector<v1::StateChunk> chunks;  // every message, when recording
};

// Reads a whole StreamStates call; keeps the messages if `record`.
StreamRun ReadStream(v1::SimulationService::Stub& stub, const v1::StreamStatesRequest& request,
                     bool record) {
  StreamRun run;
  grpc::ClientContext context;
  const double start = WallSeconds();
  auto reader = stub.StreamStates(&context, request);
  v1::StateChunk chunk;
  while (reader->Read(&chunk)) {
    if (chunk.has_header()) run.columns = static_cast<std::size_t>(chunk.header().columns_size());
    if (chunk.has_frame()) run.samples += chunk.frame().t_size();
    if (chunk.has_summary()) run.simulation_cpu = chunk.summary().statistics().cpu_seconds();
    if (record) run.chunks.push_back(chunk);
  }
  const grpc::Status status = reader->Finish();
  run.seconds = WallSeconds() - start;
  run.ok = status.ok();
  if (!run.ok) run.error = "StreamStates: " + status.error_message();
  return run;
}

v1::StreamStatesRequest Request(const std::string& session, long samples, unsigned frame_samples) {
  v1::StreamStatesRequest request;
  request.set_name(session);
  request.set_t_end(kOutputInterval * static_cast<double>(samples));
  request.set_output_interval(kOutputInterval);
  request.set_frame_samples(frame_samples);
  return request;
}

// The session's stepper: the default (adaptive dp5, each sample interpolated and projected), or
// the hand server's (classical RK4, one step of kOutputInterval per sample).
enum class Numerics { kDefault, kHand };

// Streams `samples` output intervals (samples + 1 samples) of a fresh seed-pendulum session from tether.
StreamRun RunTether(v1::SimulationService::Stub& stub, long samples, unsigned frame_samples,
                    bool record, Numerics numerics = Numerics::kDefault) {
  grpc::ClientContext create_context;
  v1::CreateSessionRequest create;
  create.set_model("pendulum");
  if (numerics == Numerics::kHand) {
    create.mutable_options()->set_method("rk4");
    create.mutable_options()->set_step(kOutputInterval);
  }
  v1::Session session;
  const grpc::Status created = stub.CreateSession(&create_context, create, &session);
  if (!created.ok()) {
    StreamRun failed;
    failed.error = "CreateSession: " + created.error_message();
    return failed;
  }
  StreamRun run = ReadStream(stub, Request(session.name(), samples, frame_samples), record);
  grpc::ClientContext delete_context;
  v1::DeleteSessionRequest remove;
  remove.set_name(session.name());
  google::protobuf::Empty empty;
  stub.DeleteSession(&delete_context, remove, &empty);
  return run;
}

// The fastest of kRawPerTether streams of a bare server. A bare stream is several times shorter
// than tether's, so one burst of load from other processes spoils a larger share of it: it gets
// kRawPerTether tries per tether run.
StreamRun FastestOf(v1::SimulationService::Stub& stub, const v1::StreamStatesRequest& request) {
  StreamRun best = ReadStream(stub, request, /*record=*/false);
  for (int k = 1; k < kRawPerTether && best.ok; ++k) {
    StreamRun again = ReadStream(stub, request, /*record=*/false);
    if (!again.ok || again.seconds < best.seconds) best = std::move(again);
  }
  return best;
}

// Serialized bytes of the first frame message (a full frame).
std::size_t FrameBytes(const std::vector<v1::StateChunk>& chunks) {
  for (const v1::StateChunk& chunk : chunks) {
    if (chunk.has_frame()) return chunk.ByteSizeLong();
  }
  return 0;
}

struct Row {
  unsigned frame_samples = 0;
  std::size_t frame_bytes = 0;
  std::size_t columns = 0;
  bool ok = true;
  std::string error;
  double tether = 0.0;  // best samples/s
  double tether_rk4 = 0.0;  // with the hand server's numerics
  double raw = 0.0;
  double hand = 0.0;
  double simulation_cpu = 0.0;  // least simulation CPU of one tether stream [s]
};

void Fail(Row* row, const StreamRun& run, const char* who) {
  if (run.ok || !row->ok) return;
  row->ok = false;
  row->error = std::string(who) + ": " + run.error;
}

// The first kComparedSamples samples of the hand server against tether's: the same columns in
// the same order, and the same motion to well within what that many RK4 steps of 0.01 s and
// tether's tolerances leave apart. Empty if they agree, else what differs.
std::string CompareFirstFrames(const std::vector<v1::StateChunk>& tether,
                               const std::vector<v1::StateChunk>& hand) {
  const auto first = [](const std::vector<v1::StateChunk>& chunks) -> const v1::Frame* {
    for (const v1::StateChunk& chunk : chunks) {
      if (chunk.has_frame()) return &chunk.frame();
    }
    return nullptr;
  };
  const v1::Frame* a = first(tether);
  const v1::Frame* b = first(hand);
  if (a == nullptr || b == nullptr || a->values_size() != b->values_size()) {
    return "the hand server's first frame does not match tether's in size";
  }
  constexpr int kComparedSamples = 16;
  constexpr double kAgreement = 1e-6;  // relative to 1 + |value|
  for (int i = 0; i < std::min(a->values_size(), kComparedSamples * kColumns); ++i) {
    if (std::abs(a->values(i) - b->values(i)) > kAgreement * (1.0 + std::abs(a->values(i)))) {
      return "the hand server's value " + std::to_string(i) + " of its first frame is " +
             std::to_string(b->values(i)) + ", tether's " + std::to_string(a->values(i));
    }
  }
  return "";
}

// The best rate of `repeats` tether, raw and hand runs, interleaved, after one recording run of
// tether whose messages the raw server then replays and the hand server reproduces.
Row Measure(v1::SimulationService::Stub& tether, v1::SimulationService::Stub& raw,
            v1::SimulationService::Stub& hand, RawStreamServer& raw_server,
            RawStreamServer& hand_server, long samples, unsigned frame_samples, int repeats) {
  Row row;
  row.frame_samples = frame_samples;
  StreamRun recorded = RunTether(tether, samples, frame_samples, /*record=*/true);
  Fail(&row, recorded, "tether");
  if (!row.ok) return row;
  row.columns = recorded.columns;
  row.frame_bytes = FrameBytes(recorded.chunks);
  if (row.columns != kColumns) {
    row.ok = false;
    row.error = "tether sent " + std::to_string(row.columns) + " columns; the hand server writes " +
                std::to_string(kColumns);
    return row;
  }
  hand_server.SetChunks(frame_samples, recorded.chunks);
  raw_server.SetChunks(frame_samples, recorded.chunks);
  const v1::StreamStatesRequest raw_request = Request("sessions/raw", samples, frame_samples);
  const StreamRun hand_recorded = ReadStream(hand, raw_request, /*record=*/true);
  Fail(&row, hand_recorded, "hand");
  if (!row.ok) return row;
  if (std::string why = CompareFirstFrames(recorded.chunks, hand_recorded.chunks); !why.empty()) {
    row.ok = false;
    row.error = why;
    return row;
  }
  for (int i = 0; i < repeats && row.ok; ++i) {
    const StreamRun t = RunTether(tether, samples, frame_samples, /*record=*/false);
    const StreamRun t4 =
        RunTether(tether, samples, frame_samples, /*record=*/false, Numerics::kHand);
    const StreamRun r = FastestOf(raw, raw_request);
    const StreamRun s = FastestOf(hand, raw_request);
    Fail(&row, t, "tether");
    Fail(&row, t4, "tether rk4");
    Fail(&row, r, "raw");
    Fail(&row, s, "hand");
    // A fresh session's stream starts with the initial state: one sample more than intervals.
    const long expected = samples + 1;
    if (row.ok && (t.samples != expected || t4.samples != expected || r.samples != expected ||
                   s.samples != expected)) {
      row.ok = false;
      row.error = "sample counts tether " + std::to_string(t.samples) + ", tether rk4 " +
                  std::to_string(t4.samples) + ", raw " +
                  std::to_string(r.samples) + ", hand " + std::to_string(s.samples) +
                  ", expected " + std::to_string(expected);
    }
    row.tether = std::max(row.tether, static_cast<double>(t.samples) / t.seconds);
    row.tether_rk4 = std::max(row.tether_rk4, static_cast<double>(t4.samples) / t4.seconds);
    row.raw = std::max(row.raw, static_cast<double>(r.samples) / r.seconds);
    row.hand = std::max(row.hand, static_cast<double>(s.samples) / s.seconds);
    if (i == 0 || t.simulation_cpu < row.simulation_cpu) row.simulation_cpu = t.simulation_cpu;
  }
  return row;
}

std::unique_ptr<v1::SimulationService::Stub> Connect(int port) {
  return v1::SimulationService::NewStub(grpc::CreateChannel(
      "127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
}

void AddResults(const std::vector<Row>& rows, long samples, int repeats, Report* report) {
  Table table("StreamStates of the seed pendulum (all columns) over loopback: tether vs a bare "
              "gRPC server replaying the same messages (raw) and one computing them by hand "
              "(hand) (" + std::to_string(samples) +
                  " samples per stream, tether best of " + std::to_string(repeats) +
                  ", raw and hand best of " + std::to_string(kRawPerTether * repeats) + ")",
              {"samples/frame", "frame [KiB]", "tether samples/s", "raw samples/s",
               "hand samples/s", "tether / raw", "hand / raw", "tether / hand",
               "tether rk4 samples/s", "tether rk4 / hand",
               "tether simulation CPU [µs/sample]", "tether / simulation bound"});
  nlohmann::ordered_json json_rows = nlohmann::ordered_json::array();
  const Row* best = nullptr;
  for (const Row& row : rows) {
    const double ratio = row.raw > 0.0 ? row.tether / row.raw : 0.0;
    const double hand_of_raw = row.raw > 0.0 ? row.hand / row.raw : 0.0;
    const double of_hand = row.hand > 0.0 ? row.tether / row.hand : 0.0;
    const double rk4_of_hand = row.hand > 0.0 ? row.tether_rk4 / row.hand : 0.0;
    const double cpu_per_sample = row.simulation_cpu / static_cast<double>(samples + 1);
    // The rate one worker could stream if framing and writing cost nothing: 1 / CPU per sample.
    const double of_bound = row.tether * cpu_per_sample;
    table.AddRow({std::to_string(row.frame_samples) + (row.ok ? "" : " (failed: " + row.error + ")"),
                  Format(static_cast<double>(row.frame_bytes) / 1024.0), Format(row.tether),
                  Format(row.raw), Format(row.hand), Format(ratio), Format(hand_of_raw),
                  Format(of_hand), Format(row.tether_rk4), Format(rk4_of_hand),
                  Format(1e6 * cpu_per_sample),
                  Format(of_bound)});
    json_rows.push_back({{"frame_samples", row.frame_samples}, {"frame_bytes", row.frame_bytes},
                         {"columns", row.columns}, {"ok", row.ok}, {"error", row.error},
                         {"tether_samples_per_second", row.tether},
                         {"raw_samples_per_second", row.raw},
                         {"hand_samples_per_second", row.hand}, {"ratio", ratio},
                         {"hand_over_raw", hand_of_raw}, {"tether_over_hand", of_hand},
                         {"tether_rk4_samples_per_second", row.tether_rk4},
                         {"tether_rk4_over_hand", rk4_of_hand},
                         {"simulation_cpu_seconds", row.simulation_cpu},
                         {"fraction_of_simulation_bound", of_bound}});
    if (row.ok && (best == nullptr || row.tether > best->tether)) best = &row;
  }
  report->AddTable(table);
  if (best != nullptr) {
    report->AddNote("tether's rate is highest at " + std::to_string(best->frame_samples) +
                    " samples per frame: " + Format(best->tether) + " samples/s, " +
                    Format(best->tether / best->raw) + " of raw (target ≥ 0.8).");
    report->json()["best_frame_samples"] = best->frame_samples;
  }
  report->AddNote("Client, tether server and the bare servers share one process and the "
                  "machine's cores; the client is one synchronous reader thread. The raw server "
                  "replays the header, frames and summary tether sent in a recording run, one "
                  "write in flight, so the gap is tether's simulation, framing and bookkeeping. "
                  "The hand server sends the same messages but computes every frame with the "
                  "hand-written RK4 + projection step, one step per sample, on gRPC's callback "
                  "thread while the previous frame is written: hand / raw is what simulating at "
                  "all costs, a bound for any simulating server here; where it is below 0.8, "
                  "tether / raw ≥ 0.8 is out of reach. tether rk4 is a session with the hand "
                  "server's numerics (method rk4, step = the output interval: every sample a "
                  "step's end, no interpolation); tether rk4 / hand is tether's own cost of "
                  "serving the same numbers. Simulation CPU (of the default session) is the "
                  "server's own statistics.cpu_seconds (thread CPU spent simulating): 1 / it "
                  "bounds tether's rate on one worker whatever the transport; tether / simulation "
                  "bound is tether's rate times it, the share of that bound the stream reaches "
                  "(1 = framing and writes fully hidden behind the simulation).");
  report->json()["samples_per_stream"] = samples;
  report->json()["repeats"] = repeats;
  report->json()["rows"] = json_rows;
}

int Run(int argc, char** argv) {
  Arguments arguments;
  std::string why;
  if (!ParseArguments(argc, argv, TETHER_BENCH_RESULTS_DIR, &arguments, &why)) {
    std::fprintf(stderr, "stream_vs_raw: %s\n", why.c_str());
    return 2;
  }
  server::ServerConfig config;
  config.listen = "127.0.0.1:0";
  config.log_rpcs = false;
  std::unique_ptr<server::Server> server = server::Server::Start(config, &why);
  if (server == nullptr) {
    std::fprintf(stderr, "stream_vs_raw: the tether server did not start: %s\n", why.c_str());
    return 1;
  }
  std::unique_ptr<RawStreamServer> raw_server =
      RawStreamServer::Start(RawStreamServer::Mode::kReplay, &why);
  std::unique_ptr<RawStreamServer> hand_server =
      raw_server == nullptr ? nullptr
                            : RawStreamServer::Start(RawStreamServer::Mode::kHandSimulated, &why);
  if (hand_server == nullptr) {
    std::fprintf(stderr, "stream_vs_raw: %s\n", why.c_str());
    return 1;
  }
  auto tether_stub = Connect(server->port());
  auto raw_stub = Connect(raw_server->port());
  auto hand_stub = Connect(hand_server->port());
  const std::vector<unsigned> frames = arguments.quick ? std::vector<unsigned>{16, 256}
                                                       : std::vector<unsigned>{16, 64, 256, 1024, 4096};
  const long samples = arguments.quick ? 2048 : 131072;  // output intervals per stream
  std::vector<Row> rows;
  int code = 0;
  for (unsigned frame_samples : frames) {
    rows.push_back(Measure(*tether_stub, *raw_stub, *hand_stub, *raw_server, *hand_server,
                           samples, frame_samples, arguments.repeats));
    if (!rows.back().ok) code = 1;
  }
  Report report("stream_vs_raw", arguments.command);
  AddResults(rows, samples, arguments.repeats, &report);
  server->Shutdown(std::chrono::milliseconds(0));
  if (!report.Write(arguments.results, &why)) {
    std::fprintf(stderr, "stream_vs_raw: %s\n", why.c_str());
    return 1;
  }
  std::printf("stream_vs_raw: wrote %s/stream_vs_raw.{json,md}\n", arguments.results.c_str());
  return code;
}

}  // namespace
}  // namespace tether::bench

int main(int argc, char** argv) { return tether::bench::Run(argc, argv); }
