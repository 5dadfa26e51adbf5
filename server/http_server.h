// The HTTP/1.1 face of tether.v1.SimulationService (ServerConfig::http_listen): JSON calls and
// server-sent-event streams over the same SessionService as gRPC, in the same process.
//
// Library: GNU libmicrohttpd (Debian 12 libmicrohttpd12), chosen after measuring 200
// concurrent SSE streams on 2 cores (bench/http_sse/README.md: 200/200 held with 3 threads,
// ≈ 72 KiB per stream, the least CPU of libmicrohttpd, Boost.Beast and cpp-httplib). Two
// epoll threads serve every connection; calls that compute (the same ones gRPC runs there) and
// every frame run on the worker pool while the connection is suspended.
//
// Routes: each RPC's google.api.http option in proto/tether/v1/simulation_service.proto
// (http_routes.h reads them; bodies and responses are proto3 JSON, http_transcoding.h), e.g.
// GET /v1/models, GET /v1/{name=sessions/*}, POST /v1/{name=sessions/*}:fork. Path variables
// and query parameters bind to the request's fields (?pageSize=10, a dotted path for a nested
// field); body routes take the request as JSON. The two streaming RPCs answer
// text/event-stream:
//   GET  /v1/{name=sessions/*}:stream  StreamStates; query parameters are StreamStatesRequest's
//        fields (t_end=10&frame_samples=64&view_only=true); `Last-Event-ID: N` (EventSource's
//        reconnect) means start_sample_index=N
//   POST /v1:simulate  Simulate (body: SimulateRequest). SSE rather than one JSON array: the
//        run streams with the same back-pressure as gRPC and the client parses one format; a
//        browser reads it with fetch() (EventSource cannot POST).
// Besides the proto's routes:
//   GET    /healthz                    200 {"status":"SERVING"}, 503 NOT_SERVING while draining
//   GET|HEAD anything else outside /v1  the dashboard's embedded files (embedded_files.h)
// A refused call answers google.rpc.Status JSON with the HTTP status of its code. A stream
// refused at admission answers so too, which makes EventSource give up: an unknown session,
// limits, a bad query, and whatever the run's start would refuse as the session is then (stop
// conditions, columns, start index, horizon: RunSource::Check). What only the run's start can
// tell (the session already has a driving stream, e.g. a dead connection the server has not
// noticed yet; a change made by that stream before it ended) answers 200 and then
// `event: error`, after which EventSource retries.
//
// Tokens: `Authorization: Bearer TOKEN`, checked by the same code as gRPC's metadata. Because
// EventSource cannot set headers, the two stream routes also accept `?access_token=TOKEN`;
// a token in a URL can end up in proxy logs and browser history, so prefer fetch() with the
// header, and give dashboards short-lived tokens. The listener speaks plaintext only: with
// token_file it needs allow_insecure_tokens (as a plaintext gRPC port does), i.e. loopback, or
// a TLS-terminating proxy in front (deploy/envoy.yaml).
//
// CORS: a request whose Origin is in http_cors_origins ("*" = any) gets
// Access-Control-Allow-Origin; OPTIONS preflights are answered for those origins; no origin
// is allowed by default. Before any of this, http_guard.h refuses requests a page of another
// site could make through a browser: a state-changing one from an origin that is neither the
// listener's own nor allowed (403), a body that is not application/json (415), and on a
// loopback listener a Host that does not name it (403, DNS rebinding).
//
// Clients that leave: a stream's connection is suspended while its driver computes or waits
// for samples, and libmicrohttpd then does not look at its socket. The listener looks instead
// (SseStream::WatchClient, every kClientCheckPeriod), so a closed connection ends its stream,
// and frees its place under the stream limits and its session, within that period rather than
// at the next write, which for a viewer of an idle session never comes.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "http_routes.h"

struct MHD_Daemon;

namespace tether::server {

class SessionService;
class SseStream;

class HttpServer {
 public:
  // Listens on service->state()->config.http_listen; nullptr and *error if it cannot.
  static std::unique_ptr<HttpServer> Start(SessionService* service, std::string* error);
  ~HttpServer();  // Stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  [[nodiscard]] int port() const { return port_; }
  // Stops for good: waits for the calls running on the worker pool (the pool must still run),
  // then closes every connection (an open stream sees its client gone). Idempotent.
  void Stop();

  // For the libmicrohttpd callbacks (http_server.cc).
  struct Handler;

 private:
  explicit HttpServer(SessionService* service) : service_(service) {}
  // Until Stop: every kClientCheckPeriod looks for clients gone, every kKeepAlivePeriod writes
  // keep-alives to idle streams.
  void WatchStreams();

  SessionService* service_;
  HttpRoutes routes_;  // from the service's google.api.http options
  MHD_Daemon* daemon_ = nullptr;
  int socket_ = -1;
  int port_ = 0;
  bool loopback_ = false;  // bound to a loopback address only: http_guard.h checks the Host

  std::mutex mutex_;
  std::condition_variable changed_;
  std::set<SseStream*> streams_;  // open event streams, for WatchStreams
  std::size_t calls_on_pool_ = 0;  // suspended connections whose call runs on the pool
  bool stopping_ = false;
  std::thread watcher_;  // WatchStreams
};

}  // namespace tether::server
