// The seam between the SSE benchmark's load generator (main.cc) and the HTTP libraries it
// compares: each library serves the same event stream from its own file (beast_server.cc,
// microhttpd_server.cc, httplib_server.cc), and libraries.cc lists those that were built.
//
// Every server answers any GET with `200`, `Content-Type: text/event-stream` and an endless
// chunked body of events SseEvent(0), SseEvent(1), …, writing the next event only when the
// library has room for it (its own back-pressure: a client that does not read must stall its
// stream, not grow the server's memory).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tether::bench {

// One frame of a six-column trajectory as the dashboard stream will carry it: `samples`
// rows of [t, x, y, vx, vy, λ] as JSON numbers with 17 significant digits (≈ 110 B a row).
std::string FrameJson(int samples);

// "id: <id>\ndata: <frame>\n\n": one server-sent event (the frame holds no newline).
std::string SseEvent(std::uint64_t id, const std::string& frame);

struct ServerSetup {
  std::string frame;        // the data of every event (FrameJson)
  int threads = 2;          // event-loop threads for libraries with an event loop
  int max_connections = 0;  // streams the benchmark will open at most (sizes per-connection pools)
  int report_fd = -1;       // the bound port is written here (an int) once the server listens
};

// Binds 127.0.0.1 on a free port, reports it, and serves until the process is killed. Returns
// only on failure, with the reason in `why`.
using ServeFunction = bool (*)(const ServerSetup& setup, std::string* why);

struct Library {
  const char* name;     // as the report names it
  const char* package;  // the Debian 12 package that provides it
  const char* model;    // how it serves connections, for the report
  ServeFunction serve;
  bool chosen;          // the library tether's HTTP listener uses (README.md), or that listener:
                        // it must hold every stream and stay bounded with a slow client
  // The request each stream sends; empty = GET of the endless event stream above.
  std::string request = {};
  // Events each stream reads; 0 = the benchmark's default. tether's rows read fewer: every
  // event there is 256 simulated samples, computed on the server's 2 worker threads.
  long events = 0;
};

// One per library, each in its own file, compiled only when its package is installed.
bool ServeBeast(const ServerSetup& setup, std::string* why);
bool ServeMicrohttpd(const ServerSetup& setup, std::string* why);
bool ServeHttplib(const ServerSetup& setup, std::string* why);
// tether's own listener over a real server (tether_server.cc): one-shot pendulum runs.
bool ServeTether(const ServerSetup& setup, std::string* why);
// The POST /v1:simulate request of ServeTether's streams.
std::string TetherSimulateRequest(int samples_per_frame);

// The libraries this build has (each is built only when its package is installed).
std::vector<Library> Libraries();

}  // namespace tether::bench
