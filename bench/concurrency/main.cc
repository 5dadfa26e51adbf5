// Concurrency (comparison 4): N = 1, 10, 100, 1000 concurrent StreamStates calls of
// seed-pendulum sessions on one in-process server over loopback TCP, the same total number of
// samples at every N, and at N = 1000 once more with streams of 100 frames (the fixed total
// leaves each of 1000 streams 10 frames, so that row measures mostly the calls' start-up).
// Reports aggregate samples/s (wall clock, from the moment every client thread is ready to
// call), p50/p99 of the time between frames of one stream, the process RSS (server and clients
// share the process, so it bounds the server's), the wall-clock start-up per stream and the
// RSS per idle session. Writes concurrency.json and concurrency.md.
#include <grpcpp/client_context.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <latch>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/arguments.h"
#include "common/cpu_timer.h"
#include "common/report.h"
#include "tether/server/server.h"
#include "tether/v1/simulation_service.grpc.pb.h"

namespace tether::bench {
namespace {

namespace v1 = tether::v1;

// VmRSS of this process [KiB] from /proc/self/status; 0 if unreadable.
long RssKib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return 0;
}

bool CreateSessions(v1::SimulationService::Stub& stub, int count, const std::string& prefix,
                    std::vector<std::string>* names, std::string* error) {
  for (int i = 0; i < count; ++i) {
    grpc::ClientContext context;
    v1::CreateSessionRequest request;
    request.set_model("pendulum");
    request.set_session_id(prefix + std::to_string(i));
    v1::Session session;
    const grpc::Status status = stub.CreateSession(&context, request, &session);
    if (!status.ok()) {
      *error = "CreateSession: " + status.error_message();
      return false;
    }
    names->push_back(session.name());
  }
  return true;
}

void DeleteSessions(v1::SimulationService::Stub& stub, const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    grpc::ClientContext context;
    v1::DeleteSessionRequest request;
    request.set_name(name);
    google::protobuf::Empty empty;
    stub.DeleteSession(&context, request, &empty);
  }
}

struct Level {
  int streams = 0;
  long samples_per_stream = 0;
  bool ok = true;
  std::string error;
  double samples_per_second = 0.0;
  double gap_p50 = 0.0, gap_p99 = 0.0;  // seconds between frames of one stream
  long rss_kib = 0;                     // after the streams, sessions still alive
};

// Streams `samples_per_stream` samples (output interval 0.01 s) from each of N sessions at once.
Level RunLevel(v1::SimulationService::Stub& stub, int n, long samples_per_stream,
               unsigned frame_samples) {
  Level level;
  level.streams = n;
  level.samples_per_stream = samples_per_stream;
  std::vector<std::string> names;
  if (!CreateSessions(stub, n, "bench-c" + std::to_string(n) + "-", &names, &level.error)) {
    level.ok = false;
    DeleteSessions(stub, names);
    return level;
  }
  std::mutex mutex;
  std::vector<double> gaps;
  std::atomic<long> samples{0};
  std::atomic<int> failures{0};
  std::string failure;
  // The clock starts once every client thread exists and waits to call: creating 1000 threads
  // (and faulting in their stacks) is the harness's cost, not the server's.
  std::latch ready(n);
  std::latch go(1);
  std::vector<std::thread> threads;
  for (const std::string& name : names) {
    threads.emplace_back([&, name] {
      ready.count_down();
      go.wait();
      grpc::ClientContext context;
      v1::StreamStatesRequest request;
      request.set_name(name);
      request.set_t_end(0.01 * static_cast<double>(samples_per_stream));
      request.set_output_interval(0.01);
      request.set_frame_samples(frame_samples);
      auto reader = stub.StreamStates(&context, request);
      v1::StateChunk chunk;
      std::vector<double> mine;
      double last = -1.0;
      long count = 0;
      while (reader->Read(&chunk)) {
        if (!chunk.has_frame()) continue;
        const double now = WallSeconds();
        if (last >= 0.0) mine.push_back(now - last);
        last = now;
        count += chunk.frame().t_size();
      }
      const grpc::Status status = reader->Finish();
      samples += count;
      std::lock_guard<std::mutex> lock(mutex);
      if (!status.ok()) {
        ++failures;
        failure = status.error_message();
      }
      gaps.insert(gaps.end(), mine.begin(), mine.end());
    });
  }
  ready.wait();
  const double start = WallSeconds();
  go.count_down();
  for (std::thread& t : threads) t.join();
  const double elapsed = WallSeconds() - start;
  level.rss_kib = RssKib();
  DeleteSessions(stub, names);
  if (failures > 0) {
    level.ok = false;
    level.error = std::to_string(failures.load()) + " streams failed, e.g.: " + failure;
  }
  level.samples_per_second = static_cast<double>(samples.load()) / elapsed;
  level.gap_p50 = Percentile(gaps, 0.5);
  level.gap_p99 = Percentile(gaps, 0.99);
  return level;
}

int Run(int argc, char** argv) {
  Arguments arguments;
  std::string why;
  if (!ParseArguments(argc, argv, TETHER_BENCH_RESULTS_DIR, &arguments, &why)) {
    std::fprintf(stderr, "concurrency: %s\n", why.c_str());
    return 2;
  }
  server::ServerConfig config;
  config.listen = "127.0.0.1:0";
  config.log_rpcs = false;
  config.max_sessions = 2000;
  config.max_streams = 2000;
  std::unique_ptr<server::Server> server = server::Server::Start(config, &why);
  if (server == nullptr) {
    std::fprintf(stderr, "concurrency: the server did not start: %s\n", why.c_str());
    return 1;
  }
  auto channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(server->port()),
                                     grpc::InsecureChannelCredentials());
  auto stub = v1::SimulationService::NewStub(channel);
  Report report("concurrency", arguments.command);

  // Idle sessions first, on a heap no stream has grown yet (freed stream memory would be
  // reused and hide the sessions' own): RSS growth over sessions created, never streamed.
  bool idle_failed = false;
  const int idle = arguments.quick ? 10 : 1000;
  std::vector<std::string> names;
  const long before = RssKib();
  if (!CreateSessions(*stub, idle, "bench-idle-", &names, &why)) {
    report.AddNote("idle sessions: " + why);
    idle_failed = true;
  }
  const long after = RssKib();
  DeleteSessions(*stub, names);
  const double per_idle = static_cast<double>(after - before) / static_cast<double>(idle);
  const std::vector<int> levels = arguments.quick ? std::vector<int>{1, 4}
                                                  : std::vector<int>{1, 10, 100, 1000};
  const long total_samples = arguments.quick ? 2000 : 200000;
  const unsigned frame_samples = 20;
  // Streams this long run mostly in their steady state: a call's start-up (its client thread's
  // first wake-up, the call set-up on both sides, the stream's admission) is spread over 100
  // frames instead of the 10 the fixed total leaves each of 1000 streams.
  const long long_stream = (arguments.quick ? 5 : 100) * static_cast<long>(frame_samples);
  Table table("Concurrent StreamStates of the seed pendulum on one server (" +
                  std::to_string(total_samples) + " samples in total per row, then " +
                  std::to_string(long_stream) + " per stream at " +
                  std::to_string(levels.back()) + " streams; " + std::to_string(frame_samples) +
                  " samples per frame)",
              {"streams", "samples per stream", "aggregate samples/s", "vs 1 stream",
               "frame gap p50 [ms]", "frame gap p99 [ms]", "process RSS [MiB]"});
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  double single = 0.0;
  int code = 0;
  std::vector<Level> measured;
  for (int n : levels) measured.push_back(RunLevel(*stub, n, total_samples / n, frame_samples));
  if (measured.back().samples_per_stream < long_stream) {
    measured.push_back(RunLevel(*stub, levels.back(), long_stream, frame_samples));
  }
  for (const Level& level : measured) {
    if (&level == &measured.front()) single = level.samples_per_second;
    const double relative = single > 0.0 ? level.samples_per_second / single : 0.0;
    const std::string failed = level.ok ? "" : " (failed: " + level.error + ")";
    table.AddRow({std::to_string(level.streams) + failed,
                  std::to_string(level.samples_per_stream), Format(level.samples_per_second),
                  Format(relative), Format(1e3 * level.gap_p50), Format(1e3 * level.gap_p99),
                  Format(static_cast<double>(level.rss_kib) / 1024.0)});
    rows.push_back({{"streams", level.streams}, {"samples_per_stream", level.samples_per_stream},
                    {"ok", level.ok}, {"error", level.error},
                    {"samples_per_second", level.samples_per_second}, {"relative_to_1", relative},
                    {"gap_p50_seconds", level.gap_p50}, {"gap_p99_seconds", level.gap_p99},
                    {"rss_kib", level.rss_kib}});
    if (!level.ok || idle_failed) code = 1;
  }
  report.AddTable(table);
  // The short streams' extra wall time over the long ones' steady rate, per stream.
  const Level& short_row = measured[levels.size() - 1];
  const Level& long_row = measured.back();
  const double startup =
      long_row.samples_per_second > 0.0
          ? (static_cast<double>(short_row.streams * short_row.samples_per_stream) /
                 short_row.samples_per_second -
             static_cast<double>(short_row.streams * short_row.samples_per_stream) /
                 long_row.samples_per_second) /
                static_cast<double>(short_row.streams)
          : 0.0;
  const double steady = single > 0.0 ? long_row.samples_per_second / single : 0.0;
  std::string note = "Aggregate at " + std::to_string(long_row.streams) + " streams of " +
                     std::to_string(long_row.samples_per_stream) + " samples vs 1 stream: " +
                     Format(steady) + " (target ≥ 0.9).";
  if (&short_row != &long_row) {
    note += " With the fixed total each of the " + std::to_string(short_row.streams) +
            " streams has " + std::to_string(short_row.samples_per_stream) + " samples (" +
            std::to_string(short_row.samples_per_stream / static_cast<long>(frame_samples)) +
            " frames) and that row reads " +
            Format(single > 0.0 ? short_row.samples_per_second / single : 0.0) +
            ": it adds every call's start-up, " + Format(1e6 * startup) +
            " µs of wall clock per stream (the client thread's first wake-up, the call set-up "
            "on both sides, the stream's admission), to that streaming.";
  }
  note += " RSS per idle session (created, never streamed; " + std::to_string(idle) +
          " sessions): " + Format(per_idle) + " KiB (target ≤ 64 KiB). Clients and server share "
          "one process and the 2 cores; one client thread per stream, all created before the "
          "clock starts.";
  report.AddNote(note);
  report.json()["steady_state_relative_to_1"] = steady;
  report.json()["startup_wall_seconds_per_stream"] = startup;
  report.json()["rows"] = rows;
  report.json()["idle_sessions"] = idle;
  report.json()["rss_per_idle_session_kib"] = per_idle;
  server->Shutdown(std::chrono::milliseconds(0));
  if (!report.Write(arguments.results, &why)) {
    std::fprintf(stderr, "concurrency: %s\n", why.c_str());
    return 1;
  }
  std::printf("concurrency: wrote %s/concurrency.{json,md}\n", arguments.results.c_str());
  return code;
}

}  // namespace
}  // namespace tether::bench

int main(int argc, char** argv) { return tether::bench::Run(argc, argv); }
