// cpp-httplib: blocking sockets, one pool thread per connection for its whole life; a stream
// is a chunked content provider whose DataSink::write blocks until the socket took the event.
// The pool is sized to the benchmark's connections (its default, max(8, cores − 1), would hold
// only 8 streams), and the write timeout raised from 5 s so that a paused reader is not cut.
#include <httplib.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "http_sse/sse_server.h"

namespace tether::bench {

bool ServeHttplib(const ServerSetup& setup, std::string* why) {
  httplib::Server server;
  const size_t pool = static_cast<size_t>(setup.max_connections) + 16;
  server.new_task_queue = [pool] { return new httplib::ThreadPool(pool); };
  server.set_write_timeout(3600, 0);
  server.set_keep_alive_timeout(3600);
  const std::string& frame = setup.frame;
  server.Get(".*", [&frame](const httplib::Request&, httplib::Response& response) {
    response.set_header("Cache-Control", "no-cache");
    auto next_id = std::make_shared<std::uint64_t>(0);
    response.set_chunked_content_provider(
        "text/event-stream", [&frame, next_id](size_t, httplib::DataSink& sink) {
          const std::string event = SseEvent((*next_id)++, frame);
          return sink.write(event.data(), event.size());
        });
  });
  const int port = server.bind_to_any_port("127.0.0.1");
  if (port <= 0 || write(setup.report_fd, &port, sizeof port) != sizeof port) {
    *why = "cpp-httplib: cannot listen on 127.0.0.1 or report the port";
    return false;
  }
  server.listen_after_bind();
  *why = "cpp-httplib: the server stopped";
  return false;
}

}  // namespace tether::bench
