#include "cli/connection.h"

#include <chrono>

#include "tether/server/server.h"

namespace tether::cli {
namespace {

// An unreachable --server should fail in about a second, not after the library's defaults:
// a first connect that is refused fails at once, and the three retries wait 0.1 + 0.2 + 0.4 s.
client::ClientOptions CliClientOptions() {
  client::ClientOptions options;
  options.deadline = std::chrono::seconds(30);
  options.max_attempts = 4;
  return options;
}

}  // namespace

std::unique_ptr<Connection> Connection::Open(const std::string& target, std::string* error) {
  std::unique_ptr<Connection> connection(new Connection());
  if (!target.empty()) {
    connection->client_ = std::make_unique<client::Client>(target, CliClientOptions());
    connection->description_ = target;
    return connection;
  }
  server::ServerConfig config;
  config.listen = "";       // in-process only: no port is opened
  config.log_rpcs = false;  // the per-RPC JSON log is for operators, not for a CLI user
  connection->embedded_ = server::Server::Start(config, error);
  if (connection->embedded_ == nullptr) return nullptr;
  connection->client_ =
      std::make_unique<client::Client>(connection->embedded_->InProcessChannel(), CliClientOptions());
  connection->description_ = "embedded server";
  return connection;
}

Connection::~Connection() {
  client_.reset();
  if (embedded_ != nullptr) embedded_->Shutdown(std::chrono::milliseconds(0));
}

}  // namespace tether::cli
