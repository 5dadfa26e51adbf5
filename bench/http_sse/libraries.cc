#include "http_sse/sse_server.h"

namespace tether::bench {

std::vector<Library> Libraries() {
  return {
#ifdef TETHER_BENCH_WITH_MICROHTTPD
      {"libmicrohttpd", "libmicrohttpd-dev", "epoll thread pool", &ServeMicrohttpd, true},
#endif
#ifdef TETHER_BENCH_WITH_BEAST
      {"Boost.Beast", "libboost-dev", "asio event loop", &ServeBeast, false},
#endif
#ifdef TETHER_BENCH_WITH_HTTPLIB
      {"cpp-httplib", "libcpp-httplib-dev", "thread per connection", &ServeHttplib, false},
#endif
#ifdef TETHER_BENCH_WITH_TETHER
      {"tether-server", "libmicrohttpd-dev", "POST /v1:simulate, pendulum runs", &ServeTether,
       true, TetherSimulateRequest(256), 20},
#endif
  };
}

}  // namespace tether::bench
