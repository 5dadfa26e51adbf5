// A minimal HTTP/1.1 responder for Prometheus' pull: `GET /metrics` answers 200 with the
// exposition text, anything else 404 (or 405 for another method); one thread, one connection at
// a time, `Connection: close`. Bounded: a request head over kMaxRequestBytes is refused (431),
// a client that sends nothing for kClientTimeout is dropped, so a stuck or hostile peer holds
// the thread for at most that long. Scrapes are rare (every 15-60 s) and small, so one thread
// is enough.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

namespace tether::server {

inline constexpr std::size_t kMaxRequestBytes = 8192;
inline constexpr std::chrono::seconds kClientTimeout{2};

class MetricsHttp {
 public:
  // Listens on `listen` ("host:port", port 0 picks one); nullptr and *error if it cannot.
  // `render` produces the body of each scrape; it runs on the responder's thread.
  static std::unique_ptr<MetricsHttp> Start(const std::string& listen,
                                            std::function<std::string()> render,
                                            std::string* error);
  ~MetricsHttp();  // stops the thread (within its 200 ms poll) and closes the socket
  MetricsHttp(const MetricsHttp&) = delete;
  MetricsHttp& operator=(const MetricsHttp&) = delete;

  [[nodiscard]] int port() const { return port_; }

 private:
  MetricsHttp() = default;
  void Serve();
  void Answer(int client);

  int socket_ = -1;
  int port_ = 0;
  std::function<std::string()> render_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace tether::server
