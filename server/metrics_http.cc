#include "metrics_http.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

#include "tcp_listener.h"

namespace tether::server {
namespace {

// How often the accept loop looks at the stop flag [ms].
constexpr int kPollMs = 200;

void SendAll(int fd, const std::string& data) {
  std::size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;  // the client went away or timed out (SO_SNDTIMEO)
    sent += static_cast<std::size_t>(n);
  }
}

std::string Response(std::string_view status, std::string_view content_type,
                     const std::string& body) {
  return "HTTP/1.1 " + std::string(status) + "\r\nContent-Type: " + std::string(content_type) +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" +
         body;
}

}  // namespace

std::unique_ptr<MetricsHttp> MetricsHttp::Start(const std::string& listen,
                                                std::function<std::string()> render,
                                                std::string* error) {
  std::unique_ptr<MetricsHttp> http(new MetricsHttp());
  http->render_ = std::move(render);
  http->socket_ = OpenListener(listen, "metrics_listen", 16, &http->port_, error);
  if (http->socket_ < 0) return nullptr;
  http->thread_ = std::thread([raw = http.get()] { raw->Serve(); });
  return http;
}

MetricsHttp::~MetricsHttp() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  if (socket_ >= 0) ::close(socket_);
}

void MetricsHttp::Serve() {
  while (!stop_.load()) {
    pollfd waiting{socket_, POLLIN, 0};
    if (::poll(&waiting, 1, kPollMs) <= 0) continue;
    const int client = ::accept4(socket_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    timeval timeout{};
    timeout.tv_sec = kClientTimeout.count();
    ::setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    ::setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    Answer(client);
    ::close(client);
  }
}

void MetricsHttp::Answer(int client) {
  std::string head;
  char buffer[1024];
  const auto deadline = std::chrono::steady_clock::now() + kClientTimeout;
  while (head.find("\r\n\r\n") == std::string::npos) {
    if (head.size() > kMaxRequestBytes) {
      SendAll(client, Response("431 Request Header Fields Too Large", "text/plain", "too large\n"));
      return;
    }
    if (std::chrono::steady_clock::now() > deadline) return;
    const ssize_t n = ::recv(client, buffer, sizeof buffer, 0);
    if (n <= 0) return;  // closed, or nothing within SO_RCVTIMEO
    head.append(buffer, static_cast<std::size_t>(n));
  }
  const std::string line = head.substr(0, head.find("\r\n"));
  if (line.rfind("GET ", 0) != 0) {
    SendAll(client, Response("405 Method Not Allowed", "text/plain", "GET /metrics only\n"));
    return;
  }
  const std::size_t path_end = line.find(' ', 4);
  const std::string path = line.substr(4, path_end == std::string::npos ? std::string::npos : path_end - 4);
  if (path != "/metrics" && path.rfind("/metrics?", 0) != 0) {
    SendAll(client, Response("404 Not Found", "text/plain", "GET /metrics only\n"));
    return;
  }
  SendAll(client, Response("200 OK", "text/plain; version=0.0.4; charset=utf-8", render_()));
}

}  // namespace tether::server
