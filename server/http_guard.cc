#include "http_guard.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>

#include "errors.h"

namespace tether::server {
namespace {

constexpr unsigned kForbidden = 403;
constexpr unsigned kUnsupportedMediaType = 415;

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// The host of an authority "host", "host:port" or "[v6]:port", lowercased, without brackets.
std::string HostOf(std::string_view authority) {
  if (authority.starts_with('[')) {
    const std::size_t close = authority.find(']');
    return Lower(authority.substr(1, close == std::string_view::npos ? close : close - 1));
  }
  // More than one colon: a bare IPv6 address, which has no port.
  if (std::count(authority.begin(), authority.end(), ':') == 1) {
    authority = authority.substr(0, authority.find(':'));
  }
  return Lower(authority);
}

// The authority of an origin "scheme://host[:port]"; empty for an opaque origin ("null").
std::string_view AuthorityOf(std::string_view origin) {
  const std::size_t scheme_end = origin.find("://");
  return scheme_end == std::string_view::npos ? std::string_view{} : origin.substr(scheme_end + 3);
}

bool IsLoopback(in_addr address) { return (ntohl(address.s_addr) >> 24) == 127; }

// localhost and its subdomains, which browsers resolve to loopback themselves (RFC 6761), so no
// DNS answer can rebind them; and loopback addresses (127.0.0.0/8, ::1).
bool IsLoopbackName(const std::string& host) {
  if (host == "localhost" || host.ends_with(".localhost")) return true;
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return IsLoopback(v4);
  in6_addr v6{};
  return inet_pton(AF_INET6, host.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

bool IsStateChanging(std::string_view method) {
  return method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE";
}

std::optional<Refusal> CheckHost(std::optional<std::string_view> host,
                                 const std::vector<std::string>& cors_origins) {
  // HTTP/1.0 without Host: no browser sends that.
  if (!host || OriginListed("*", cors_origins)) return std::nullopt;
  const std::string name = HostOf(*host);
  if (IsLoopbackName(name)) return std::nullopt;
  for (const std::string& origin : cors_origins) {
    if (HostOf(AuthorityOf(origin)) == name) return std::nullopt;
  }
  return Refusal{
      Error(grpc::StatusCode::PERMISSION_DENIED,
            "Host " + Quote(*host) +
                " is not a name of this server: listening on loopback, it answers to localhost, "
                "loopback addresses and the hosts of http_cors_origins (--http-cors-origin) "
                "only, so that a site whose name resolves to this machine (DNS rebinding) cannot "
                "call it"),
      kForbidden};
}

std::optional<Refusal> CheckOrigin(const GuardedRequest& request,
                                   const std::vector<std::string>& cors_origins) {
  if (!request.origin || OriginListed(*request.origin, cors_origins)) return std::nullopt;
  const std::string_view own = request.host.value_or("");
  if (!own.empty() && Lower(AuthorityOf(*request.origin)) == Lower(own)) return std::nullopt;
  return Refusal{Error(grpc::StatusCode::PERMISSION_DENIED,
                       "origin " + Quote(*request.origin) + " may not " +
                           std::string(request.method) +
                           " here: requests that change state are served to the server's own "
                           "origin (host " + Quote(own) +
                           ") and the origins of http_cors_origins (--http-cors-origin) only"),
                 kForbidden};
}

std::optional<Refusal> CheckContentType(const GuardedRequest& request) {
  if (!request.has_body) return std::nullopt;
  const std::string_view type = request.content_type.value_or("");
  if (Lower(Trim(type.substr(0, type.find(';')))) == "application/json") return std::nullopt;
  return Refusal{Error(grpc::StatusCode::INVALID_ARGUMENT,
                       (request.content_type ? "Content-Type " + Quote(type)
                                             : std::string("a body without Content-Type")) +
                           " is not served: the body of a " + std::string(request.method) +
                           " must be JSON, Content-Type application/json"),
                 kUnsupportedMediaType};
}

}  // namespace

bool BoundToLoopback(int socket) {
  sockaddr_storage address{};
  socklen_t size = sizeof address;
  if (::getsockname(socket, reinterpret_cast<sockaddr*>(&address), &size) != 0) return false;
  if (address.ss_family == AF_INET) {
    return IsLoopback(reinterpret_cast<const sockaddr_in*>(&address)->sin_addr);
  }
  return address.ss_family == AF_INET6 &&
         IN6_IS_ADDR_LOOPBACK(&reinterpret_cast<const sockaddr_in6*>(&address)->sin6_addr);
}

bool OriginListed(std::string_view origin, const std::vector<std::string>& allowed) {
  return std::find(allowed.begin(), allowed.end(), origin) != allowed.end() ||
         std::find(allowed.begin(), allowed.end(), "*") != allowed.end();
}

std::optional<Refusal> Guard(const GuardedRequest& request, bool loopback,
                             const std::vector<std::string>& cors_origins) {
  if (loopback) {
    if (auto refused = CheckHost(request.host, cors_origins)) return refused;
  }
  if (!IsStateChanging(request.method) && !request.drives_session) return std::nullopt;
  if (auto refused = CheckOrigin(request, cors_origins)) return refused;
  return CheckContentType(request);
}

}  // namespace tether::server
