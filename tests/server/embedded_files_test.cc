// The dashboard's embedded files: what the HTTP listener answers for paths outside /v1/.
#include "embedded_files.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

namespace tether::server {
namespace {

std::string Header(const EmbeddedResponse& r, std::string_view name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) return std::string(v);
  }
  return "";
}

TEST(EmbeddedFiles, RootIsTheIndexPage) {
  const EmbeddedFile* root = FindEmbeddedFile("/");
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root, FindEmbeddedFile("/index.html"));
  EXPECT_EQ(root->content_type, "text/html; charset=utf-8");
  EXPECT_NE(root->body.find("<title>tether dashboard</title>"), std::string_view::npos);
  // A query or fragment does not change the file.
  EXPECT_EQ(FindEmbeddedFile("/?session=a"), root);
  EXPECT_EQ(FindEmbeddedFile("/index.html#x"), root);
}

TEST(EmbeddedFiles, UnknownPathsAreNotFound) {
  for (const char* path : {"/nope.js", "/v1/models", "", "index.html", "/vendor/", "/../server.cc",
                           "/vendor/../index.html", "//index.html"}) {
    EXPECT_EQ(FindEmbeddedFile(path), nullptr) << path;
    const auto r = AnswerEmbeddedFile("GET", path, "");
    EXPECT_EQ(r.status, 404) << path;
    EXPECT_EQ(r.body, "not found\n");
  }
}

TEST(EmbeddedFiles, EveryFileHasTypeTagAndBody) {
  ASSERT_GE(EmbeddedFiles().size(), 6u);
  std::set<std::string> tags;
  for (const auto& f : EmbeddedFiles()) {
    EXPECT_FALSE(f.body.empty()) << f.path;
    EXPECT_FALSE(f.content_type.empty()) << f.path;
    // A strong validator: quoted, 16 hex digits of the digest.
    EXPECT_TRUE(std::regex_match(std::string(f.etag), std::regex("\"[0-9a-f]{16}\""))) << f.etag;
    tags.insert(std::string(f.etag));
    EXPECT_EQ(FindEmbeddedFile(f.path), &f) << f.path;
  }
  // Different bytes, different tags (a collision of FNV-1a over a handful of files would be
  // a 2^-64 event, so a duplicate means the digest is not over the bytes).
  EXPECT_EQ(tags.size(), EmbeddedFiles().size());
  ASSERT_NE(FindEmbeddedFile("/vendor/uPlot.iife.min.js"), nullptr);
  EXPECT_EQ(FindEmbeddedFile("/vendor/uPlot.iife.min.js")->content_type,
            "text/javascript; charset=utf-8");
  ASSERT_NE(FindEmbeddedFile("/vendor/LICENSE"), nullptr);
}

// Every file the page loads (src/href attributes of index.html, the modules' relative imports)
// is embedded: a missing one would be a 404 in the browser.
TEST(EmbeddedFiles, EveryReferenceResolves) {
  const std::regex attribute(R"re((?:src|href)="(/[^"]*)")re");
  const std::string index(FindEmbeddedFile("/")->body);
  int references = 0;
  for (std::sregex_iterator it(index.begin(), index.end(), attribute), end; it != end; ++it) {
    EXPECT_NE(FindEmbeddedFile((*it)[1].str()), nullptr) << "index.html loads " << (*it)[1];
    ++references;
  }
  EXPECT_GE(references, 4);  // uPlot's script and style, the app's module and style sheet
  const std::regex import(R"re(from '\./([^']+)')re");
  for (const auto& f : EmbeddedFiles()) {
    if (!f.path.ends_with(".js") || f.path.starts_with("/vendor/")) continue;
    const std::string text(f.body);
    for (std::sregex_iterator it(text.begin(), text.end(), import), end; it != end; ++it) {
      EXPECT_NE(FindEmbeddedFile("/" + (*it)[1].str()), nullptr)
          << f.path << " imports " << (*it)[1];
    }
  }
}

TEST(EmbeddedFiles, GetAnswersWithCacheValidationHeaders) {
  const EmbeddedFile* app = FindEmbeddedFile("/app.js");
  ASSERT_NE(app, nullptr);
  const auto r = AnswerEmbeddedFile("GET", "/app.js", "");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, app->body);
  EXPECT_EQ(Header(r, "Content-Type"), "text/javascript; charset=utf-8");
  EXPECT_EQ(Header(r, "ETag"), app->etag);
  EXPECT_EQ(Header(r, "Cache-Control"), "no-cache");
  EXPECT_EQ(Header(r, "X-Content-Type-Options"), "nosniff");
  EXPECT_NE(Header(r, "Content-Security-Policy").find("default-src 'self'"), std::string::npos);
}

TEST(EmbeddedFiles, MatchingIfNoneMatchIsNotModified) {
  const std::string tag(FindEmbeddedFile("/style.css")->etag);
  for (const std::string& header : {tag, "W/" + tag, "\"0000000000000000\", " + tag, std::string("*")}) {
    const auto r = AnswerEmbeddedFile("GET", "/style.css", header);
    EXPECT_EQ(r.status, 304) << header;
    EXPECT_TRUE(r.body.empty());
    EXPECT_EQ(Header(r, "ETag"), tag);
  }
  EXPECT_EQ(AnswerEmbeddedFile("GET", "/style.css", "\"0000000000000000\"").status, 200);
  // Another file's tag does not validate this one.
  EXPECT_EQ(AnswerEmbeddedFile("GET", "/style.css", FindEmbeddedFile("/app.js")->etag).status, 200);
}

// HEAD answers as GET (the HTTP library leaves the body out and keeps its length).
TEST(EmbeddedFiles, HeadAnswersAsGet) {
  const auto head = AnswerEmbeddedFile("HEAD", "/", "");
  const auto get = AnswerEmbeddedFile("GET", "/", "");
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.body.size(), get.body.size());
  EXPECT_EQ(Header(head, "ETag"), Header(get, "ETag"));
  EXPECT_EQ(AnswerEmbeddedFile("HEAD", "/nope", "").status, 404);
}

TEST(EmbeddedFiles, OtherMethodsAreNotAllowed) {
  for (const char* method : {"POST", "PUT", "DELETE", "PATCH", "get"}) {
    const auto r = AnswerEmbeddedFile(method, "/", "");
    EXPECT_EQ(r.status, 405) << method;
    EXPECT_EQ(r.allow, "GET, HEAD");
    EXPECT_NE(std::string(r.body).find("GET or HEAD"), std::string::npos);
  }
}

}  // namespace
}  // namespace tether::server
