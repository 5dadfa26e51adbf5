#include "http_routes.h"

#include <algorithm>

#include "errors.h"
#include "google/api/annotations.pb.h"
#include "tether/expr/quote.h"

namespace tether::server {
namespace {

// Characters that end a literal: the template's own syntax.
constexpr std::string_view kSyntax = "/:{}*=";

bool IsFieldPathCharacter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.';
}

// A recursive-descent reader of one template; every error names the character it stopped at.
class TemplateReader {
 public:
  explicit TemplateReader(std::string_view text) : text_(text) {}

  bool Fail(std::string* error, std::string_view what) const {
    *error = "path template \"" + std::string(text_) + "\": " + std::string(what) +
             " at character " + std::to_string(position_ + 1);
    return false;
  }
  [[nodiscard]] bool AtEnd() const { return position_ >= text_.size(); }
  [[nodiscard]] char Peek() const { return AtEnd() ? '\0' : text_[position_]; }
  bool Accept(char c) {
    if (Peek() != c) return false;
    ++position_;
    return true;
  }
  std::string_view Take(bool (*keep)(char)) {
    const std::size_t begin = position_;
    while (!AtEnd() && keep(text_[position_])) ++position_;
    return text_.substr(begin, position_ - begin);
  }
  std::string_view Literal() {
    return Take([](char c) { return kSyntax.find(c) == std::string_view::npos; });
  }

 private:
  std::string_view text_;
  std::size_t position_ = 0;
};

// "*" or a literal; `literal` is left empty for "*".
bool ReadSegment(TemplateReader& reader, std::string* literal, std::string* error) {
  if (reader.Accept('*')) {
    if (reader.Peek() == '*') return reader.Fail(error, "\"**\" is not supported");
    literal->clear();
    return true;
  }
  const std::string_view text = reader.Literal();
  if (text.empty()) return reader.Fail(error, "expected a literal, \"*\" or \"{\"");
  *literal = std::string(text);
  return true;
}

std::string HttpMethodOf(const google::api::HttpRule& rule) {
  switch (rule.pattern_case()) {
    case google::api::HttpRule::kGet: return "GET";
    case google::api::HttpRule::kPut: return "PUT";
    case google::api::HttpRule::kPost: return "POST";
    case google::api::HttpRule::kDelete: return "DELETE";
    case google::api::HttpRule::kPatch: return "PATCH";
    case google::api::HttpRule::kCustom: return rule.custom().kind();
    case google::api::HttpRule::PATTERN_NOT_SET: break;
  }
  return "";
}

std::string_view PathOf(const google::api::HttpRule& rule) {
  switch (rule.pattern_case()) {
    case google::api::HttpRule::kGet: return rule.get();
    case google::api::HttpRule::kPut: return rule.put();
    case google::api::HttpRule::kPost: return rule.post();
    case google::api::HttpRule::kDelete: return rule.delete_();
    case google::api::HttpRule::kPatch: return rule.patch();
    case google::api::HttpRule::kCustom: return rule.custom().path();
    case google::api::HttpRule::PATTERN_NOT_SET: break;
  }
  return "";
}

std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  while (true) {
    const std::size_t at = text.find(separator);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return parts;
    text.remove_prefix(at + 1);
  }
}

// The first segment of a path or template, "v1" for "/v1/sessions/s1" and "/v1:simulate"; empty
// when it is not a literal ("/{name=*}") or the path is "/".
std::string FirstSegment(std::string_view path) {
  if (!path.starts_with('/')) return "";
  path.remove_prefix(1);
  const std::string_view segment = path.substr(0, path.find_first_of("/:"));
  if (segment.find_first_of("{*") != std::string_view::npos) return "";
  return std::string(segment);
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// `segment` with its "%XX" escapes decoded.
std::string PercentDecoded(std::string_view segment) {
  std::string out;
  for (std::size_t i = 0; i < segment.size(); ++i) {
    const int high = i + 2 < segment.size() ? HexDigit(segment[i + 1]) : -1;
    const int low = high >= 0 ? HexDigit(segment[i + 2]) : -1;
    if (segment[i] != '%' || low < 0) {
      out += segment[i];
      continue;
    }
    out += static_cast<char>(high * 16 + low);
    i += 2;
  }
  return out;
}

// What is wrong with the decoded bytes of a segment; empty if nothing.
std::string DecodedProblem(std::string_view bytes) {
  for (const char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      constexpr std::string_view kHex = "0123456789abcdef";
      return std::string("control character 0x") + kHex[static_cast<std::size_t>(byte >> 4)] +
             kHex[static_cast<std::size_t>(byte & 0xf)];
    }
  }
  return expr::FirstInvalidUtf8(bytes) ? "bytes that are not UTF-8" : "";
}

}  // namespace

std::optional<std::string> PathEncodingProblem(std::string_view raw) {
  raw = raw.substr(0, raw.find('?'));
  const std::vector<std::string_view> segments = Split(raw, '/');
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const std::string problem = DecodedProblem(PercentDecoded(segments[i]));
    if (problem.empty()) continue;
    // The segment as sent; Quote escapes what would not print.
    return "path segment " + std::to_string(i) + " " + Quote(segments[i]) + " decodes to " +
           problem + "; a name must be printable UTF-8";
  }
  return std::nullopt;
}

std::optional<PathTemplate> PathTemplate::Parse(std::string_view text, std::string* error) {
  PathTemplate path;
  path.text_ = std::string(text);
  TemplateReader reader(text);
  if (!reader.Accept('/')) {
    reader.Fail(error, "must start with \"/\"");
    return std::nullopt;
  }
  while (true) {
    if (reader.Accept('{')) {
      const std::string_view field = reader.Take(IsFieldPathCharacter);
      if (field.empty()) {
        reader.Fail(error, "expected a field path");
        return std::nullopt;
      }
      const int variable = static_cast<int>(path.variables_.size());
      path.variables_.emplace_back(field);
      if (reader.Accept('=')) {
        do {
          Segment segment{.literal = {}, .variable = variable};
          if (!ReadSegment(reader, &segment.literal, error)) return std::nullopt;
          path.segments_.push_back(std::move(segment));
        } while (reader.Accept('/'));
      } else {
        path.segments_.push_back(Segment{.literal = {}, .variable = variable});
      }
      if (!reader.Accept('}')) {
        reader.Fail(error, "expected \"}\"");
        return std::nullopt;
      }
    } else {
      Segment segment;
      if (!ReadSegment(reader, &segment.literal, error)) return std::nullopt;
      path.segments_.push_back(std::move(segment));
    }
    if (reader.AtEnd()) return path;
    if (reader.Accept(':')) break;
    if (!reader.Accept('/')) {
      reader.Fail(error, "expected \"/\", \":\" or the end");
      return std::nullopt;
    }
  }
  path.verb_ = std::string(reader.Literal());
  if (path.verb_.empty() || !reader.AtEnd()) {
    reader.Fail(error, "expected a verb (a literal) to end the template");
    return std::nullopt;
  }
  return path;
}

std::optional<PathBindings> PathTemplate::Match(std::string_view path) const {
  if (!verb_.empty()) {
    if (!path.ends_with(verb_) || path.size() <= verb_.size() ||
        path[path.size() - verb_.size() - 1] != ':') {
      return std::nullopt;
    }
    path.remove_suffix(verb_.size() + 1);
  }
  if (!path.starts_with('/')) return std::nullopt;
  path.remove_prefix(1);
  const std::vector<std::string_view> parts = Split(path, '/');
  if (parts.size() != segments_.size()) return std::nullopt;
  PathBindings bindings(variables_.size());
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const Segment& segment = segments_[i];
    const bool matches = segment.literal.empty()
                             ? !parts[i].empty() && parts[i].find(':') == std::string_view::npos
                             : parts[i] == segment.literal;
    if (!matches) return std::nullopt;
    if (segment.variable < 0) continue;
    auto& [field, value] = bindings[static_cast<std::size_t>(segment.variable)];
    field = variables_[static_cast<std::size_t>(segment.variable)];
    if (!value.empty()) value += '/';
    value += parts[i];
  }
  return bindings;
}

std::optional<HttpRoutes> HttpRoutes::Of(const google::protobuf::ServiceDescriptor& service,
                                         std::string* error) {
  HttpRoutes routes;
  for (int i = 0; i < service.method_count(); ++i) {
    const google::protobuf::MethodDescriptor* rpc = service.method(i);
    if (!rpc->options().HasExtension(google::api::http)) continue;
    const google::api::HttpRule& rule = rpc->options().GetExtension(google::api::http);
    const std::string where = rpc->full_name() + "'s google.api.http option: ";
    if (rule.additional_bindings_size() > 0 || !rule.response_body().empty() ||
        (rule.body() != "" && rule.body() != "*")) {
      *error = where + "additional_bindings, response_body and a body other than \"*\" are not "
                       "supported";
      return std::nullopt;
    }
    const std::string http_method = HttpMethodOf(rule);
    if (http_method.empty()) {
      *error = where + "no HTTP method and path";
      return std::nullopt;
    }
    std::string why;
    std::optional<PathTemplate> path = PathTemplate::Parse(PathOf(rule), &why);
    if (!path) {
      *error = where + why;
      return std::nullopt;
    }
    const std::string root = FirstSegment(path->text());
    if (!root.empty() && std::find(routes.roots_.begin(), routes.roots_.end(), root) ==
                             routes.roots_.end()) {
      routes.roots_.push_back(root);
    }
    routes.routes_.push_back(HttpRoute{.http_method = http_method,
                                       .path = std::move(*path),
                                       .rpc = rpc,
                                       .body = rule.body() == "*"});
  }
  return routes;
}

bool HttpRoutes::Claims(std::string_view path) const {
  const std::string root = FirstSegment(path);
  return std::find(roots_.begin(), roots_.end(), root) != roots_.end();
}

HttpRoutes::Found HttpRoutes::Find(std::string_view http_method, std::string_view path) const {
  Found found;
  std::vector<std::string_view> allowed;
  for (const HttpRoute& route : routes_) {
    std::optional<PathBindings> bindings = route.path.Match(path);
    if (!bindings) continue;
    if (std::find(allowed.begin(), allowed.end(), route.http_method) == allowed.end()) {
      allowed.push_back(route.http_method);
      if (!found.allowed.empty()) found.allowed += ", ";
      found.allowed += route.http_method;
    }
    if (found.route == nullptr && route.http_method == http_method) {
      found.route = &route;
      found.bindings = std::move(*bindings);
    }
  }
  return found;
}

}  // namespace tether::server
