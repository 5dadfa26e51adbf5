// GNU libmicrohttpd, the library chosen for tether's HTTP listener: it held 200 concurrent SSE
// streams on 2 cores with 3 threads, ≈ 72 KiB per stream and the least CPU of the candidates
// (README.md has the numbers and what the service must add: suspend/resume for frames not yet
// produced). Here: `threads` internal threads, each with its own epoll set; a stream is a
// response of unknown size (chunked) whose content callback MHD calls only when the
// connection's write buffer has room, i.e. once the socket took the previous bytes.
#include <microhttpd.h>
#include <netinet/in.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "http_sse/sse_server.h"

namespace tether::bench {
namespace {

// MHD copies at most this many bytes per callback into the connection's buffer [B].
constexpr size_t kBlockBytes = 32 * 1024;

struct Stream {
  const std::string* frame = nullptr;
  std::uint64_t next_id = 0;
  std::string event;
  size_t offset = 0;  // bytes of `event` already handed to MHD
};

ssize_t ReadEvents(void* closure, uint64_t /*position*/, char* buffer, size_t max) {
  auto* stream = static_cast<Stream*>(closure);
  if (stream->offset == stream->event.size()) {
    stream->event = SseEvent(stream->next_id++, *stream->frame);
    stream->offset = 0;
  }
  const size_t count = std::min(max, stream->event.size() - stream->offset);
  std::memcpy(buffer, stream->event.data() + stream->offset, count);
  stream->offset += count;
  return static_cast<ssize_t>(count);
}

MHD_Result Answer(void* closure, MHD_Connection* connection, const char* /*url*/,
                  const char* /*method*/, const char* /*version*/, const char* /*upload*/,
                  size_t* /*upload_size*/, void** /*request_state*/) {
  auto* stream = new Stream;
  stream->frame = static_cast<const std::string*>(closure);
  MHD_Response* response = MHD_create_response_from_callback(
      MHD_SIZE_UNKNOWN, kBlockBytes, &ReadEvents, stream,
      [](void* state) { delete static_cast<Stream*>(state); });
  MHD_add_response_header(response, "Content-Type", "text/event-stream");
  MHD_add_response_header(response, "Cache-Control", "no-cache");
  const MHD_Result result = MHD_queue_response(connection, MHD_HTTP_OK, response);
  MHD_destroy_response(response);
  return result;
}

}  // namespace

bool ServeMicrohttpd(const ServerSetup& setup, std::string* why) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  MHD_Daemon* daemon = MHD_start_daemon(
      MHD_USE_EPOLL_INTERNAL_THREAD, 0, nullptr, nullptr, &Answer,
      const_cast<std::string*>(&setup.frame), MHD_OPTION_SOCK_ADDR, &address,
      MHD_OPTION_THREAD_POOL_SIZE, static_cast<unsigned>(setup.threads),
      MHD_OPTION_CONNECTION_LIMIT, static_cast<unsigned>(setup.max_connections + 16),
      MHD_OPTION_END);
  if (daemon == nullptr) {
    *why = "libmicrohttpd: MHD_start_daemon failed on 127.0.0.1";
    return false;
  }
  const MHD_DaemonInfo* info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
  const int port = info == nullptr ? 0 : info->port;
  if (port == 0 || write(setup.report_fd, &port, sizeof port) != sizeof port) {
    *why = "libmicrohttpd: cannot report the port";
    return false;
  }
  for (;;) pause();  // MHD's threads serve; the benchmark kills this process
}

}  // namespace tether::bench
