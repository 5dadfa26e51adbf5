// Bearer tokens and tenants (ServerConfig::token_file): UNAUTHENTICATED without a valid token,
// NOT_FOUND across tenants for every session- and model-scoped RPC, lists filtered, quotas per
// tenant, the token file re-read, a plaintext port refused unless allowed; and against a real
// tether-server process: `hash-token`, the CLI's --token-file, and no token in any log line.

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <thread>

#include <google/protobuf/descriptor.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "client/process.h"
#include "test_support.h"

namespace tether::server::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

// Tokens of the tests; long and distinctive, so that a search of the log cannot miss one.
const std::string kAlphaToken = "alpha-7f3c9d2e1b8a4f60-token";
const std::string kBetaToken = "beta-0c5e8a91d4b27f36-token";
const std::string kGammaToken = "gamma-93e1f0a7c2d45b86-token";
const std::string kWrongToken = "wrong-4d1a6e0b9c8f2735-token";

void WriteFile(const std::string& path, const std::string& text) {
  // Written beside and renamed into place: the server never reads half a file.
  const std::string temporary = path + ".new";
  std::ofstream(temporary) << text;
  fs::rename(temporary, path);
}

const std::string kSecretSpec = OscillatorSpecNamed("secret_oscillator");

class AuthTest : public ServerFixture {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "tether_auth_" + std::to_string(::getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::create_directories(dir_);
    token_file_ = dir_ + "/tokens";
    WriteFile(token_file_, "# tenants of the tests\n" + TokenLine("alpha", kAlphaToken) + "\n\n" +
                               TokenLine("beta", kBetaToken, "abc123") + "\n");
    Restart(Config());
  }
  void TearDown() override {
    stub_.reset();
    server_.reset();
    fs::remove_all(dir_);
  }

  ServerConfig Config() const {
    ServerConfig config = TestConfig();
    config.token_file = token_file_;
    return config;
  }
  // A context with the deadline and, unless empty, `authorization: Bearer token`.
  static std::unique_ptr<grpc::ClientContext> As(const std::string& token) {
    auto context = std::make_unique<grpc::ClientContext>();
    SetDeadline(context.get());
    if (!token.empty()) context->AddMetadata("authorization", "Bearer " + token);
    return context;
  }

  grpc::Status ListModels(const std::string& token, v1::ListModelsResponse* out = nullptr) {
    v1::ListModelsResponse ignored;
    return stub_->ListModels(As(token).get(), v1::ListModelsRequest(), out ? out : &ignored);
  }
  grpc::Status Register(const std::string& token, const std::string& json) {
    v1::RegisterModelRequest request;
    request.set_spec_json(json);
    v1::Model model;
    return stub_->RegisterModel(As(token).get(), request, &model);
  }
  grpc::Status Create(const std::string& token, const std::string& model, const std::string& id) {
    v1::CreateSessionRequest request;
    request.set_model("models/" + model);
    request.set_session_id(id);
    request.mutable_options()->set_t_end(1.0);
    request.mutable_options()->set_output_interval(0.1);
    v1::Session session;
    return stub_->CreateSession(As(token).get(), request, &session);
  }
  grpc::Status GetSession(const std::string& token, const std::string& id) {
    v1::GetSessionRequest request;
    request.set_name("sessions/" + id);
    v1::Session session;
    return stub_->GetSession(As(token).get(), request, &session);
  }
  grpc::Status Simulate(const std::string& token, const std::string& model) {
    v1::SimulateRequest request;
    request.set_model(model);
    request.mutable_options()->set_t_end(0.1);
    auto context = As(token);
    auto reader = stub_->Simulate(context.get(), request);
    return Collect(context.get(), reader.get()).status;
  }

  std::string dir_;
  std::string token_file_;
};

TEST_F(AuthTest, CallsWithoutAValidTokenAreUnauthenticated) {
  EXPECT_TRUE(ListModels(kAlphaToken).ok());
  for (const std::string& token : {std::string(), kWrongToken, kAlphaToken + "x"}) {
    const grpc::Status status = ListModels(token);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << token;
    EXPECT_THAT(status.error_message(), Not(HasSubstr(token.empty() ? "\x01" : token)));
    EXPECT_EQ(Simulate(token, "pendulum").error_code(), grpc::StatusCode::UNAUTHENTICATED);
  }
  EXPECT_THAT(ListModels("").error_message(), HasSubstr("authorization: Bearer"));
  // The scheme is case-insensitive (RFC 6750); another scheme is refused by name.
  auto lower = As("");
  lower->AddMetadata("authorization", "bearer " + kBetaToken);
  v1::ListModelsResponse models;
  EXPECT_TRUE(stub_->ListModels(lower.get(), v1::ListModelsRequest(), &models).ok());
  auto basic = As("");
  basic->AddMetadata("authorization", "Basic " + kBetaToken);
  const grpc::Status status = stub_->ListModels(basic.get(), v1::ListModelsRequest(), &models);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(status.error_message(), HasSubstr("not a bearer token"));
  // Health (and reflection) need no token: probes carry none.
  EXPECT_EQ(HealthStatus(server_->InProcessChannel()), 1);
}

TEST_F(AuthTest, AnotherTenantsSessionsAndModelsAreNotFoundByEveryRpc) {
  ASSERT_TRUE(Register(kAlphaToken, kSecretSpec).ok());
  ASSERT_TRUE(Create(kAlphaToken, "secret_oscillator", "mine").ok());

  // Every RPC that names a session or a model, as tenant beta naming alpha's.
  using Call = std::function<grpc::Status(v1::SimulationService::Stub*)>;
  const std::map<std::string, Call> scoped = {
      {"GetModel", [](auto* stub) {
         v1::GetModelRequest request;
         request.set_name("models/secret_oscillator");
         v1::Model out;
         return stub->GetModel(As(kBetaToken).get(), request, &out);
       }},
      {"DeleteModel", [](auto* stub) {
         v1::DeleteModelRequest request;
         request.set_name("models/secret_oscillator");
         google::protobuf::Empty out;
         return stub->DeleteModel(As(kBetaToken).get(), request, &out);
       }},
      {"CreateSession", [](auto* stub) {
         v1::CreateSessionRequest request;
         request.set_model("models/secret_oscillator");
         v1::Session out;
         return stub->CreateSession(As(kBetaToken).get(), request, &out);
       }},
      {"Simulate", [](auto* stub) {
         v1::SimulateRequest request;
         request.set_model("secret_oscillator");
         auto context = As(kBetaToken);
         auto reader = stub->Simulate(context.get(), request);
         return Collect(context.get(), reader.get()).status;
       }},
      {"GetSession", [](auto* stub) {
         v1::GetSessionRequest request;
         request.set_name("sessions/mine");
         v1::Session out;
         return stub->GetSession(As(kBetaToken).get(), request, &out);
       }},
      {"UpdateSession", [](auto* stub) {
         v1::UpdateSessionRequest request;
         request.set_name("sessions/mine");
         (*request.mutable_parameters())["k"] = 9.0;
         v1::Session out;
         return stub->UpdateSession(As(kBetaToken).get(), request, &out);
       }},
      {"ForkSession", [](auto* stub) {
         v1::ForkSessionRequest request;
         request.set_name("sessions/mine");
         request.set_session_id("stolen");
         v1::Session out;
         return stub->ForkSession(As(kBetaToken).get(), request, &out);
       }},
      {"DeleteSession", [](auto* stub) {
         v1::DeleteSessionRequest request;
         request.set_name("sessions/mine");
         google::protobuf::Empty out;
         return stub->DeleteSession(As(kBetaToken).get(), request, &out);
       }},
      {"ControlSession", [](auto* stub) {
         v1::ControlSessionRequest request;
         request.set_name("sessions/mine");
         request.set_pause(true);
         v1::Session out;
         return stub->ControlSession(As(kBetaToken).get(), request, &out);
       }},
      {"StreamStates", [](auto* stub) {
         v1::StreamStatesRequest request;
         request.set_name("sessions/mine");
         auto context = As(kBetaToken);
         auto reader = stub->StreamStates(context.get(), request);
         return Collect(context.get(), reader.get()).status;
       }},
  };
  // The table covers the whole service: a new RPC must be added to one of the two lists.
  const std::set<std::string> unscoped = {"ListModels", "RegisterModel", "ListSessions",
                                          "GetServerInfo"};
  const google::protobuf::ServiceDescriptor* service =
      google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
          v1::SimulationService::service_full_name());
  ASSERT_NE(service, nullptr);
  for (int i = 0; i < service->method_count(); ++i) {
    const std::string name = service->method(i)->name();
    EXPECT_TRUE(scoped.count(name) + unscoped.count(name) == 1) << name << " is in no list";
  }
  for (const auto& [name, call] : scoped) {
    const grpc::Status status = call(stub_.get());
    EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND) << name << ": "
                                                                << status.error_message();
  }
  // Nothing of alpha's changed, and beta's NOT_FOUND suggested none of alpha's names.
  v1::GetModelRequest request;
  request.set_name("models/secret_oscillatr");
  v1::Model model;
  const grpc::Status typo = stub_->GetModel(As(kBetaToken).get(), request, &model);
  EXPECT_EQ(typo.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(typo.error_message(), Not(HasSubstr("did you mean 'secret_oscillator'")));
  const grpc::Status own_typo = stub_->GetModel(As(kAlphaToken).get(), request, &model);
  EXPECT_THAT(own_typo.error_message(), HasSubstr("did you mean 'secret_oscillator'"));
  v1::Session session;
  v1::GetSessionRequest get;
  get.set_name("sessions/mine");
  ASSERT_TRUE(stub_->GetSession(As(kAlphaToken).get(), get, &session).ok());
  EXPECT_EQ(session.parameters().at("k"), 4.0);
  EXPECT_EQ(GetSession(kAlphaToken, "stolen").error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(GetSession(kBetaToken, "stolen").error_code(), grpc::StatusCode::NOT_FOUND);

  // Names are per tenant: beta's own model and session of the same names are its own (no
  // ALREADY_EXISTS that would tell beta alpha's exist).
  EXPECT_TRUE(Register(kBetaToken, kSecretSpec).ok());
  EXPECT_TRUE(Create(kBetaToken, "secret_oscillator", "mine").ok());
  EXPECT_EQ(Create(kAlphaToken, "secret_oscillator", "mine").error_code(),
            grpc::StatusCode::ALREADY_EXISTS);
  // The catalog is shared and read-only.
  EXPECT_TRUE(Simulate(kBetaToken, "pendulum").ok());
  v1::DeleteModelRequest remove;
  remove.set_name("models/pendulum");
  google::protobuf::Empty empty;
  EXPECT_EQ(stub_->DeleteModel(As(kBetaToken).get(), remove, &empty).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(Register(kBetaToken, OscillatorSpecNamed("pendulum")).error_code(),
            grpc::StatusCode::ALREADY_EXISTS);
}

TEST_F(AuthTest, ListsShowOnlyTheCallersOwn) {
  ASSERT_TRUE(Register(kAlphaToken, kSecretSpec).ok());
  ASSERT_TRUE(Create(kAlphaToken, "pendulum", "a1").ok());
  ASSERT_TRUE(Create(kAlphaToken, "pendulum", "a2").ok());
  ASSERT_TRUE(Create(kBetaToken, "pendulum", "b1").ok());
  auto sessions_of = [this](const std::string& token) {
    v1::ListSessionsResponse out;
    EXPECT_TRUE(stub_->ListSessions(As(token).get(), v1::ListSessionsRequest(), &out).ok());
    std::vector<std::string> names;
    for (const auto& s : out.sessions()) names.push_back(s.name());
    return names;
  };
  EXPECT_THAT(sessions_of(kAlphaToken), ::testing::ElementsAre("sessions/a1", "sessions/a2"));
  EXPECT_THAT(sessions_of(kBetaToken), ::testing::ElementsAre("sessions/b1"));
  // Paging stays within the tenant: alpha's page after a2 is empty although b1 sorts later.
  v1::ListSessionsRequest page;
  page.set_page_token("a2");
  v1::ListSessionsResponse rest;
  ASSERT_TRUE(stub_->ListSessions(As(kAlphaToken).get(), page, &rest).ok());
  EXPECT_EQ(rest.sessions_size(), 0);

  auto models_of = [this](const std::string& token) {
    v1::ListModelsResponse out;
    EXPECT_TRUE(ListModels(token, &out).ok());
    std::set<std::string> names;
    for (const auto& m : out.models()) names.insert(m.name());
    return names;
  };
  EXPECT_TRUE(models_of(kAlphaToken).count("models/secret_oscillator"));
  EXPECT_FALSE(models_of(kBetaToken).count("models/secret_oscillator"));
  EXPECT_TRUE(models_of(kBetaToken).count("models/pendulum"));
  EXPECT_EQ(models_of(kAlphaToken).size(), models_of(kBetaToken).size() + 1);
}

// The metrics name each tenant's usage (sessions, registered models, streams and their work),
// never a token; the server-wide totals cover everyone.
TEST_F(AuthTest, MetricsCountEachTenantsUsage) {
  ServerConfig config = Config();
  config.metrics_listen = "127.0.0.1:0";
  Restart(config);
  ASSERT_TRUE(Register(kAlphaToken, kSecretSpec).ok());
  ASSERT_TRUE(Create(kAlphaToken, "pendulum", "a1").ok());
  ASSERT_TRUE(Create(kAlphaToken, "pendulum", "a2").ok());
  ASSERT_TRUE(Create(kBetaToken, "pendulum", "b1").ok());
  ASSERT_TRUE(Simulate(kAlphaToken, "pendulum").ok());
  ASSERT_TRUE(Simulate(kAlphaToken, "pendulum").ok());
  ASSERT_TRUE(Simulate(kBetaToken, "pendulum").ok());

  const std::map<std::string, double> m = ScrapeMetricsWhenIdle(server_->metrics_port());
  auto at = [&m](const std::string& key) {
    const auto it = m.find(key);
    EXPECT_NE(it, m.end()) << key << " missing";
    return it == m.end() ? -1.0 : it->second;
  };
  EXPECT_EQ(at("tether_tenant_sessions{tenant=\"alpha\"}"), 2);
  EXPECT_EQ(at("tether_tenant_sessions{tenant=\"beta\"}"), 1);
  EXPECT_EQ(at("tether_tenant_registered_models{tenant=\"alpha\"}"), 1);
  EXPECT_EQ(m.count("tether_tenant_registered_models{tenant=\"beta\"}"), 0U);
  EXPECT_EQ(at("tether_registered_models"), 1);
  EXPECT_EQ(at("tether_tenant_streams_total{tenant=\"alpha\"}"), 2);
  EXPECT_EQ(at("tether_tenant_streams_total{tenant=\"beta\"}"), 1);
  EXPECT_EQ(at("tether_streams_total"), 3);
  // The same run twice for alpha, once for beta.
  const double beta_samples = at("tether_tenant_samples_sent_total{tenant=\"beta\"}");
  EXPECT_GT(beta_samples, 0);
  EXPECT_EQ(at("tether_tenant_samples_sent_total{tenant=\"alpha\"}"), 2 * beta_samples);
  EXPECT_EQ(at("tether_tenant_steps_total{tenant=\"alpha\"}") + at("tether_tenant_steps_total{tenant=\"beta\"}"),
            at("tether_steps_total"));
  const std::string text = HttpExchange(server_->metrics_port(), "GET /metrics HTTP/1.1\r\n\r\n");
  for (const std::string& token : {kAlphaToken, kBetaToken}) {
    EXPECT_THAT(text, Not(HasSubstr(token)));
  }

  // Every metric the shipped Grafana dashboard queries is a family this server declares (a
  // histogram's _bucket, _sum and _count series belong to the family of its base name).
  std::ifstream file(TETHER_GRAFANA_DASHBOARD);
  ASSERT_TRUE(file) << TETHER_GRAFANA_DASHBOARD;
  const nlohmann::json dashboard = nlohmann::json::parse(file);
  const std::regex metric(R"(\b((?:tether|grpc_server)_[a-z_]+))");
  std::size_t queried = 0;
  for (const auto& panel : dashboard.at("panels")) {
    for (const auto& target : panel.at("targets")) {
      const std::string expr = target.at("expr");
      for (std::sregex_iterator it(expr.begin(), expr.end(), metric), end; it != end; ++it) {
        ++queried;
        const std::string name = std::regex_replace(std::string((*it)[1]),
                                                    std::regex("_(bucket|sum|count)$"), "");
        EXPECT_THAT(text, HasSubstr("# TYPE " + name)) << "panel '" << panel.at("title").get<std::string>()
                                                    << "' queries " << name;
      }
    }
  }
  EXPECT_GT(queried, 10U);
}

TEST_F(AuthTest, QuotasArePerTenantAndNamed) {
  ServerConfig config = Config();
  config.tenant_max_sessions = 2;
  config.tenant_max_registered_models = 1;
  config.tenant_max_streams = 1;
  Restart(config);

  ASSERT_TRUE(Create(kAlphaToken, "pendulum", "a1").ok());
  ASSERT_TRUE(Create(kAlphaToken, "pendulum", "a2").ok());
  grpc::Status status = Create(kAlphaToken, "pendulum", "a3");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), HasSubstr("tenant_max_sessions = 2"));
  v1::ForkSessionRequest fork;
  fork.set_name("sessions/a1");
  v1::Session forked;
  status = stub_->ForkSession(As(kAlphaToken).get(), fork, &forked);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), HasSubstr("tenant_max_sessions"));
  EXPECT_TRUE(Create(kBetaToken, "pendulum", "b1").ok()) << "beta has its own quota";

  ASSERT_TRUE(Register(kAlphaToken, kSecretSpec).ok());
  const std::string other = OscillatorSpecNamed("other_oscillator");
  status = Register(kAlphaToken, other);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), HasSubstr("tenant_max_registered_models = 1"));
  EXPECT_TRUE(Register(kBetaToken, other).ok());

  // One open stream of alpha (paced at wall-clock speed, indefinite: it stays open) uses
  // alpha's stream quota, not beta's.
  v1::StreamStatesRequest request;
  request.set_name("sessions/a1");
  request.set_indefinite(true);
  request.set_realtime_factor(1.0);
  auto context = As(kAlphaToken);
  auto reader = stub_->StreamStates(context.get(), request);
  v1::StateChunk chunk;
  ASSERT_TRUE(reader->Read(&chunk));
  status = Simulate(kAlphaToken, "pendulum");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), HasSubstr("tenant_max_streams = 1"));
  EXPECT_TRUE(Simulate(kBetaToken, "pendulum").ok());
  context->TryCancel();
  while (reader->Read(&chunk)) {
  }
  reader->Finish();
  // The stream's end frees alpha's quota (the server releases it just after the call ends).
  bool freed = false;
  for (int i = 0; i < 200 && !freed; ++i) {  // bounded: 200 × 10 ms
    freed = Simulate(kAlphaToken, "pendulum").ok();
    if (!freed) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(freed);
}

TEST_F(AuthTest, TheTokenFileIsReReadWhenItChanges) {
  ASSERT_TRUE(ListModels(kAlphaToken).ok());
  ASSERT_EQ(ListModels(kGammaToken).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  WriteFile(token_file_, TokenLine("gamma", kGammaToken) + "\n");
  bool reread = false;
  for (int i = 0; i < 100 && !reread; ++i) {  // bounded: 100 × 50 ms; re-checked every second
    reread = ListModels(kGammaToken).ok();
    if (!reread) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(reread) << "the new token was not accepted within 5 s";
  EXPECT_EQ(ListModels(kAlphaToken).error_code(), grpc::StatusCode::UNAUTHENTICATED);

  // A change that does not parse keeps the tokens in force: whether or not the server looked
  // at the file yet (it does once a second, server/auth.h), gamma's token is accepted.
  WriteFile(token_file_, "gamma:not-hex:00\n");
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(ListModels(kGammaToken).ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
  }
}

TEST_F(AuthTest, BadTokenFilesAndPlaintextPortsAreRefusedByName) {
  ServerConfig config = Config();
  const std::string secret_hash = TokenLine("alpha", kAlphaToken);
  WriteFile(token_file_, TokenLine("beta", kBetaToken) + "\n" + secret_hash + ":extra\n");
  std::string error;
  EXPECT_EQ(Server::Start(config, &error), nullptr);
  EXPECT_THAT(error, HasSubstr("token_file '" + token_file_ + "': line 2: expected TENANT:SALT:HASH"));
  EXPECT_THAT(error, Not(HasSubstr(secret_hash.substr(secret_hash.rfind(':') + 1))));
  config.token_file = dir_ + "/missing";
  EXPECT_EQ(Server::Start(config, &error), nullptr);
  EXPECT_THAT(error, HasSubstr("token_file '" + dir_ + "/missing' cannot be read"));

  // Tokens are secrets: a plaintext TCP port with a token file needs the explicit opt-in.
  ServerConfig plaintext = Config();
  plaintext.listen = "127.0.0.1:0";
  EXPECT_FALSE(plaintext.IsValid(&error));
  EXPECT_THAT(error, HasSubstr("allow_insecure_tokens"));
  plaintext.allow_insecure_tokens = true;
  EXPECT_TRUE(plaintext.IsValid(&error)) << error;
  ServerConfig quota = Config();
  quota.tenant_max_streams = 0;
  EXPECT_FALSE(quota.IsValid(&error));
  EXPECT_THAT(error, HasSubstr("tenant_max_streams = 0; must be >= 1"));
}

// The binaries: tether-server's hash-token writes the line, the plaintext port needs
// --allow-insecure-tokens, the CLI sends --token-file's token, and no log line holds a token.
TEST(AuthProcessTest, HashTokenCliAndLogsWithoutTokens) {
  const std::string dir = ::testing::TempDir() + "tether_auth_process_" + std::to_string(::getpid());
  fs::create_directories(dir);
  const std::string tokens = dir + "/tokens";
  {
    // The token goes in on standard input, as an operator pipes it.
    const auto hashed = test::RunProcess(
        {"/bin/sh", "-c",
         "printf '%s\\n' '" + kAlphaToken + "' | '" TETHER_SERVER_BINARY "' hash-token --tenant alpha"},
        {}, std::chrono::seconds(30));
    ASSERT_EQ(hashed.exit_code, 0) << hashed.err;
    EXPECT_THAT(hashed.out, Not(HasSubstr(kAlphaToken)));
    std::ofstream(tokens) << hashed.out;
  }
  const auto refused = test::RunProcess({TETHER_SERVER_BINARY, "--listen", "127.0.0.1:0",
                                         "--token-file", tokens},
                                        {}, std::chrono::seconds(30));
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_THAT(refused.err, HasSubstr("allow_insecure_tokens"));

  ServerProcess server(TETHER_SERVER_BINARY, {"--token-file", tokens, "--allow-insecure-tokens"});
  const int port = server.WaitForPort();
  ASSERT_GT(port, 0) << server.Log();
  const std::string address = "127.0.0.1:" + std::to_string(port);
  const std::string token_file = dir + "/alpha.token";
  std::ofstream(token_file) << kAlphaToken << "\n";
  const std::string wrong_file = dir + "/wrong.token";
  std::ofstream(wrong_file) << kWrongToken << "\n";
  auto cli = [&](std::vector<std::string> args) {
    std::vector<std::string> argv = {TETHER_CLI_BINARY, "--server", address};
    argv.insert(argv.end(), args.begin(), args.end());
    return test::RunProcess(argv, {{"TETHER_SERVER", ""}, {"TETHER_TOKEN", ""}},
                            std::chrono::seconds(60));
  };
  const auto models = cli({"--token-file", token_file, "models"});
  EXPECT_EQ(models.exit_code, 0) << models.err;
  EXPECT_THAT(models.out, HasSubstr("pendulum"));
  const auto run = cli({"--token", kAlphaToken, "run", "pendulum", "--t-end", "0.1"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const auto wrong = cli({"--token-file", wrong_file, "models"});
  EXPECT_NE(wrong.exit_code, 0);
  EXPECT_THAT(wrong.err, Not(HasSubstr(kWrongToken)));
  EXPECT_NE(cli({"models"}).exit_code, 0);
  EXPECT_NE(cli({"--token", kAlphaToken, "--token-file", token_file, "models"}).exit_code, 0);

  server.Signal(SIGTERM);
  EXPECT_EQ(server.WaitForExit(std::chrono::seconds(20)), 0);
  const std::string log = server.Log();
  EXPECT_THAT(log, HasSubstr("\"tenant\":\"alpha\""));
  EXPECT_THAT(log, HasSubstr("UNAUTHENTICATED"));
  EXPECT_THAT(log, Not(HasSubstr(kAlphaToken)));
  EXPECT_THAT(log, Not(HasSubstr(kWrongToken)));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tether::server::testing
