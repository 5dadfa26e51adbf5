// A listening TCP socket for the plain HTTP ports (metrics, the HTTP/JSON listener).
#pragma once

#include <string>
#include <string_view>

namespace tether::server {

// Binds and listens on `listen` ("host:port", "[v6]:port", port 0 picks one; an empty host is
// every address) with `backlog`; returns the socket (close-on-exec) and sets *port, or -1 and
// *error naming `option` ("metrics_listen 'x': expected host:port").
int OpenListener(const std::string& listen, std::string_view option, int backlog, int* port,
                 std::string* error);

}  // namespace tether::server
