// The dashboard's static files, compiled into the binary at build time: server/dashboard/
// (index.html, its ES modules and style sheet) and uPlot's distribution files from
// tools/node_modules/uplot (scripts/install-deps installs the version tools/package-lock.json
// pins). Nothing is read from disk or fetched at run time, so tether-server serves its
// dashboard from any directory and in the runtime container.
//
// The HTTP listener answers every GET or HEAD outside /v1/ with AnswerEmbeddedFile; this file
// pair knows nothing of the listener's library, so the answer is plain data the handler copies
// into its response.
#pragma once

#include <span>
#include <string_view>
#include <utility>

namespace tether::server {

// One embedded file as served.
struct EmbeddedFile {
  // URL path, "/index.html", "/vendor/uPlot.iife.min.js".
  std::string_view path;
  // Content-Type header value, with a charset for text.
  std::string_view content_type;
  // The file's bytes.
  std::string_view body;
  // Strong entity tag: a quoted 64-bit FNV-1a digest of `body` in hex, so a browser's
  // If-None-Match revalidation costs a 304 and no body.
  std::string_view etag;
};

// The file at URL path `path`: "/" is "/index.html"; a query ("?…") or fragment is ignored.
// nullptr for any other path (the caller answers 404).
const EmbeddedFile* FindEmbeddedFile(std::string_view path);

// All embedded files, in URL path order.
std::span<const EmbeddedFile> EmbeddedFiles();

// An HTTP response for a static request, independent of the HTTP library.
struct EmbeddedResponse {
  // 200, 304 (If-None-Match matched), 404 (unknown path) or 405 (not GET or HEAD).
  int status = 200;
  // Header (name, value) pairs to send besides Content-Length: Content-Type, ETag,
  // Cache-Control, and the security headers of every answer. Values are static strings.
  std::span<const std::pair<std::string_view, std::string_view>> headers;
  // The entity: the file (200), empty (304), or a short plain-text reason (404, 405). For HEAD
  // it is the GET's entity too, so that its length is the Content-Length: the HTTP library
  // leaves the body out of a HEAD answer (libmicrohttpd does so by itself).
  std::string_view body;
  // The Allow header value for 405, else empty.
  std::string_view allow;
};

// What to answer to `method` (e.g. "GET") of `path` with the request's If-None-Match header
// (empty when absent). Cache policy: "no-cache" for every file, i.e. a browser keeps a copy
// but revalidates it on each load: the files change with the binary, not with a versioned
// URL, and a revalidation against a server on the same network costs one small round trip.
EmbeddedResponse AnswerEmbeddedFile(std::string_view method, std::string_view path,
                                    std::string_view if_none_match);

// The raw embedded bytes as cmake/embed_files_script.cmake generates them: (base name, bytes).
// The dashboard's own files are served at "/<name>", uPlot's at "/vendor/<name>".
struct EmbeddedBytes {
  std::string_view name;
  std::string_view bytes;
};
std::span<const EmbeddedBytes> DashboardFileBytes();
std::span<const EmbeddedBytes> DashboardVendorBytes();

}  // namespace tether::server
