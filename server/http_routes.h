// The HTTP routes of a gRPC service, read from its methods' google.api.http options
// (google/api/http.proto): proto/tether/v1/simulation_service.proto states each RPC's route
// once, and the HTTP listener serves exactly what it states.
//
// Path templates are the subset of http.proto's grammar that resource-oriented APIs use:
//   Template = "/" Segment { "/" Segment } [ ":" Verb ]
//   Segment  = LITERAL | "*" | "{" FieldPath [ "=" Segment { "/" Segment } ] "}"
// `{name}` alone means `{name=*}`. A "*" matches one non-empty path segment without "/" or ":"
// (":" starts the custom verb, so `/v1/sessions/s1:fork` is never GetSession's
// `/v1/{name=sessions/*}` with name "sessions/s1:fork"). A variable binds the path segments it
// spans, joined by "/", to its request field: `/v1/{name=sessions/*}` on /v1/sessions/s1 binds
// name = "sessions/s1". "**", additional_bindings and a body other than "*" or none are not
// supported: a rule that uses them is refused when the routes are built, naming the method.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <google/protobuf/descriptor.h>

namespace tether::server {

// {request field path, value} pairs bound by a path's variables.
using PathBindings = std::vector<std::pair<std::string, std::string>>;

class PathTemplate {
 public:
  // nullopt and *error (what is wrong, at which character) if `text` is not in the grammar above.
  static std::optional<PathTemplate> Parse(std::string_view text, std::string* error);

  // The bindings of `path` (already split from its query) if it matches.
  [[nodiscard]] std::optional<PathBindings> Match(std::string_view path) const;
  [[nodiscard]] const std::string& text() const { return text_; }

 private:
  struct Segment {
    std::string literal;  // empty: "*"
    int variable = -1;    // index into variables_, or -1 outside every variable
  };
  std::string text_;
  std::vector<Segment> segments_;
  std::vector<std::string> variables_;  // field paths, in order of appearance
  std::string verb_;                    // without the ":"; empty if none
};

// One route: an HTTP method and path template calling one RPC.
struct HttpRoute {
  std::string http_method;  // "GET", "POST", "PATCH", "DELETE", "PUT" or a custom kind
  PathTemplate path;
  const google::protobuf::MethodDescriptor* rpc = nullptr;
  bool body = false;  // body: "*", the request message is the body; otherwise the query
};

// Why the path of a request target as sent (`raw`, before percent-decoding; a "?" and what
// follows are ignored) cannot be routed: a segment whose decoding holds a control character
// (0x00–0x1f, 0x7f; a decoded NUL would cut a C string, and the name with it, short) or is not
// UTF-8. Names the segment ("path segment 3 'rob1%00zzz' decodes to control character 0x00");
// nullopt if every segment is fine. An escape that is not "%" and two hex digits stays as sent,
// as libmicrohttpd's decoder leaves it.
std::optional<std::string> PathEncodingProblem(std::string_view raw);

class HttpRoutes {
 public:
  // The routes of every method of `service` that has a google.api.http option, in the order of
  // the service; nullopt and *error for a rule outside the supported subset.
  static std::optional<HttpRoutes> Of(const google::protobuf::ServiceDescriptor& service,
                                      std::string* error);

  struct Found {
    const HttpRoute* route = nullptr;  // nullptr: no route for this method and path
    PathBindings bindings;
    std::string allowed;  // the methods whose templates match the path, "GET, DELETE"; for 405
  };
  [[nodiscard]] Found Find(std::string_view http_method, std::string_view path) const;
  [[nodiscard]] const std::vector<HttpRoute>& routes() const { return routes_; }
  // True if `path` lies in the API's namespace: its first segment (up to "/" or ":") is the
  // first segment of a route's template ("v1" for /v1/sessions/s1 and /v1:simulate), so that
  // it is answered as an API call (a wrong one as NOT_FOUND), not as a page of the dashboard.
  [[nodiscard]] bool Claims(std::string_view path) const;

 private:
  std::vector<HttpRoute> routes_;
  std::vector<std::string> roots_;  // the literal first segments of the templates
};

}  // namespace tether::server
