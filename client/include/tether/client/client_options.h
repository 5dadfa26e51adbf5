// How a Client calls: deadlines, the retry policy of unary calls, and what every call carries
// (transport and call credentials, the caller's own metadata).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <grpcpp/security/credentials.h>

namespace tether::client {

struct ClientOptions {
  // Deadline of each attempt of a unary call (ListModels, CreateSession, …) [ms], > 0.
  std::chrono::milliseconds deadline{30000};
  // Deadline of a whole stream (StreamStates, Simulate) [ms]; 0 = none (a stream may run long).
  std::chrono::milliseconds stream_deadline{0};
  // Unary calls that fail with UNAVAILABLE (and only those: the others would fail again, or
  // may have had an effect) are retried up to this many attempts in total, ≥ 1.
  int max_attempts = 4;
  // Wait before the 2nd attempt [ms], > 0; each further wait is `backoff_multiplier` times the
  // previous one, capped at `max_backoff`. Defaults: 100, 200, 400 ms → ≤ 0.7 s before giving up.
  std::chrono::milliseconds initial_backoff{100};
  std::chrono::milliseconds max_backoff{2000};  // ≥ initial_backoff
  double backoff_multiplier = 2.0;              // ≥ 1

  // Transport security of a Client built from a target string, e.g.
  // grpc::SslCredentials({.pem_root_certs = ca}); nullptr = plaintext. Ignored by the
  // constructor that takes a channel (the channel already has its credentials).
  std::shared_ptr<grpc::ChannelCredentials> channel_credentials;
  // The name the server's certificate must carry, when it is not the target's host (a server
  // reached by IP address, or through a tunnel); empty = the target's host.
  std::string tls_server_name;
  // Credentials attached to every call, e.g. grpc::AccessTokenCredentials(token). gRPC sends
  // them only over a secure channel: on plaintext the call fails with UNAVAILABLE rather than
  // leak the secret. For a token that must reach a plaintext proxy, use `metadata`.
  std::shared_ptr<grpc::CallCredentials> call_credentials;
  // Metadata sent with every call, in order: {"authorization", "Bearer …"}, a tenant header, …
  // Keys are lowercase [0-9a-z._-], not "grpc-…" (reserved) and not the routing header (the
  // client sets it per session); values are printable ASCII unless the key ends in "-bin".
  std::vector<std::pair<std::string, std::string>> metadata;

  // Checks every field; on failure writes "ClientOptions::max_attempts = 0; must be >= 1".
  bool IsValid(std::string* why) const;
};

// The metadata key that routes a session's calls to its replica behind the session proxy
// (deploy/README.md). Its value is the session's routing key: the root session's id.
inline constexpr std::string_view kRoutingKeyHeader = "x-tether-session";

// TLS credentials from PEM files: the CAs that sign the server's certificate (empty = the
// system's roots) and, for mutual TLS, the client's certificate chain and key (both or
// neither). nullptr and *why naming the file when one cannot be read.
std::shared_ptr<grpc::ChannelCredentials> TlsCredentialsFromFiles(const std::string& ca_file,
                                                                 const std::string& cert_file,
                                                                 const std::string& key_file,
                                                                 std::string* why);

// Why `key` cannot be a metadata key of ClientOptions::metadata ("" if it can).
std::string MetadataKeyProblem(std::string_view key);
// Why `value` cannot be the value of metadata key `key` ("" if it can).
std::string MetadataValueProblem(std::string_view key, std::string_view value);

}  // namespace tether::client
