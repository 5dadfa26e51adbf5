// Sweep scaling: the throughput (runs/s) of `tether sweep` against 1, 2 and 3 local tether-server
// processes, each with one worker thread and pinned to one CPU (CPU i mod the machine's count),
// so that the claim "sweeps scale with replicas" has a number under it. The sweep is what users
// run: the `tether` binary with --server listing the replicas (gRPC's round_robin), --concurrency
// two calls per replica (one computing while the other's samples travel). Every run is the same
// seed-pendulum Simulate; the report gives wall time, runs/s, the speed-up over one replica and
// how many runs each replica served (the sweep's `replica` column). Writes sweep_scaling.json and
// sweep_scaling.md.
//
// On a machine with fewer CPUs than replicas, replicas share CPUs (and the sweep client takes a
// share too): the speed-up then stops at the CPU count, which the table's CPU column shows.
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/arguments.h"
#include "common/report.h"

namespace tether::bench {
namespace {

// Starts `argv` with stdout and stderr to `log` (none: /dev/null), pinned to `cpu` if ≥ 0;
// killed with this process if it dies. Returns the child's pid, -1 on failure.
pid_t Spawn(const std::vector<std::string>& argv, const std::string& log, int cpu) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(static_cast<std::size_t>(cpu), &set);
    ::sched_setaffinity(0, sizeof(set), &set);
  }
  const std::string out = log.empty() ? "/dev/null" : log;
  if (std::freopen(out.c_str(), "w", stdout) == nullptr || std::freopen(out.c_str(), "a", stderr) == nullptr) {
    ::_exit(126);
  }
  std::vector<char*> pointers;
  std::vector<std::string> copy = argv;
  for (std::string& a : copy) pointers.push_back(a.data());
  pointers.push_back(nullptr);
  ::execv(copy[0].c_str(), pointers.data());
  ::_exit(127);
}

// A tether-server on 127.0.0.1 port 0, one worker thread, pinned to `cpu`; killed at the end.
class Replica {
 public:
  // `log` must be a new file: the address is read from it.
  Replica(const std::string& log, int cpu) : log_(log), cpu_(cpu) {
    // Named by its log file: the replicas share a host name, the sweep's replica column must
    // tell them apart.
    pid_ = Spawn({TETHER_SERVER_BINARY, "--listen", "127.0.0.1:0", "--worker-threads", "1",
                  "--quiet", "--replica-name", log},
                 log_, cpu);
  }
  ~Replica() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  Replica(const Replica&) = delete;
  Replica& operator=(const Replica&) = delete;

  // "127.0.0.1:PORT" from the server's {"event":"serving","port":N} line; "" if none in 10 s.
  std::string WaitForAddress() const {
    for (int i = 0; i < 1000; ++i) {
      std::ifstream in(log_);
      std::string line;
      while (std::getline(in, line)) {
        const auto json = nlohmann::json::parse(line, nullptr, false);
        if (json.is_object() && json.value("event", "") == "serving") {
          return "127.0.0.1:" + std::to_string(json.value("port", 0));
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return {};
  }
  [[nodiscard]] int cpu() const { return cpu_; }

 private:
  std::string log_;
  pid_t pid_ = -1;
  int cpu_;
};

// The runs each replica served: the `replica` column of the sweep's CSV, counted.
std::map<std::string, int> RunsByReplica(const std::string& csv_file, int* rows) {
  std::map<std::string, int> counts;
  std::ifstream in(csv_file);
  std::string line;
  *rows = 0;
  if (!std::getline(in, line)) return counts;
  std::vector<std::string> header;
  std::stringstream fields(line);
  for (std::string field; std::getline(fields, field, ',');) header.push_back(field);
  const auto column = std::find(header.begin(), header.end(), "replica");
  const auto status = std::find(header.begin(), header.end(), "status");
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
    const auto at = [&](std::vector<std::string>::const_iterator name) -> std::string {
      const auto i = static_cast<std::size_t>(name - header.begin());
      return name != header.end() && i < cells.size() ? cells[i] : std::string();
    };
    if (at(status) != "OK") continue;  // only runs that completed count
    ++*rows;
    ++counts[at(column)];
  }
  return counts;
}

struct Level {
  int replicas = 0;
  std::string cpus;  // "0,1,0"
  bool ok = true;
  std::string error;
  double seconds = 0.0;  // best wall time of the repeats
  double runs_per_second = 0.0;
  std::map<std::string, int> runs_by_replica;  // of the best repeat
};

Level RunLevel(const std::string& directory, int replicas, int runs,
               const std::vector<std::string>& run_options, int repeats) {
  Level level;
  level.replicas = replicas;
  const int cpu_count = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::unique_ptr<Replica>> servers;
  std::string targets;
  for (int i = 0; i < replicas; ++i) {
    const std::string log = directory + "/replica-" + std::to_string(replicas) + "-" +
                            std::to_string(i) + ".log";
    servers.push_back(std::make_unique<Replica>(log, i % cpu_count));
    const std::string address = servers.back()->WaitForAddress();
    if (address.empty()) {
      level.ok = false;
      level.error = "replica " + std::to_string(i) + " did not start";
      return level;
    }
    targets += (i == 0 ? "" : ",") + address;
    level.cpus += (i == 0 ? "" : ",") + std::to_string(servers.back()->cpu());
  }
  // The runs' lengths l = 1.5 … 3.5: the same design at every level.
  std::vector<std::string> argv = {TETHER_CLI_BINARY, "--server", targets, "sweep", "pendulum",
                                   "--grid", "l=1.5:3.5:" + std::to_string(runs), "--concurrency",
                                   std::to_string(2 * replicas), "--format", "csv"};
  argv.insert(argv.end(), run_options.begin(), run_options.end());
  for (int repeat = 0; repeat < repeats; ++repeat) {
    const std::string output = directory + "/sweep-" + std::to_string(replicas) + ".csv";
    std::filesystem::remove(output);  // the sweep refuses to overwrite (its --resume)
    std::vector<std::string> command = argv;
    command.insert(command.end(), {"--output", output});
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = Spawn(command, directory + "/sweep.log", -1);
    int status = 0;
    ::waitpid(pid, &status, 0);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    int rows = 0;
    std::map<std::string, int> counts = RunsByReplica(output, &rows);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || rows != runs) {
      level.ok = false;
      level.error = "the sweep failed (" + std::to_string(rows) + " of " + std::to_string(runs) +
                    " runs OK; see " + directory + "/sweep.log)";
      return level;
    }
    if (repeat == 0 || seconds < level.seconds) {
      level.seconds = seconds;
      level.runs_by_replica = std::move(counts);
    }
  }
  level.runs_per_second = static_cast<double>(runs) / level.seconds;
  return level;
}

int Run(int argc, char** argv) {
  Arguments arguments;
  std::string why;
  if (!ParseArguments(argc, argv, TETHER_BENCH_RESULTS_DIR, &arguments, &why)) {
    std::fprintf(stderr, "sweep_scaling: %s\n", why.c_str());
    return 2;
  }
  const std::string directory =
      (std::filesystem::temp_directory_path() / ("tether-sweep-scaling-" + std::to_string(::getpid())))
          .string();
  std::filesystem::create_directories(directory);

  const int runs = arguments.quick ? 4 : 120;
  const std::vector<int> levels = arguments.quick ? std::vector<int>{1} : std::vector<int>{1, 2, 3};
  // Each run: the seed pendulum to t = 2000 s with dop853 at rtol = atol = 1e-10, 201 samples:
  // tens of milliseconds of CPU, so that the computation, not the transport, is measured.
  const std::string t_end = arguments.quick ? "1" : "2000";
  const std::vector<std::string> run_options = {"--t-end", t_end,
                                                "--output-interval", "10", "--method", "dop853",
                                                "--rtol", "1e-10", "--atol", "1e-10"};
  // Other work on the machine takes CPU from the replicas: the 1-minute load average says how
  // much (a load above the CPU count stretches every row's wall time).
  std::string load;
  std::getline(std::ifstream("/proc/loadavg") >> std::ws, load);
  load = load.substr(0, load.find(' '));
  Report report("sweep_scaling", arguments.command);
  Table table("`tether sweep` of " + std::to_string(runs) +
                  " seed-pendulum runs (t_end " + t_end + " s, dop853, rtol 1e-10) against local "
                  "tether-server replicas, one worker thread each, two calls in flight per replica",
              {"replicas", "pinned CPUs", "wall [s]", "runs/s", "vs 1 replica", "runs per replica"});
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  double single = 0.0;
  int code = 0;
  for (int replicas : levels) {
    const Level level = RunLevel(directory, replicas, runs, run_options, arguments.repeats);
    if (replicas == levels.front()) single = level.runs_per_second;
    const double speedup = single > 0.0 ? level.runs_per_second / single : 0.0;
    std::string spread;
    nlohmann::ordered_json by_replica = nlohmann::ordered_json::object();
    for (const auto& [replica, count] : level.runs_by_replica) {
      spread += (spread.empty() ? "" : " / ") + std::to_string(count);
      by_replica[replica] = count;
    }
    table.AddRow({std::to_string(replicas) + (level.ok ? "" : " (failed: " + level.error + ")"),
                  level.cpus, Format(level.seconds), Format(level.runs_per_second), Format(speedup),
                  spread});
    rows.push_back({{"replicas", replicas}, {"pinned_cpus", level.cpus}, {"ok", level.ok},
                    {"error", level.error}, {"runs", runs}, {"wall_seconds", level.seconds},
                    {"runs_per_second", level.runs_per_second}, {"speedup_vs_1", speedup},
                    {"runs_by_replica", by_replica}});
    if (!level.ok) code = 1;
  }
  report.AddTable(table);
  report.AddNote("Best of " + std::to_string(arguments.repeats) +
                 " sweeps per row (wall clock of the `tether sweep` process, start to exit). "
                 "Replica i is pinned to CPU i mod " +
                 std::to_string(std::max(1u, std::thread::hardware_concurrency())) +
                 "; the sweep client is not pinned and shares the CPUs. With fewer CPUs than "
                 "replicas the speed-up is bounded by the CPU count, not by the sweep. Load average "
                 "when the benchmark started: " + (load.empty() ? "unknown" : load) + ".");
  report.json()["rows"] = rows;
  report.json()["runs"] = runs;
  report.json()["load_average_1min"] = load;
  if (code == 0) std::filesystem::remove_all(directory);
  if (!report.Write(arguments.results, &why)) {
    std::fprintf(stderr, "sweep_scaling: %s\n", why.c_str());
    return 1;
  }
  std::printf("sweep_scaling: wrote %s/sweep_scaling.{json,md}\n", arguments.results.c_str());
  return code;
}

}  // namespace
}  // namespace tether::bench

int main(int argc, char** argv) { return tether::bench::Run(argc, argv); }
