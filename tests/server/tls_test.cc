// Transport security against real loopback servers, with certificates made by openssl at test
// time (make_test_certs.sh): TLS, a plaintext or untrusting client refused, the server-name
// override, mutual TLS, a certificate rotated on disk, the plaintext health-only port, bad
// configuration named, and the CLI against a TLS tether-server process.
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "client/process.h"
#include "tether/client/client.h"
#include "tether/server/server.h"

namespace tether::server {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class TlsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = (fs::temp_directory_path() / ("tether_tls_" + std::to_string(getpid()))).string();
    fs::create_directories(dir_);
    const std::string command = std::string("timeout 60 sh ") + TETHER_CERT_SCRIPT + " " + dir_;
    certs_ok_ = std::system(command.c_str()) == 0;
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  void SetUp() override { ASSERT_TRUE(certs_ok_) << "make_test_certs.sh failed in " << dir_; }

  static std::string Pem(const std::string& name) { return dir_ + "/" + name + ".pem"; }
  static std::string Key(const std::string& name) { return dir_ + "/" + name + ".key"; }

  static ServerConfig TlsConfig(const std::string& cert) {
    ServerConfig config;
    config.listen = "127.0.0.1:0";
    config.log_rpcs = false;
    config.worker_threads = 2;
    config.tls_cert_file = Pem(cert);
    config.tls_key_file = Key(cert);
    return config;
  }
  static std::unique_ptr<Server> MustStart(const ServerConfig& config) {
    std::string error;
    auto server = Server::Start(config, &error);
    EXPECT_NE(server, nullptr) << error;
    return server;
  }
  static client::ClientOptions Options(const std::string& ca, const std::string& client_cert = {}) {
    client::ClientOptions options;
    options.deadline = std::chrono::seconds(10);
    options.max_attempts = 1;
    std::string why;
    options.channel_credentials = client::TlsCredentialsFromFiles(
        ca.empty() ? "" : Pem(ca), client_cert.empty() ? "" : Pem(client_cert),
        client_cert.empty() ? "" : Key(client_cert), &why);
    EXPECT_NE(options.channel_credentials, nullptr) << why;
    return options;
  }
  static std::string Target(const Server& server) {
    return "127.0.0.1:" + std::to_string(server.port());
  }
  static grpc::StatusCode ListModelsCode(const std::string& target, client::ClientOptions options) {
    client::Client client(target, std::move(options));
    return client.ListModels().error().code;
  }

  static inline std::string dir_;
  static inline bool certs_ok_ = false;
};

TEST_F(TlsTest, StreamsToATrustingClientAndRefusesOthers) {
  auto server = MustStart(TlsConfig("server1"));
  ASSERT_NE(server, nullptr);
  client::Client trusting(Target(*server), Options("ca1"));
  v1::SimulateRequest request;
  request.set_model("pendulum");
  request.mutable_options()->set_t_end(0.1);
  const client::StreamEnd end = trusting.Simulate(request, {});
  EXPECT_TRUE(end.ok()) << end.error.ToString();
  EXPECT_GT(end.samples, 1U);

  client::ClientOptions plaintext;
  plaintext.deadline = std::chrono::seconds(5);
  plaintext.max_attempts = 1;
  EXPECT_EQ(ListModelsCode(Target(*server), plaintext), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(ListModelsCode(Target(*server), Options("ca2")), grpc::StatusCode::UNAVAILABLE);
}

TEST_F(TlsTest, ServerNameOverrideChecksTheGivenName) {
  auto server = MustStart(TlsConfig("named"));  // certificate for tether.internal only
  ASSERT_NE(server, nullptr);
  EXPECT_EQ(ListModelsCode(Target(*server), Options("ca1")), grpc::StatusCode::UNAVAILABLE);
  client::ClientOptions named = Options("ca1");
  named.tls_server_name = "tether.internal";
  EXPECT_EQ(ListModelsCode(Target(*server), named), grpc::StatusCode::OK);
  named.tls_server_name = "other.internal";
  EXPECT_EQ(ListModelsCode(Target(*server), named), grpc::StatusCode::UNAVAILABLE);
}

TEST_F(TlsTest, MutualTlsRequiresACertificateFromTheClientCa) {
  ServerConfig config = TlsConfig("server1");
  config.tls_client_ca_file = Pem("clientca");
  auto server = MustStart(config);
  ASSERT_NE(server, nullptr);
  EXPECT_EQ(ListModelsCode(Target(*server), Options("ca1")), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(ListModelsCode(Target(*server), Options("ca1", "foreign")), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(ListModelsCode(Target(*server), Options("ca1", "client")), grpc::StatusCode::OK);
}

TEST_F(TlsTest, ARotatedCertificateIsServedWithoutARestart) {
  const std::string live = dir_ + "/live";
  fs::create_directories(live);
  fs::copy_file(Pem("server1"), live + "/cert.pem", fs::copy_options::overwrite_existing);
  fs::copy_file(Key("server1"), live + "/key.pem", fs::copy_options::overwrite_existing);
  ServerConfig config = TlsConfig("server1");
  config.tls_cert_file = live + "/cert.pem";
  config.tls_key_file = live + "/key.pem";
  config.tls_refresh = std::chrono::seconds(1);
  auto server = MustStart(config);
  ASSERT_NE(server, nullptr);
  ASSERT_EQ(ListModelsCode(Target(*server), Options("ca1")), grpc::StatusCode::OK);
  ASSERT_EQ(ListModelsCode(Target(*server), Options("ca2")), grpc::StatusCode::UNAVAILABLE);

  // Renamed into place, as a Kubernetes secret update does (an atomic swap per file).
  fs::copy_file(Key("server2"), live + "/key.new", fs::copy_options::overwrite_existing);
  fs::copy_file(Pem("server2"), live + "/cert.new", fs::copy_options::overwrite_existing);
  fs::rename(live + "/key.new", live + "/key.pem");
  fs::rename(live + "/cert.new", live + "/cert.pem");
  bool rotated = false;
  for (int i = 0; i < 60 && !rotated; ++i) {  // bounded: 60 × 250 ms, refresh is 1 s
    rotated = ListModelsCode(Target(*server), Options("ca2")) == grpc::StatusCode::OK;
    if (!rotated) std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  EXPECT_TRUE(rotated) << "the new certificate was not served within 15 s";
  EXPECT_EQ(ListModelsCode(Target(*server), Options("ca1")), grpc::StatusCode::UNAVAILABLE);
}

TEST_F(TlsTest, ThePlaintextHealthPortServesHealthOnly) {
  ServerConfig config = TlsConfig("server1");
  config.health_listen = "127.0.0.1:0";
  auto server = MustStart(config);
  ASSERT_NE(server, nullptr);
  ASSERT_GT(server->health_port(), 0);
  client::ClientOptions plaintext;
  plaintext.deadline = std::chrono::seconds(5);
  plaintext.max_attempts = 1;
  client::Client probe("127.0.0.1:" + std::to_string(server->health_port()), plaintext);
  for (const std::string name : {"", "tether.v1.SimulationService"}) {
    const auto health = probe.Health(name);
    ASSERT_TRUE(health.ok()) << name << ": " << health.error().ToString();
    EXPECT_EQ(*health, client::HealthStatus::kServing) << name;
  }
  EXPECT_EQ(probe.ListModels().error().code, grpc::StatusCode::UNIMPLEMENTED);
}

TEST_F(TlsTest, BadConfigurationIsNamed) {
  ServerConfig missing = TlsConfig("server1");
  missing.tls_cert_file = dir_ + "/nope.pem";
  std::string error;
  EXPECT_EQ(Server::Start(missing, &error), nullptr);
  EXPECT_THAT(error, HasSubstr("tls_cert_file '" + dir_ + "/nope.pem' cannot be read"));

  ServerConfig not_pem = TlsConfig("server1");
  not_pem.tls_key_file = dir_ + "/server1.ext";
  EXPECT_EQ(Server::Start(not_pem, &error), nullptr);
  EXPECT_THAT(error, HasSubstr("holds no PEM block"));

  ServerConfig no_key = TlsConfig("server1");
  no_key.tls_key_file.clear();
  EXPECT_FALSE(no_key.IsValid(&error));
  EXPECT_THAT(error, HasSubstr("tls_key_file"));
  ServerConfig ca_alone;
  ca_alone.tls_client_ca_file = Pem("clientca");
  EXPECT_FALSE(ca_alone.IsValid(&error));
  EXPECT_THAT(error, HasSubstr("tls_client_ca_file"));
}

// The binaries: tether-server with TLS flags, the CLI with --tls-ca / client certificates.
TEST_F(TlsTest, CliAgainstATlsServerProcess) {
  const int port = test::FreeLoopbackPort();
  ASSERT_GT(port, 0);
  const std::string address = "127.0.0.1:" + std::to_string(port);
  const std::string log = dir_ + "/server.log";
  test::ChildProcess server({TETHER_SERVER_PATH, "--listen", address, "--quiet", "--tls-cert",
                             Pem("server1"), "--tls-key", Key("server1"), "--tls-client-ca",
                             Pem("clientca")},
                            log);
  const std::vector<std::string> mtls = {"--tls-ca", Pem("ca1"), "--tls-client-cert",
                                         Pem("client"), "--tls-client-key", Key("client")};
  auto cli = [&](std::vector<std::string> tls, std::vector<std::string> command) {
    std::vector<std::string> argv = {TETHER_CLI_PATH, "--server", address};
    argv.insert(argv.end(), tls.begin(), tls.end());
    argv.insert(argv.end(), command.begin(), command.end());
    return test::RunProcess(argv, {{"TETHER_SERVER", ""}}, std::chrono::seconds(60));
  };
  bool up = false;
  for (int i = 0; i < 100 && !up; ++i) {  // bounded: 100 × 100 ms
    up = cli(mtls, {"health"}).exit_code == 0;
    if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(up) << test::ReadWholeFile(log);
  const auto models = cli(mtls, {"models"});
  EXPECT_EQ(models.exit_code, 0) << models.err;
  EXPECT_THAT(models.out, HasSubstr("pendulum"));
  EXPECT_EQ(cli({"--tls-ca", Pem("ca1")}, {"models"}).exit_code, 3) << "no client certificate";
  EXPECT_EQ(cli({}, {"models"}).exit_code, 3) << "plaintext";
  const auto missing = cli({"--tls-ca", dir_ + "/nope.pem"}, {"models"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("nope.pem' cannot be read"));
  EXPECT_EQ(server.Stop(), 0);
}

}  // namespace
}  // namespace tether::server
