#include "embedded_files.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace tether::server {
namespace {

using Header = std::pair<std::string_view, std::string_view>;

// The policy of every answer. The dashboard loads only its own scripts and styles and talks
// only to its own origin (fetch, EventSource); uPlot writes element styles through the CSSOM,
// which style-src does not restrict, and draws on canvases. nosniff keeps a browser from
// reinterpreting a body as another type; no-referrer keeps session names in URLs off other
// sites' logs.
constexpr std::string_view kContentSecurityPolicy =
    "default-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";
constexpr std::string_view kCacheControl = "no-cache";

struct ContentType {
  std::string_view suffix;
  std::string_view type;
};
// By file name suffix; a file without one of these fails the first lookup (see Table()).
// Sized by its entries: a padding entry's empty suffix would match every name.
constexpr auto kContentTypes = std::to_array<ContentType>({
    {".html", "text/html; charset=utf-8"},
    {".js", "text/javascript; charset=utf-8"},
    {".css", "text/css; charset=utf-8"},
    {".png", "image/png"},
    {".svg", "image/svg+xml"},
    {".json", "application/json"},
    {"LICENSE", "text/plain; charset=utf-8"},
});

std::string_view ContentTypeOf(std::string_view name) {
  for (const auto& c : kContentTypes) {
    if (name.ends_with(c.suffix)) return c.type;
  }
  // Internal invariant: server/CMakeLists.txt embeds only files of the types above.
  std::fprintf(stderr, "tether::server: embedded file '%.*s' has no content type in %s\n",
               static_cast<int>(name.size()), name.data(), __FILE__);
  std::abort();
}

// FNV-1a, 64 bits: a fast digest for cache validation (not a security property: the bytes
// are the binary's own).
std::uint64_t Fnv1a64(std::string_view bytes) {
  std::uint64_t h = 14695981039346656037ull;  // FNV offset basis
  for (char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;  // FNV prime
  }
  return h;
}

struct Entry {
  std::string path;
  std::string etag;
  std::array<Header, 6> headers;
};

// entries[i] describes files[i]; both sorted by path. Neither grows after construction (and
// moving a vector keeps its elements in place), so views into the entries' strings stay valid.
struct Table {
  std::vector<Entry> entries;
  std::vector<EmbeddedFile> files;
  std::array<Header, 3> error_headers;
};

const Table& TheTable() {
  static const Table table = [] {
    struct Raw {
      std::string path;
      EmbeddedBytes bytes;
    };
    std::vector<Raw> raw;
    for (const auto& f : DashboardFileBytes()) raw.push_back({"/" + std::string(f.name), f});
    for (const auto& f : DashboardVendorBytes()) raw.push_back({"/vendor/" + std::string(f.name), f});
    std::sort(raw.begin(), raw.end(), [](const Raw& a, const Raw& b) { return a.path < b.path; });
    Table t;
    t.entries.reserve(raw.size());
    t.files.reserve(raw.size());
    for (const auto& r : raw) {
      char digest[32];
      std::snprintf(digest, sizeof digest, "\"%016llx\"",
                    static_cast<unsigned long long>(Fnv1a64(r.bytes.bytes)));
      t.entries.push_back({r.path, digest, {}});
    }
    for (std::size_t i = 0; i < raw.size(); ++i) {
      Entry& e = t.entries[i];
      const std::string_view type = ContentTypeOf(raw[i].bytes.name);
      t.files.push_back({e.path, type, raw[i].bytes.bytes, e.etag});
      e.headers = {{{"Content-Type", type},
                    {"ETag", e.etag},
                    {"Cache-Control", kCacheControl},
                    {"Content-Security-Policy", kContentSecurityPolicy},
                    {"X-Content-Type-Options", "nosniff"},
                    {"Referrer-Policy", "no-referrer"}}};
    }
    t.error_headers = {{{"Content-Type", "text/plain; charset=utf-8"},
                        {"X-Content-Type-Options", "nosniff"},
                        {"Referrer-Policy", "no-referrer"}}};
    return t;
  }();
  return table;
}

// Index into the table of URL path `path`, or -1.
std::ptrdiff_t FindIndex(std::string_view path) {
  path = path.substr(0, path.find_first_of("?#"));
  if (path == "/") path = "/index.html";
  const auto& files = TheTable().files;
  auto it = std::lower_bound(files.begin(), files.end(), path,
                             [](const EmbeddedFile& f, std::string_view p) { return f.path < p; });
  if (it == files.end() || it->path != path) return -1;
  return it - files.begin();
}

// True when the If-None-Match list (comma-separated tags, or "*") names `etag`; a weak
// comparison as RFC 9110 §13.1.2 prescribes for If-None-Match.
bool Matches(std::string_view if_none_match, std::string_view etag) {
  while (!if_none_match.empty()) {
    const auto comma = if_none_match.find(',');
    std::string_view tag = if_none_match.substr(0, comma);
    while (!tag.empty() && (tag.front() == ' ' || tag.front() == '\t')) tag.remove_prefix(1);
    while (!tag.empty() && (tag.back() == ' ' || tag.back() == '\t')) tag.remove_suffix(1);
    if (tag.starts_with("W/")) tag.remove_prefix(2);
    if (tag == "*" || tag == etag) return true;
    if (comma == std::string_view::npos) break;
    if_none_match.remove_prefix(comma + 1);
  }
  return false;
}

constexpr std::string_view kNotFound = "not found\n";
constexpr std::string_view kNotAllowed = "method not allowed: the dashboard's files take GET or HEAD\n";

}  // namespace

const EmbeddedFile* FindEmbeddedFile(std::string_view path) {
  const auto i = FindIndex(path);
  return i < 0 ? nullptr : &TheTable().files[static_cast<std::size_t>(i)];
}

std::span<const EmbeddedFile> EmbeddedFiles() { return TheTable().files; }

EmbeddedResponse AnswerEmbeddedFile(std::string_view method, std::string_view path,
                                    std::string_view if_none_match) {
  EmbeddedResponse r;
  if (method != "GET" && method != "HEAD") {
    r.status = 405;
    r.headers = TheTable().error_headers;
    r.body = kNotAllowed;
    r.allow = "GET, HEAD";
    return r;
  }
  const auto i = FindIndex(path);
  if (i < 0) {
    r.status = 404;
    r.headers = TheTable().error_headers;
    r.body = kNotFound;
    return r;
  }
  const Entry& e = TheTable().entries[static_cast<std::size_t>(i)];
  const EmbeddedFile& f = TheTable().files[static_cast<std::size_t>(i)];
  r.headers = e.headers;
  if (!if_none_match.empty() && Matches(if_none_match, f.etag)) {
    r.status = 304;
    return r;
  }
  r.status = 200;
  r.body = f.body;
  return r;
}

}  // namespace tether::server
