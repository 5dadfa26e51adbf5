// Which requests the HTTP listener (http_server.h) serves at all: the checks that keep a page of
// another site, in a browser on the server's machine, from acting through that browser.
//
// - Cross-site requests (CSRF): a browser sends a "simple" POST (Content-Type text/plain, no
//   preflight) to any address, with an Origin header naming the page's origin. A state-changing
//   request (POST, PUT, PATCH, DELETE, and a GET that drives a session's stream) is served
//   only without Origin (curl, scripts: no browser
//   page) or from an allowed origin: the listener's own (the Origin's host:port is the request's
//   Host, as a page the listener served has it) or one of http_cors_origins ("*" = any). Its
//   body, if any, must be application/json, which no browser sends cross-site without a
//   preflight that CORS answers only for allowed origins.
// - DNS rebinding: a page of evil.example whose name later resolves to 127.0.0.1 is same-origin
//   with the listener in the browser's eyes, and its requests carry `Host: evil.example:PORT`.
//   A listener bound to loopback therefore answers only requests whose Host names it: localhost,
//   a loopback address, or the host of one of http_cors_origins (a proxy in front on this
//   machine that keeps the client's Host names itself there). The port is not compared, so a
//   tunnel or relay on another local port keeps working. With "*" among the origins any page may
//   call the server anyway, and the Host is not checked.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <grpcpp/support/status.h>

namespace tether::server {

// A request the guard refuses: its status and the HTTP status to answer with.
struct Refusal {
  grpc::Status status;
  unsigned http_status = 0;
};

// What a request shows the guard; the headers are nullopt when absent.
struct GuardedRequest {
  std::string_view method;
  std::optional<std::string_view> host;
  std::optional<std::string_view> origin;
  std::optional<std::string_view> content_type;
  bool has_body = false;  // at least one byte of body arrived
  // A GET that drives a session (StreamStates without view_only): it advances the session, so
  // it is guarded as a state change (a page's EventSource may open it on any site).
  bool drives_session = false;
};

// Whether `socket` is bound to a loopback address (127.0.0.0/8, ::1); not to every address.
bool BoundToLoopback(int socket);

// Whether `origin` is one of `allowed` (http_cors_origins), or "*" is.
bool OriginListed(std::string_view origin, const std::vector<std::string>& allowed);

// The listener's checks of `request`, in order Host, Origin, Content-Type; nullopt = serve it.
// `loopback`: the listener is bound to a loopback address only.
std::optional<Refusal> Guard(const GuardedRequest& request, bool loopback,
                             const std::vector<std::string>& cors_origins);

}  // namespace tether::server
