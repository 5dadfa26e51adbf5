// What tether's own clients send: the session routing key (x-tether-session) on every
// session-scoped call and the caller's metadata on every call, checked against a loopback gRPC
// server that records the metadata of each call it receives. The library directly, and the
// `tether` CLI as a process.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server.h>
#include <grpcpp/server_builder.h>
#include <gtest/gtest.h>

#include "process.h"
#include "tether/client/client.h"

namespace tether::client {
namespace {

using ::testing::HasSubstr;

// One call as the server saw it: the method and its metadata (every value of every key).
struct RecordedCall {
  std::string method;
  std::multimap<std::string, std::string> metadata;

  // The one value of `key`; nullopt if absent (a key sent twice fails the test).
  [[nodiscard]] std::optional<std::string> Value(const std::string& key) const {
    EXPECT_LE(metadata.count(key), 1U) << method << " carries " << key << " more than once";
    const auto found = metadata.find(key);
    if (found == metadata.end()) return std::nullopt;
    return found->second;
  }
};

// A SimulationService that records each call's metadata and keeps sessions the way tether's
// server reports them: a root session's routing key is its id, a fork's is its parent's.
class RecordingService final : public v1::SimulationService::Service {
 public:
  std::vector<RecordedCall> Calls() {
    std::lock_guard lock(mutex_);
    return calls_;
  }
  void Clear() {
    std::lock_guard lock(mutex_);
    calls_.clear();
  }

  grpc::Status ListModels(grpc::ServerContext* context, const v1::ListModelsRequest*,
                          v1::ListModelsResponse*) override {
    Record("ListModels", *context);
    return grpc::Status::OK;
  }
  grpc::Status GetModel(grpc::ServerContext* context, const v1::GetModelRequest* request,
                        v1::Model* response) override {
    Record("GetModel", *context);
    response->set_name(request->name());
    return grpc::Status::OK;
  }
  grpc::Status CreateSession(grpc::ServerContext* context, const v1::CreateSessionRequest* request,
                             v1::Session* response) override {
    Record("CreateSession", *context);
    if (request->session_id().empty()) {
      return {grpc::StatusCode::INVALID_ARGUMENT, "this recorder wants a client-chosen id"};
    }
    return Keep(request->session_id(), request->session_id(), response);
  }
  grpc::Status GetSession(grpc::ServerContext* context, const v1::GetSessionRequest* request,
                          v1::Session* response) override {
    Record("GetSession", *context);
    return Find(request->name(), response);
  }
  grpc::Status ListSessions(grpc::ServerContext* context, const v1::ListSessionsRequest*,
                            v1::ListSessionsResponse* response) override {
    Record("ListSessions", *context);
    std::lock_guard lock(mutex_);
    for (const auto& [name, session] : sessions_) *response->add_sessions() = session;
    return grpc::Status::OK;
  }
  grpc::Status UpdateSession(grpc::ServerContext* context, const v1::UpdateSessionRequest* request,
                             v1::Session* response) override {
    Record("UpdateSession", *context);
    return Find(request->name(), response);
  }
  grpc::Status ForkSession(grpc::ServerContext* context, const v1::ForkSessionRequest* request,
                           v1::Session* response) override {
    Record("ForkSession", *context);
    v1::Session parent;
    if (grpc::Status found = Find(request->name(), &parent); !found.ok()) return found;
    return Keep(request->session_id(), parent.routing_key(), response);
  }
  grpc::Status DeleteSession(grpc::ServerContext* context, const v1::DeleteSessionRequest* request,
                             google::protobuf::Empty*) override {
    Record("DeleteSession", *context);
    std::lock_guard lock(mutex_);
    return sessions_.erase(request->name()) == 1
               ? grpc::Status::OK
               : grpc::Status(grpc::StatusCode::NOT_FOUND, request->name());
  }
  grpc::Status StreamStates(grpc::ServerContext* context, const v1::StreamStatesRequest*,
                            grpc::ServerWriter<v1::StateChunk>*) override {
    Record("StreamStates", *context);
    return grpc::Status::OK;
  }
  grpc::Status Simulate(grpc::ServerContext* context, const v1::SimulateRequest*,
                        grpc::ServerWriter<v1::StateChunk>*) override {
    Record("Simulate", *context);
    return grpc::Status::OK;
  }

 private:
  void Record(const std::string& method, const grpc::ServerContext& context) {
    RecordedCall call{method, {}};
    for (const auto& [key, value] : context.client_metadata()) {
      call.metadata.emplace(std::string(key.data(), key.size()),
                            std::string(value.data(), value.size()));
    }
    std::lock_guard lock(mutex_);
    calls_.push_back(std::move(call));
  }
  grpc::Status Keep(const std::string& id, const std::string& routing_key, v1::Session* response) {
    response->set_name("sessions/" + id);
    response->set_model("models/pendulum");
    response->set_routing_key(routing_key);
    std::lock_guard lock(mutex_);
    sessions_[response->name()] = *response;
    return grpc::Status::OK;
  }
  grpc::Status Find(const std::string& name, v1::Session* response) {
    std::lock_guard lock(mutex_);
    const auto found = sessions_.find(name);
    if (found == sessions_.end()) return {grpc::StatusCode::NOT_FOUND, name};
    *response = found->second;
    return grpc::Status::OK;
  }

  std::mutex mutex_;
  std::vector<RecordedCall> calls_;
  std::map<std::string, v1::Session> sessions_;
};

class RoutingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    ASSERT_GT(port_, 0);
  }
  void TearDown() override {
    if (server_ != nullptr) server_->Shutdown(std::chrono::system_clock::now());
  }

  [[nodiscard]] std::string Target() const { return "127.0.0.1:" + std::to_string(port_); }
  static ClientOptions Fast() {
    ClientOptions options;
    options.deadline = std::chrono::seconds(10);
    options.stream_deadline = std::chrono::seconds(10);
    options.max_attempts = 1;
    return options;
  }
  // The routing key of every recorded call, by method, in order.
  std::vector<std::pair<std::string, std::optional<std::string>>> Keys() {
    std::vector<std::pair<std::string, std::optional<std::string>>> keys;
    for (const RecordedCall& call : service_.Calls()) {
      keys.emplace_back(call.method, call.Value(std::string(kRoutingKeyHeader)));
    }
    return keys;
  }

  RecordingService service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

using Keyed = std::pair<std::string, std::optional<std::string>>;

TEST_F(RoutingTest, EverySessionCallCarriesTheRootSessionsKeyThroughForksOfForks) {
  Client client(Target(), Fast());
  v1::CreateSessionRequest create;
  create.set_model("pendulum");
  create.set_session_id("trunk");
  ASSERT_TRUE(client.CreateSession(create).ok());
  auto branch = client.ForkSession("trunk", "branch");
  ASSERT_TRUE(branch.ok()) << branch.error().ToString();
  auto twig = client.ForkSession("sessions/branch", "twig");
  ASSERT_TRUE(twig.ok()) << twig.error().ToString();
  ASSERT_TRUE(client.GetSession("twig").ok());
  v1::UpdateSessionRequest update;
  update.set_name("branch");
  ASSERT_TRUE(client.UpdateSession(update).ok());
  v1::StreamStatesRequest stream;
  stream.set_name("twig");
  (void)client.StreamStates(stream, {});
  (void)client.Resume("branch", 7, {});
  ASSERT_TRUE(client.DeleteSession("twig").ok());
  EXPECT_EQ(client.RoutingKey("twig"), "twig") << "a deleted session's key is forgotten";

  EXPECT_THAT(Keys(), ::testing::ElementsAre(
                          Keyed{"CreateSession", "trunk"}, Keyed{"ForkSession", "trunk"},
                          Keyed{"ForkSession", "trunk"}, Keyed{"GetSession", "trunk"},
                          Keyed{"UpdateSession", "trunk"}, Keyed{"StreamStates", "trunk"},
                          Keyed{"StreamStates", "trunk"}, Keyed{"DeleteSession", "trunk"}));
}

TEST_F(RoutingTest, CreateWithoutAnIdChoosesOneAndRoutesByIt) {
  Client client(Target(), Fast());
  v1::CreateSessionRequest create;
  create.set_model("pendulum");
  auto first = client.CreateSession(create);
  auto second = client.CreateSession(create);
  ASSERT_TRUE(first.ok() && second.ok()) << first.error().ToString();
  EXPECT_THAT(first->name(), ::testing::MatchesRegex("sessions/cc-[0-9a-f]{16}"));
  EXPECT_NE(first->name(), second->name());
  const std::string id = first->name().substr(std::string("sessions/").size());
  ASSERT_TRUE(client.GetSession(id).ok());
  const auto keys = Keys();
  ASSERT_EQ(keys.size(), 3U);
  EXPECT_EQ(keys[0], (Keyed{"CreateSession", id}));
  EXPECT_EQ(keys[2], (Keyed{"GetSession", id}));
}

// A fork made by another process: this client learns its key from the resource it reads, or
// from SetRoutingKey before it has read anything.
TEST_F(RoutingTest, KeysOfForksMadeElsewhereComeFromResourcesOrSetRoutingKey) {
  {
    Client maker(Target(), Fast());
    v1::CreateSessionRequest create;
    create.set_model("pendulum");
    create.set_session_id("root");
    ASSERT_TRUE(maker.CreateSession(create).ok());
    ASSERT_TRUE(maker.ForkSession("root", "leaf").ok());
  }
  service_.Clear();
  Client user(Target(), Fast());
  EXPECT_EQ(user.RoutingKey("leaf"), "leaf");
  user.SetRoutingKey("sessions/leaf", "root");
  EXPECT_EQ(user.RoutingKey("leaf"), "root");
  ASSERT_TRUE(user.GetSession("leaf").ok());

  Client lister(Target(), Fast());
  ASSERT_TRUE(lister.ListAllSessions().ok());
  EXPECT_EQ(lister.RoutingKey("sessions/leaf"), "root");
  ASSERT_TRUE(lister.DeleteSession("leaf").ok());
  EXPECT_THAT(Keys(), ::testing::ElementsAre(Keyed{"GetSession", "root"},
                                             Keyed{"ListSessions", std::nullopt},
                                             Keyed{"DeleteSession", "root"}));
}

TEST_F(RoutingTest, CatalogCallsAndSimulateCarryNoKey) {
  Client client(Target(), Fast());
  ASSERT_TRUE(client.ListModels().ok());
  ASSERT_TRUE(client.GetModel("pendulum").ok());
  (void)client.Simulate(v1::SimulateRequest{}, {});
  EXPECT_THAT(Keys(), ::testing::ElementsAre(Keyed{"ListModels", std::nullopt},
                                             Keyed{"GetModel", std::nullopt},
                                             Keyed{"Simulate", std::nullopt}));
}

TEST_F(RoutingTest, TheCallersMetadataGoesWithEveryCall) {
  ClientOptions options = Fast();
  options.metadata = {{"authorization", "Bearer s3cret"},
                      {"x-tenant", "acme"},
                      {"x-trace-bin", std::string("\x00\x01\xff", 3)}};
  Client client(Target(), options);
  v1::CreateSessionRequest create;
  create.set_model("pendulum");
  create.set_session_id("s");
  ASSERT_TRUE(client.ListModels().ok());
  ASSERT_TRUE(client.CreateSession(create).ok());
  v1::StreamStatesRequest stream;
  stream.set_name("s");
  (void)client.StreamStates(stream, {});
  (void)client.Simulate(v1::SimulateRequest{}, {});
  const auto calls = service_.Calls();
  ASSERT_EQ(calls.size(), 4U);
  for (const RecordedCall& call : calls) {
    EXPECT_EQ(call.Value("authorization"), "Bearer s3cret") << call.method;
    EXPECT_EQ(call.Value("x-tenant"), "acme") << call.method;
    EXPECT_EQ(call.Value("x-trace-bin"), std::string("\x00\x01\xff", 3)) << call.method;
  }
}

TEST_F(RoutingTest, BadMetadataFailsEveryCallByNameAndSendsNothing) {
  struct Case {
    std::pair<std::string, std::string> entry;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {{"X-Tenant", "a"}, "ClientOptions::metadata[0] (\"X-Tenant\"): a metadata key may hold only"},
      {{"", "a"}, "the key is empty"},
      {{"grpc-timeout", "1S"}, "reserved by gRPC"},
      {{"x-tether-session", "k"}, "the client sets x-tether-session itself"},
      {{"x-tenant", "a\nb"}, "outside printable ASCII"},
  };
  for (const Case& c : cases) {
    ClientOptions options = Fast();
    options.metadata = {c.entry};
    Client client(Target(), options);
    auto models = client.ListModels();
    ASSERT_FALSE(models.ok());
    EXPECT_EQ(models.error().code, grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_THAT(models.error().message, HasSubstr("invalid client options: "));
    EXPECT_THAT(models.error().message, HasSubstr(c.expected));
    v1::StreamStatesRequest stream;
    stream.set_name("s");
    const StreamEnd end = client.StreamStates(stream, {});
    EXPECT_EQ(end.error.code, grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_FALSE(client.Health().ok());
  }
  EXPECT_TRUE(service_.Calls().empty());
}

// gRPC sends call credentials only over a secure channel: over plaintext the call fails, and
// the token never reaches the wire.
TEST_F(RoutingTest, CallCredentialsAreNeverSentOverPlaintext) {
  ClientOptions options = Fast();
  options.call_credentials = grpc::AccessTokenCredentials("s3cret");
  Client client(Target(), options);
  EXPECT_FALSE(client.ListModels().ok());
  for (const RecordedCall& call : service_.Calls()) {
    EXPECT_EQ(call.Value("authorization"), std::nullopt) << call.method;
  }
}

// The CLI: --metadata / TETHER_METADATA / --token on every call, --session-key for a fork's
// session commands.
class CliRoutingTest : public RoutingTest {
 protected:
  test::ProcessResult Cli(std::vector<std::string> args, std::map<std::string, std::string> env = {}) {
    args.insert(args.begin(), {TETHER_CLI_PATH, "--server", Target()});
    env.try_emplace("TETHER_METADATA", "");  // "" unsets: the test's environment stays out
    env.try_emplace("TETHER_TOKEN", "");
    env.try_emplace("TETHER_TOKEN_FILE", "");
    return test::RunProcess(args, env, std::chrono::seconds(60));
  }
  void MakeFork() {
    Client client(Target(), Fast());
    v1::CreateSessionRequest create;
    create.set_model("pendulum");
    create.set_session_id("root");
    ASSERT_TRUE(client.CreateSession(create).ok());
    ASSERT_TRUE(client.ForkSession("root", "leaf").ok());
    service_.Clear();
  }
};

TEST_F(CliRoutingTest, MetadataAndTokenFromFlagsAndEnvironment) {
  const auto flags = Cli({"--metadata", "x-tenant=acme", "--metadata", "x-team=numerics",
                          "--token", "s3cret", "sessions", "list"});
  ASSERT_EQ(flags.exit_code, 0) << flags.err;
  const auto from_env = Cli({"models"}, {{"TETHER_METADATA", "x-tenant=env,x-team=ci"}});
  ASSERT_EQ(from_env.exit_code, 0) << from_env.err;
  const auto calls = service_.Calls();
  ASSERT_EQ(calls.size(), 2U);
  EXPECT_EQ(calls[0].Value("x-tenant"), "acme");
  EXPECT_EQ(calls[0].Value("x-team"), "numerics");
  EXPECT_EQ(calls[0].Value("authorization"), "Bearer s3cret");
  EXPECT_EQ(calls[1].Value("x-tenant"), "env");
  EXPECT_EQ(calls[1].Value("x-team"), "ci");
  EXPECT_EQ(calls[1].Value("authorization"), std::nullopt);
}

// A token file's token is its first non-empty line without surrounding white space (as the
// Python client reads it), from --token-file or TETHER_TOKEN_FILE; a file without a token is a
// usage error naming the file, and nothing is sent.
TEST_F(CliRoutingTest, TokenFileIsItsFirstNonEmptyLineStripped) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("tether-token-file-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string token_file = (dir / "token").string();
  const std::string blank_file = (dir / "blank").string();
  std::ofstream(token_file) << "\n  \t\r\n \ts3cret \r\nsecond-line\n";
  std::ofstream(blank_file) << "\n \r\n\t\n";
  const auto flag = Cli({"--token-file", token_file, "models"});
  ASSERT_EQ(flag.exit_code, 0) << flag.err;
  const auto from_env = Cli({"models"}, {{"TETHER_TOKEN_FILE", token_file}});
  ASSERT_EQ(from_env.exit_code, 0) << from_env.err;
  const auto calls = service_.Calls();
  ASSERT_EQ(calls.size(), 2U);
  EXPECT_EQ(calls[0].Value("authorization"), "Bearer s3cret");
  EXPECT_EQ(calls[1].Value("authorization"), "Bearer s3cret");

  service_.Clear();
  const auto blank = Cli({"--token-file", blank_file, "models"});
  EXPECT_EQ(blank.exit_code, 2);
  EXPECT_THAT(blank.err, HasSubstr("--token-file '" + blank_file + "' holds no token"));
  const std::string missing_file = (dir / "missing").string();
  const auto missing = Cli({"--token-file", missing_file, "models"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("--token-file '" + missing_file + "' cannot be read"));
  EXPECT_TRUE(service_.Calls().empty());
  std::filesystem::remove_all(dir);
}

TEST_F(CliRoutingTest, BadMetadataIsAUsageErrorNamingTheEntry) {
  const auto no_equals = Cli({"--metadata", "x-tenant", "models"});
  EXPECT_EQ(no_equals.exit_code, 2);
  EXPECT_THAT(no_equals.err, HasSubstr("--metadata 'x-tenant': expected KEY=VALUE"));
  const auto upper = Cli({"--metadata", "X-Tenant=a", "models"});
  EXPECT_EQ(upper.exit_code, 2);
  EXPECT_THAT(upper.err, HasSubstr("X-Tenant"));
  EXPECT_TRUE(service_.Calls().empty());
}

TEST_F(CliRoutingTest, SessionCommandsRouteByTheSessionOrTheGivenKey) {
  MakeFork();
  const auto show = Cli({"sessions", "show", "leaf", "--session-key", "root"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_THAT(show.out, HasSubstr("sessions/leaf"));
  const auto show_root = Cli({"sessions", "show", "sessions/root"});
  ASSERT_EQ(show_root.exit_code, 0) << show_root.err;
  const auto remove = Cli({"sessions", "delete", "leaf", "--session-key", "root"});
  ASSERT_EQ(remove.exit_code, 0) << remove.err;
  EXPECT_THAT(Keys(), ::testing::ElementsAre(Keyed{"GetSession", "root"},
                                             Keyed{"GetSession", "root"},
                                             Keyed{"DeleteSession", "root"}));
}

}  // namespace
}  // namespace tether::client
