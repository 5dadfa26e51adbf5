// HTTP libraries for server-sent events (the dashboard's stream): for each library built
// (sse_server.h), a server in a child process streams frame-sized events on 127.0.0.1 and this
// process opens N = 1, 50, 200 concurrent SSE connections on one epoll thread, reads a fixed
// number of events on each and keeps every stream open until all have theirs (so that the N
// streams are held at once, not one after another). Reported per library and N: whether all
// N streams held, aggregate events/s, the server's threads, its RSS growth per stream and its
// CPU seconds. Then one client that never reads: the server's RSS must stay flat while it
// keeps producing (back-pressure), and the server must still serve another stream.
// Writes http_sse.json and http_sse.md; fails if the chosen library (README.md) does not hold
// every stream or grows with the client that never reads.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "common/arguments.h"
#include "common/cpu_timer.h"
#include "common/report.h"
#include "http_sse/sse_server.h"

namespace tether::bench {
namespace {

// A server in a child process, so that its threads, RSS and CPU are its own.
struct ServerProcess {
  pid_t pid = -1;
  int port = 0;
};

bool StartServer(const Library& library, const ServerSetup& base, ServerProcess* out,
                 std::string* why) {
  int fds[2];
  if (pipe(fds) != 0) {
    *why = "pipe failed";
    return false;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    *why = "fork failed";
    return false;
  }
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the benchmark
    close(fds[0]);
    ServerSetup setup = base;
    setup.report_fd = fds[1];
    std::string reason;
    library.serve(setup, &reason);
    std::fprintf(stderr, "http_sse: %s\n", reason.c_str());
    _exit(1);
  }
  close(fds[1]);
  int port = 0;
  const ssize_t got = read(fds[0], &port, sizeof port);
  close(fds[0]);
  if (got != sizeof port || port <= 0) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    *why = std::string(library.name) + ": the server did not start";
    return false;
  }
  out->pid = pid;
  out->port = port;
  return true;
}

void StopServer(ServerProcess* server) {
  if (server->pid > 0) {
    kill(server->pid, SIGKILL);
    waitpid(server->pid, nullptr, 0);
    server->pid = -1;
  }
}

// A "Key:   value kB" line of /proc/<pid>/status; -1 if absent.
long StatusField(pid_t pid, const std::string& key) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(key + ":", 0) == 0) return std::stol(line.substr(key.size() + 1));
  }
  return -1;
}

// utime + stime of a process [s] from /proc/<pid>/stat (fields 14 and 15).
double ProcessCpu(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t paren = text.rfind(')');  // the command name may hold spaces
  if (paren == std::string::npos) return 0.0;
  std::vector<std::string> fields;
  size_t at = paren + 2;
  while (at < text.size() && fields.size() < 13) {
    const size_t end = text.find(' ', at);
    fields.push_back(text.substr(at, end - at));
    if (end == std::string::npos) break;
    at = end + 1;
  }
  if (fields.size() < 13) return 0.0;  // fields[11], [12] are stat's 14th and 15th
  return static_cast<double>(std::stol(fields[11]) + std::stol(fields[12])) /
         static_cast<double>(sysconf(_SC_CLK_TCK));
}

// Opens a TCP connection to 127.0.0.1:port and sends `request` (empty: the GET of the
// libraries' endless stream); -1 on failure.
int OpenStream(int port, const std::string& custom = {}) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  timeval timeout{5, 0};  // bounds connect and send on a server that stopped accepting
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  static const std::string endless =
      "GET /v1/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
      "Cache-Control: no-cache\r\n\r\n";
  const std::string& request = custom.empty() ? endless : custom;
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      send(fd, request.data(), request.size(), MSG_NOSIGNAL) !=
          static_cast<ssize_t>(request.size())) {
    close(fd);
    return -1;
  }
  return fd;
}

// The client side of one stream: the response header, then HTTP/1.1 chunked decoding, then
// counting events (an event ends with an empty line, "\n\n", in the decoded body).
class StreamReader {
 public:
  enum class State { kHeader, kChunkSize, kChunkData, kChunkEnd, kBody, kFailed };

  // Feeds received bytes; returns false once the stream is unusable (see error()).
  bool Feed(const char* data, size_t size) {
    size_t i = 0;
    while (i < size && state_ != State::kFailed) {
      switch (state_) {
        case State::kHeader: {
          header_.append(data + i, size - i);
          i = size;
          const size_t end = header_.find("\r\n\r\n");
          if (end == std::string::npos) {
            if (header_.size() > 16384) Fail("response header over 16 KiB");
            break;
          }
          std::string head = header_.substr(0, end);
          const std::string rest = header_.substr(end + 4);
          if (head.rfind("HTTP/1.1 200", 0) != 0) {
            Fail("status line '" + head.substr(0, head.find('\r')) + "'");
            break;
          }
          std::transform(head.begin(), head.end(), head.begin(),
                         [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
          if (head.find("text/event-stream") == std::string::npos) {
            Fail("no Content-Type: text/event-stream");
            break;
          }
          state_ = head.find("transfer-encoding: chunked") != std::string::npos
                       ? State::kChunkSize
                       : State::kBody;
          header_.clear();
          if (!rest.empty() && !Feed(rest.data(), rest.size())) return false;
          break;
        }
        case State::kChunkSize: {
          const char c = data[i++];
          if (c == '\n') {
            const unsigned long long bytes = std::strtoull(size_line_.c_str(), nullptr, 16);
            size_line_.clear();
            if (bytes == 0) {
              Fail("the server ended the stream");
            } else {
              remaining_ = bytes;
              state_ = State::kChunkData;
            }
          } else if (c != '\r' && size_line_.size() < 64) {
            size_line_ += c;
          }
          break;
        }
        case State::kChunkData: {
          const size_t take = static_cast<size_t>(
              std::min<unsigned long long>(remaining_, size - i));
          CountEvents(data + i, take);
          i += take;
          remaining_ -= take;
          if (remaining_ == 0) state_ = State::kChunkEnd;
          break;
        }
        case State::kChunkEnd:  // the CRLF after a chunk's data
          if (data[i++] == '\n') state_ = State::kChunkSize;
          break;
        case State::kBody:
          CountEvents(data + i, size - i);
          i = size;
          break;
        case State::kFailed:
          break;
      }
    }
    return state_ != State::kFailed;
  }

  void Fail(const std::string& error) {
    if (state_ == State::kFailed) return;
    error_ = error;
    state_ = State::kFailed;
  }
  [[nodiscard]] long events() const { return events_; }
  [[nodiscard]] const std::string& error() const { return error_; }

 private:
  // Counts "\n\n" pairs, including one split across two calls.
  void CountEvents(const char* data, size_t size) {
    if (size == 0) return;
    const char* end = data + size;
    for (const char* p = data;
         (p = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)))) !=
         nullptr;
         ++p) {
      if (p == data ? last_was_newline_ : p[-1] == '\n') ++events_;
    }
    last_was_newline_ = end[-1] == '\n';
  }

  State state_ = State::kHeader;
  std::string header_;
  std::string size_line_;
  unsigned long long remaining_ = 0;
  bool last_was_newline_ = false;
  long events_ = 0;
  std::string error_;
};

struct Level {
  int streams = 0;
  int held = 0;                 // streams that received all their events while all were open
  std::string first_error;      // of the streams that did not hold
  double wall_seconds = 0.0;    // from the first connect to the last stream's last event
  double events_per_second = 0.0;
  long server_threads = 0;      // the most seen during the level
  long rss_before_kib = 0;      // the server's RSS after start, before any stream
  long rss_peak_kib = 0;        // the most seen while the streams were open
  double rss_per_stream_kib = 0.0;
  double server_cpu_seconds = 0.0;
  double client_cpu_seconds = 0.0;
  double first_event_p99_seconds = 0.0;  // from connect to a stream's first event
};

// Opens `count` streams at once and reads `events` events on each; a stream that has its
// events stops being read (the server stalls on it) but stays open until all have theirs or
// `deadline_seconds` passed.
Level RunLevel(const ServerProcess& server, int count, long events, double deadline_seconds,
               const std::string& request = {}) {
  Level level;
  level.streams = count;
  level.rss_before_kib = StatusField(server.pid, "VmRSS");
  level.rss_peak_kib = level.rss_before_kib;
  const double cpu_server0 = ProcessCpu(server.pid);
  const double cpu_client0 = ProcessCpuSeconds();
  const double start = WallSeconds();
  const int epoll = epoll_create1(0);
  const auto streams = static_cast<size_t>(count);
  std::vector<int> fds(streams, -1);
  std::vector<StreamReader> readers(streams);
  std::vector<double> first_event(streams, -1.0);
  int active = 0;
  for (size_t i = 0; i < streams; ++i) {
    fds[i] = OpenStream(server.port, request);
    if (fds[i] < 0) {
      readers[i].Fail("connect or send failed");
      continue;
    }
    epoll_event interest{};
    interest.events = EPOLLIN;
    interest.data.u32 = static_cast<uint32_t>(i);
    epoll_ctl(epoll, EPOLL_CTL_ADD, fds[i], &interest);
    ++active;
  }
  std::vector<char> buffer(256 * 1024);
  std::vector<epoll_event> ready(256);
  double last_sample = 0.0;
  double finished = start;
  while (active > 0 && WallSeconds() - start < deadline_seconds) {
    const int n = epoll_wait(epoll, ready.data(), static_cast<int>(ready.size()), 50);
    for (size_t k = 0; k < static_cast<size_t>(std::max(n, 0)); ++k) {
      const size_t i = ready[k].data.u32;
      const ssize_t got = recv(fds[i], buffer.data(), buffer.size(), 0);
      bool done = false;
      if (got <= 0) {
        readers[i].Fail(got == 0 ? "the server closed the connection"
                                  : std::string("recv: ") + std::strerror(errno));
        done = true;
      } else {
        readers[i].Feed(buffer.data(), static_cast<size_t>(got));
        if (first_event[i] < 0.0 && readers[i].events() > 0) first_event[i] = WallSeconds() - start;
        done = !readers[i].error().empty() || readers[i].events() >= events;
      }
      if (done) {
        epoll_ctl(epoll, EPOLL_CTL_DEL, fds[i], nullptr);
        --active;
        finished = WallSeconds();
      }
    }
    if (WallSeconds() - last_sample > 0.05) {
      last_sample = WallSeconds();
      level.rss_peak_kib = std::max(level.rss_peak_kib, StatusField(server.pid, "VmRSS"));
      level.server_threads = std::max(level.server_threads, StatusField(server.pid, "Threads"));
    }
  }
  // Every stream is still open here: the peak with all N held.
  level.rss_peak_kib = std::max(level.rss_peak_kib, StatusField(server.pid, "VmRSS"));
  level.server_threads = std::max(level.server_threads, StatusField(server.pid, "Threads"));
  level.server_cpu_seconds = ProcessCpu(server.pid) - cpu_server0;
  level.client_cpu_seconds = ProcessCpuSeconds() - cpu_client0;
  long total = 0;
  std::vector<double> firsts;
  for (size_t i = 0; i < streams; ++i) {
    total += std::min(readers[i].events(), events);
    if (readers[i].error().empty() && readers[i].events() >= events) {
      ++level.held;
    } else if (level.first_error.empty()) {
      level.first_error = readers[i].error().empty()
                              ? "only " + std::to_string(readers[i].events()) + " events after " +
                                    Format(deadline_seconds) + " s"
                              : readers[i].error();
    }
    if (first_event[i] >= 0.0) firsts.push_back(first_event[i]);
    if (fds[i] >= 0) close(fds[i]);
  }
  close(epoll);
  level.wall_seconds = finished - start;
  level.events_per_second =
      level.wall_seconds > 0.0 ? static_cast<double>(total) / level.wall_seconds : 0.0;
  level.rss_per_stream_kib =
      static_cast<double>(level.rss_peak_kib - level.rss_before_kib) / static_cast<double>(count);
  level.first_event_p99_seconds = Percentile(firsts, 0.99);
  return level;
}

struct SlowClient {
  long rss_start_kib = 0;  // once the slow client's socket buffers are full
  long rss_end_kib = 0;    // `seconds` later
  double server_cpu_seconds = 0.0;
  bool other_stream_held = false;
  std::string error;
};

// One client sends its request and never reads for `seconds`; meanwhile a second client reads
// `events` events. A library that buffers instead of stalling grows by an event per write.
SlowClient RunSlowClient(const ServerProcess& server, double seconds, long events,
                         const std::string& request = {}) {
  SlowClient result;
  const int slow = OpenStream(server.port, request);
  if (slow < 0) {
    result.error = "the slow client could not connect";
    return result;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // kernel buffers fill first
  result.rss_start_kib = StatusField(server.pid, "VmRSS");
  const double cpu0 = ProcessCpu(server.pid);
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  const Level other = RunLevel(server, 1, events, 10.0, request);
  result.rss_end_kib = StatusField(server.pid, "VmRSS");
  result.server_cpu_seconds = ProcessCpu(server.pid) - cpu0;
  result.other_stream_held = other.held == 1;
  if (!result.other_stream_held) result.error = other.first_error;
  close(slow);
  return result;
}

std::string Mib(long kib) { return Format(static_cast<double>(kib) / 1024.0); }

int Run(int argc, char** argv) {
  Arguments arguments;
  std::string why;
  if (!ParseArguments(argc, argv, TETHER_BENCH_RESULTS_DIR, &arguments, &why)) {
    std::fprintf(stderr, "http_sse: %s\n", why.c_str());
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  rlimit files{};
  getrlimit(RLIMIT_NOFILE, &files);
  files.rlim_cur = files.rlim_max;  // 2 × 200 sockets and the servers' own descriptors
  setrlimit(RLIMIT_NOFILE, &files);

  const std::vector<int> levels =
      arguments.quick ? std::vector<int>{1, 20} : std::vector<int>{1, 50, 200};
  const long events = arguments.quick ? 3 : 200;
  const int samples_per_frame = 256;
  const double deadline = arguments.quick ? 10.0 : 60.0;
  const double slow_seconds = arguments.quick ? 0.3 : 3.0;
  ServerSetup setup;
  setup.frame = FrameJson(samples_per_frame);
  setup.threads = 2;
  setup.max_connections = levels.back() + 2;
  const size_t event_bytes = SseEvent(0, setup.frame).size();

  Report report("http_sse", arguments.command);
  Table table("Concurrent SSE streams per library (" + std::to_string(events) +
                  " events of " + std::to_string(event_bytes) + " B each per stream; server in "
                  "its own process, " + std::to_string(setup.threads) +
                  " event-loop threads where the library has a loop)",
              {"library", "streams", "held", "events/s", "MB/s", "server threads",
               "server RSS before [MiB]", "RSS growth per stream [KiB]", "server CPU [s]",
               "client CPU [s]", "first event p99 [ms]"});
  Table slow_table("One client that never reads, for " + Format(slow_seconds) +
                       " s, then another stream of " + std::to_string(events) + " events",
                   {"library", "server RSS at start [MiB]", "RSS growth [KiB]",
                    "server CPU [s]", "other stream held"});
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  nlohmann::ordered_json slow_rows = nlohmann::ordered_json::array();
  int code = 0;
  for (const Library& library : Libraries()) {
    const long library_events =
        library.events == 0 || arguments.quick ? events : library.events;
    for (int n : levels) {
      ServerProcess server;
      if (!StartServer(library, setup, &server, &why)) {
        std::fprintf(stderr, "http_sse: %s\n", why.c_str());
        return 1;
      }
      const Level level = RunLevel(server, n, library_events, deadline, library.request);
      StopServer(&server);
      const double mb_per_second = level.events_per_second * static_cast<double>(event_bytes) / 1e6;
      table.AddRow({library.name, std::to_string(n),
                    std::to_string(level.held) + "/" + std::to_string(n) +
                        (level.first_error.empty() ? "" : " (" + level.first_error + ")"),
                    Format(level.events_per_second), Format(mb_per_second),
                    std::to_string(level.server_threads), Mib(level.rss_before_kib),
                    Format(level.rss_per_stream_kib), Format(level.server_cpu_seconds),
                    Format(level.client_cpu_seconds), Format(1e3 * level.first_event_p99_seconds)});
      rows.push_back({{"library", library.name}, {"package", library.package},
                      {"model", library.model}, {"streams", n}, {"held", level.held},
                      {"error", level.first_error}, {"events_per_stream", library_events},
                      {"event_bytes", event_bytes}, {"wall_seconds", level.wall_seconds},
                      {"events_per_second", level.events_per_second},
                      {"megabytes_per_second", mb_per_second},
                      {"server_threads", level.server_threads},
                      {"server_rss_before_kib", level.rss_before_kib},
                      {"server_rss_peak_kib", level.rss_peak_kib},
                      {"rss_growth_per_stream_kib", level.rss_per_stream_kib},
                      {"server_cpu_seconds", level.server_cpu_seconds},
                      {"client_cpu_seconds", level.client_cpu_seconds},
                      {"first_event_p99_seconds", level.first_event_p99_seconds}});
      if (library.chosen && level.held != n) {
        std::fprintf(stderr, "http_sse: %s, the chosen library, held %d of %d streams: %s\n",
                     library.name, level.held, n, level.first_error.c_str());
        code = 1;
      }
      std::printf("http_sse: %-14s %4d streams: %d held, %s events/s, %ld threads, %s KiB/stream\n",
                  library.name, n, level.held, Format(level.events_per_second).c_str(),
                  level.server_threads, Format(level.rss_per_stream_kib).c_str());
      std::fflush(stdout);
    }
    ServerProcess server;
    if (!StartServer(library, setup, &server, &why)) {
      std::fprintf(stderr, "http_sse: %s\n", why.c_str());
      return 1;
    }
    const SlowClient slow = RunSlowClient(server, slow_seconds, library_events, library.request);
    StopServer(&server);
    const long growth = slow.rss_end_kib - slow.rss_start_kib;
    slow_table.AddRow({library.name, Mib(slow.rss_start_kib), std::to_string(growth),
                       Format(slow.server_cpu_seconds),
                       slow.other_stream_held ? "yes" : "no (" + slow.error + ")"});
    slow_rows.push_back({{"library", library.name}, {"seconds", slow_seconds},
                         {"rss_start_kib", slow.rss_start_kib}, {"rss_end_kib", slow.rss_end_kib},
                         {"rss_growth_kib", growth}, {"server_cpu_seconds", slow.server_cpu_seconds},
                         {"other_stream_held", slow.other_stream_held}, {"error", slow.error}});
    // Bounded means one connection's buffers, not a function of time: a library that queued
    // every event for the slow client would grow by ≥ 10⁴ events/s × event size (the
    // throughput above), hundreds of MB per second; 64 events' worth is far below that.
    const long bound_kib = static_cast<long>(64 * event_bytes / 1024);
    if (library.chosen && (growth > bound_kib || !slow.other_stream_held)) {
      std::fprintf(stderr,
                   "http_sse: %s, the chosen library, grew by %ld KiB (bound %ld KiB) with a "
                   "client that never reads, other stream %s\n",
                   library.name, growth, bound_kib, slow.other_stream_held ? "held" : "failed");
      code = 1;
    }
    std::printf("http_sse: %-14s slow client: RSS growth %ld KiB, other stream %s\n",
                library.name, growth, slow.other_stream_held ? "held" : "failed");
    std::fflush(stdout);
  }
  report.AddTable(table);
  report.AddTable(slow_table);
  report.AddNote(
      "The load generator is one epoll thread in the benchmark's process; the server runs in a "
      "child process, so its threads, RSS (VmRSS) and CPU (utime + stime) are its own. A stream "
      "holds when it received all its events while every stream of the row stayed open. RSS "
      "growth per stream = (peak RSS with all streams open − RSS before) / streams. Client and "
      "server share the machine's cores.");
  report.json()["rows"] = rows;
  report.json()["slow_client"] = slow_rows;
  if (!report.Write(arguments.results, &why)) {
    std::fprintf(stderr, "http_sse: %s\n", why.c_str());
    return 1;
  }
  std::printf("http_sse: wrote %s/http_sse.{json,md}\n", arguments.results.c_str());
  return code;
}

}  // namespace
}  // namespace tether::bench

int main(int argc, char** argv) { return tether::bench::Run(argc, argv); }
