// The credentials of the server's listening port: plaintext, TLS, or mutual TLS, from the PEM
// files of ServerConfig (server.h), watched so that a rotated certificate is served to new
// connections without a restart.
//
// TLS uses gRPC's TlsServerCredentials with a FileWatcherCertificateProvider: the provider
// re-reads the key, the certificate chain and (for mTLS) the client CA bundle every
// tls_refresh and hands the handshakes the newest pair that parses; a half-written file is
// skipped until it parses. With a client CA the server requests and verifies a client
// certificate (GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY).
#pragma once

#include <memory>
#include <string>

#include <grpcpp/security/server_credentials.h>

#include "tether/server/server.h"

namespace tether::server {

// nullptr and *error naming the file and the problem when a configured PEM file cannot be
// read or holds no PEM block (the file watcher itself would only log and fail handshakes).
std::shared_ptr<grpc::ServerCredentials> ListeningCredentials(const ServerConfig& config,
                                                              std::string* error);

// "plaintext", "tls" or "mtls", for the startup log line.
std::string TransportName(const ServerConfig& config);

}  // namespace tether::server
