// The server a command talks to: a remote one (--server HOST:PORT or TETHER_SERVER), or an
// embedded in-process server started for this command alone, so `tether run pendulum` needs
// no setup. An embedded server lives as long as the Connection.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tether/client/client.h"

namespace tether::server {
class Server;
}

namespace tether::cli {

// What the global flags say about every call: metadata entries "KEY=VALUE" (--metadata), a
// bearer token (--token, or the first non-empty line of --token-file), and TLS (--tls-ca, --tls-client-cert/--tls-client-key for mutual
// TLS, --tls-server-name; --tls alone trusts the system's roots).
struct CallFlags {
  std::vector<std::string> metadata;
  std::string token;
  std::string token_file;
  bool tls = false;
  std::string tls_ca;
  std::string tls_client_cert;
  std::string tls_client_key;
  std::string tls_server_name;
};

// The client options of every command: short deadlines (an unreachable --server fails in
// about a second) and the flags above. false and *why naming the bad flag or entry.
bool CliClientOptions(const CallFlags& flags, client::ClientOptions* options, std::string* why);

class Connection {
 public:
  // `target` "host:port", or empty for an embedded server. nullptr and *error set when the
  // embedded server cannot start.
  static std::unique_ptr<Connection> Open(const std::string& target,
                                          const client::ClientOptions& options, std::string* error);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  client::Client& client() { return *client_; }
  [[nodiscard]] bool embedded() const { return embedded_ != nullptr; }
  // "127.0.0.1:50051" or "embedded server", for messages.
  [[nodiscard]] const std::string& description() const { return description_; }

 private:
  Connection() = default;
  std::unique_ptr<server::Server> embedded_;  // declared first: destroyed after the client
  std::unique_ptr<client::Client> client_;
  std::string description_;
};

}  // namespace tether::cli
