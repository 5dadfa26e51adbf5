#include "metrics_http.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

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
  const std::size_t colon = listen.rfind(':');
  if (colon == std::string::npos) {
    *error = "metrics_listen '" + listen + "': expected host:port";
    return nullptr;
  }
  std::string host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  const std::string port = listen.substr(colon + 1);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints, &found) != 0 ||
      found == nullptr) {
    *error = "metrics_listen '" + listen + "': cannot resolve the address";
    return nullptr;
  }
  std::unique_ptr<MetricsHttp> http(new MetricsHttp());
  http->render_ = std::move(render);
  http->socket_ = ::socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int on = 1;
  ::setsockopt(http->socket_, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  const bool bound = http->socket_ >= 0 &&
                     ::bind(http->socket_, found->ai_addr, found->ai_addrlen) == 0 &&
                     ::listen(http->socket_, 16) == 0;
  ::freeaddrinfo(found);
  if (!bound) {
    *error = "could not listen on metrics_listen '" + listen + "': " + std::strerror(errno);
    return nullptr;
  }
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  ::getsockname(http->socket_, reinterpret_cast<sockaddr*>(&address), &length);
  http->port_ = ntohs(address.ss_family == AF_INET6
                          ? reinterpret_cast<sockaddr_in6*>(&address)->sin6_port
                          : reinterpret_cast<sockaddr_in*>(&address)->sin_port);
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
