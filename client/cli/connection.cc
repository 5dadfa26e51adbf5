#include "cli/connection.h"

#include <chrono>
#include <fstream>

#include "tether/server/flags.h"
#include "tether/server/server.h"

namespace tether::cli {

bool CliClientOptions(const CallFlags& flags, client::ClientOptions* options, std::string* why) {
  const std::vector<std::string>& metadata = flags.metadata;
  std::string token = flags.token;
  if (!flags.token_file.empty()) {
    if (!token.empty()) {
      *why = "--token and --token-file: give one of them";
      return false;
    }
    std::ifstream in(flags.token_file);
    if (!in) {
      *why = "--token-file '" + flags.token_file + "' cannot be read";
      return false;
    }
    // The first non-empty line without surrounding white space (a CR of a file written on
    // Windows, an editor's trailing newline or blank first line are not part of the token),
    // as the Python client's token_file reads it.
    constexpr const char* kSpace = " \t\r\n\v\f";
    std::string line;
    while (token.empty() && std::getline(in, line)) {
      const std::size_t first = line.find_first_not_of(kSpace);
      if (first != std::string::npos) {
        token = line.substr(first, line.find_last_not_of(kSpace) - first + 1);
      }
    }
    if (token.empty()) {
      *why = "--token-file '" + flags.token_file + "' holds no token (no non-empty line)";
      return false;
    }
  }
  // An unreachable --server should fail in about a second, not after the library's defaults:
  // a first connect that is refused fails at once, and the three retries wait 0.1 + 0.2 + 0.4 s.
  options->deadline = std::chrono::seconds(30);
  options->max_attempts = 4;
  for (const std::string& entry : metadata) {
    const std::size_t equals = entry.find('=');
    if (equals == std::string::npos || equals == 0) {
      *why = "--metadata '" + entry.substr(0, 64) + "': expected KEY=VALUE";
      return false;
    }
    options->metadata.emplace_back(entry.substr(0, equals), entry.substr(equals + 1));
  }
  if (!token.empty()) options->metadata.emplace_back("authorization", "Bearer " + token);
  const bool tls = flags.tls || !flags.tls_ca.empty() || !flags.tls_client_cert.empty() ||
                   !flags.tls_client_key.empty() || !flags.tls_server_name.empty();
  if (tls) {
    std::string problem;
    options->channel_credentials = client::TlsCredentialsFromFiles(
        flags.tls_ca, flags.tls_client_cert, flags.tls_client_key, &problem);
    if (options->channel_credentials == nullptr) {
      *why = "--tls-*: " + problem;
      return false;
    }
    options->tls_server_name = flags.tls_server_name;
  }
  std::string problem;
  if (!options->IsValid(&problem)) {
    *why = (token.empty() ? "--metadata: " : "--metadata/--token: ") + problem;
    return false;
  }
  return true;
}

std::unique_ptr<Connection> Connection::Open(const std::string& target,
                                             const client::ClientOptions& options,
                                             std::string* error) {
  std::unique_ptr<Connection> connection(new Connection());
  if (!target.empty()) {
    connection->client_ = std::make_unique<client::Client>(target, options);
    connection->description_ = target;
    return connection;
  }
  server::ServerConfig config;
  config.listen = "";       // in-process only: no port is opened
  config.log_rpcs = false;  // the per-RPC JSON log is for operators, not for a CLI user
  if (!server::ApplySpecLimitEnvironment(&config, error)) return nullptr;
  connection->embedded_ = server::Server::Start(config, error);
  if (connection->embedded_ == nullptr) return nullptr;
  connection->client_ =
      std::make_unique<client::Client>(connection->embedded_->InProcessChannel(), options);
  connection->description_ = "embedded server";
  return connection;
}

Connection::~Connection() {
  client_.reset();
  if (embedded_ != nullptr) embedded_->Shutdown(std::chrono::milliseconds(0));
}

}  // namespace tether::cli
