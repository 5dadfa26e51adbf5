// The HTTP routes read from google.api.http options: the template grammar, matching and
// bindings, the refusals, and the service's own routes (every RPC reachable, and the paths the
// HTTP tests and the dashboard call resolve to the RPCs they mean).
#include "http_routes.h"

#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/empty.pb.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "google/api/annotations.pb.h"
#include "tether/v1/simulation_service.grpc.pb.h"

namespace tether::server {
namespace {

struct MatchCase {
  const char* path_template;
  const char* path;
  bool matches;
  PathBindings bindings;
};

TEST(PathTemplateTest, MatchesAndBindsAsTranscodingSpecifies) {
  const MatchCase cases[] = {
      {"/v1/models", "/v1/models", true, {}},
      {"/v1/models", "/v1/models/", false, {}},
      {"/v1/models", "/v1/model", false, {}},
      {"/v1/{name=models/*}", "/v1/models/pendulum", true, {{"name", "models/pendulum"}}},
      {"/v1/{name=models/*}", "/v1/models/", false, {}},
      {"/v1/{name=models/*}", "/v1/models/a/b", false, {}},
      {"/v1/{name=models/*}", "/v1/sessions/a", false, {}},
      // ":" belongs to the verb: a custom method's path is not the resource's.
      {"/v1/{name=sessions/*}", "/v1/sessions/s1:fork", false, {}},
      {"/v1/{name=sessions/*}:fork", "/v1/sessions/s1:fork", true, {{"name", "sessions/s1"}}},
      {"/v1/{name=sessions/*}:fork", "/v1/sessions/s1:forks", false, {}},
      {"/v1/{name=sessions/*}:fork", "/v1/sessions/s1", false, {}},
      {"/v1/{name=sessions/*}:fork", "/v1/sessions/:fork", false, {}},
      {"/v1/models:register", "/v1/models:register", true, {}},
      {"/v1/models:register", "/v1/models", false, {}},
      {"/v1:simulate", "/v1:simulate", true, {}},
      {"/v1:simulate", "/v1/:simulate", false, {}},
      {"/v1/{session}/x", "/v1/s1/x", true, {{"session", "s1"}}},
      {"/v1/{a=x/*}/{b.c=*/y}", "/v1/x/1/2/y", true, {{"a", "x/1"}, {"b.c", "2/y"}}},
      {"/v1/*", "/v1/anything", true, {}},
      {"/v1/*", "/v1//", false, {}},
      {"/v1/models", "v1/models", false, {}},
  };
  for (const MatchCase& c : cases) {
    SCOPED_TRACE(std::string(c.path_template) + " on " + c.path);
    std::string error;
    const auto path = PathTemplate::Parse(c.path_template, &error);
    ASSERT_TRUE(path.has_value()) << error;
    const auto bindings = path->Match(c.path);
    ASSERT_EQ(bindings.has_value(), c.matches);
    if (bindings) {
      EXPECT_EQ(*bindings, c.bindings);
    }
  }
}

TEST(PathTemplateTest, RefusesWhatItDoesNotSupportNamingTheCharacter) {
  const std::pair<const char*, const char*> cases[] = {
      {"v1/models", "must start with \"/\" at character 1"},
      {"/v1/**", "\"**\" is not supported at character 6"},
      {"/v1/{}", "expected a field path at character 6"},
      {"/v1/{name=models/*", "expected \"}\" at character 19"},
      {"/v1/{name=}", "expected a literal, \"*\" or \"{\" at character 11"},
      {"/v1//models", "expected a literal, \"*\" or \"{\" at character 5"},
      {"/v1/models:", "expected a verb (a literal) to end the template at character 12"},
      {"/v1:a/b", "expected a verb (a literal) to end the template at character 6"},
      {"/v1/{name=models/*}}", "expected \"/\", \":\" or the end at character 20"},
  };
  for (const auto& [text, why] : cases) {
    std::string error;
    EXPECT_FALSE(PathTemplate::Parse(text, &error).has_value()) << text;
    EXPECT_EQ(error, "path template \"" + std::string(text) + "\": " + why);
  }
}

// The service's routes: every RPC has one, and the paths clients call reach the right RPC.
// tether.v1.SimulationService, as the server finds it.
const google::protobuf::ServiceDescriptor& TetherService() {
  return *v1::StateChunk::descriptor()->file()->pool()->FindServiceByName(
      v1::SimulationService::service_full_name());
}

TEST(ServiceRoutesTest, EveryRpcIsRoutedAndPathsReachTheirRpc) {
  const google::protobuf::ServiceDescriptor& service = TetherService();
  std::string error;
  const auto routes = HttpRoutes::Of(service, &error);
  ASSERT_TRUE(routes.has_value()) << error;
  EXPECT_EQ(routes->routes().size(), static_cast<std::size_t>(service.method_count()));

  struct Call {
    const char* method;
    const char* path;
    const char* rpc;
    PathBindings bindings;
  };
  const Call calls[] = {
      {"GET", "/v1/models", "ListModels", {}},
      {"GET", "/v1/models/pendulum", "GetModel", {{"name", "models/pendulum"}}},
      {"POST", "/v1/models:register", "RegisterModel", {}},
      {"DELETE", "/v1/models/mine", "DeleteModel", {{"name", "models/mine"}}},
      {"POST", "/v1/sessions", "CreateSession", {}},
      {"GET", "/v1/sessions", "ListSessions", {}},
      {"GET", "/v1/sessions/s1", "GetSession", {{"name", "sessions/s1"}}},
      {"PATCH", "/v1/sessions/s1", "UpdateSession", {{"name", "sessions/s1"}}},
      {"DELETE", "/v1/sessions/s1", "DeleteSession", {{"name", "sessions/s1"}}},
      {"POST", "/v1/sessions/s1:fork", "ForkSession", {{"name", "sessions/s1"}}},
      {"POST", "/v1/sessions/s1:control", "ControlSession", {{"name", "sessions/s1"}}},
      {"GET", "/v1/sessions/s1:stream", "StreamStates", {{"name", "sessions/s1"}}},
      {"POST", "/v1:simulate", "Simulate", {}},
      {"GET", "/v1/serverInfo", "GetServerInfo", {}},
  };
  for (const Call& call : calls) {
    SCOPED_TRACE(std::string(call.method) + " " + call.path);
    const HttpRoutes::Found found = routes->Find(call.method, call.path);
    ASSERT_NE(found.route, nullptr);
    EXPECT_EQ(found.route->rpc->name(), call.rpc);
    EXPECT_EQ(found.bindings, call.bindings);
  }

  const HttpRoutes::Found wrong_method = routes->Find("POST", "/v1/sessions/s1");
  EXPECT_EQ(wrong_method.route, nullptr);
  EXPECT_EQ(wrong_method.allowed, "GET, PATCH, DELETE");
  const HttpRoutes::Found unknown = routes->Find("GET", "/v1/sessions/s1:rewind");
  EXPECT_EQ(unknown.route, nullptr);
  EXPECT_EQ(unknown.allowed, "");
}

// The API's namespace (the templates' first segment, "v1") against the dashboard's pages.
TEST(ServiceRoutesTest, TheApiClaimsTheFirstSegmentOfItsTemplates) {
  std::string error;
  const auto routes = HttpRoutes::Of(TetherService(), &error);
  ASSERT_TRUE(routes.has_value()) << error;
  for (const char* path : {"/v1/sessions/s1", "/v1:simulate", "/v1/no-such-thing", "/v1",
                           "/v1/sessions/s1:rewind"}) {
    EXPECT_TRUE(routes->Claims(path)) << path;
  }
  for (const char* path : {"/", "/index.html", "/app.js", "/vendor/uPlot.iife.min.js", "/v1x",
                           "/v2/sessions", "v1/sessions", ""}) {
    EXPECT_FALSE(routes->Claims(path)) << path;
  }
}

// A service whose one method carries `rule`, built in its own pool.
class RuleTest : public ::testing::Test {
 protected:
  std::optional<HttpRoutes> RoutesOf(const google::api::HttpRule& rule, std::string* error) {
    // A pool per call: the routes point into it, and a file name is built once per pool.
    google::protobuf::DescriptorPool& pool =
        *pools_.emplace_back(std::make_unique<google::protobuf::DescriptorPool>());
    google::protobuf::FileDescriptorProto empty;
    google::protobuf::Empty::descriptor()->file()->CopyTo(&empty);
    pool.BuildFile(empty);
    google::protobuf::FileDescriptorProto file;
    file.set_name("rule_test.proto");
    file.set_package("rule_test");
    file.add_dependency(empty.name());
    google::protobuf::ServiceDescriptorProto* service = file.add_service();
    service->set_name("S");
    google::protobuf::MethodDescriptorProto* method = service->add_method();
    method->set_name("M");
    method->set_input_type(".google.protobuf.Empty");
    method->set_output_type(".google.protobuf.Empty");
    *method->mutable_options()->MutableExtension(google::api::http) = rule;
    const google::protobuf::FileDescriptor* built = pool.BuildFile(file);
    EXPECT_NE(built, nullptr);
    return HttpRoutes::Of(*built->service(0), error);
  }

 private:
  std::vector<std::unique_ptr<google::protobuf::DescriptorPool>> pools_;
};

TEST_F(RuleTest, UnsupportedRulesAreRefusedNamingTheMethod) {
  google::api::HttpRule additional;
  additional.set_get("/v1/a");
  additional.add_additional_bindings()->set_get("/v1/b");
  google::api::HttpRule field_body;
  field_body.set_post("/v1/a");
  field_body.set_body("request");
  google::api::HttpRule no_pattern;
  google::api::HttpRule deep;
  deep.set_get("/v1/**");
  const std::pair<google::api::HttpRule, std::string> cases[] = {
      {additional, "additional_bindings, response_body and a body other than \"*\" are not "
                   "supported"},
      {field_body, "additional_bindings, response_body and a body other than \"*\" are not "
                   "supported"},
      {no_pattern, "no HTTP method and path"},
      {deep, "path template \"/v1/**\": \"**\" is not supported at character 6"},
  };
  for (const auto& [rule, why] : cases) {
    std::string error;
    EXPECT_FALSE(RoutesOf(rule, &error).has_value());
    EXPECT_EQ(error, "rule_test.S.M's google.api.http option: " + why);
  }
}

TEST_F(RuleTest, ACustomKindAndABodyAreRead) {
  google::api::HttpRule rule;
  rule.mutable_custom()->set_kind("SEARCH");
  rule.mutable_custom()->set_path("/v1/{name=things/*}:find");
  rule.set_body("*");
  std::string error;
  const auto routes = RoutesOf(rule, &error);
  ASSERT_TRUE(routes.has_value()) << error;
  const HttpRoutes::Found found = routes->Find("SEARCH", "/v1/things/t1:find");
  ASSERT_NE(found.route, nullptr);
  EXPECT_TRUE(found.route->body);
  EXPECT_EQ(found.bindings, (PathBindings{{"name", "things/t1"}}));
}

}  // namespace
}  // namespace tether::server
