#include "transport_security.h"

#include <fstream>
#include <sstream>

#include <grpcpp/security/tls_certificate_provider.h>
#include <grpcpp/security/tls_credentials_options.h>

namespace tether::server {
namespace {

// Why `path` (the value of `field`) is not a usable PEM file; "" if it is.
std::string PemProblem(const std::string& field, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return field + " '" + path + "' cannot be read";
  std::stringstream text;
  text << in.rdbuf();
  if (text.str().find("-----BEGIN ") == std::string::npos) {
    return field + " '" + path + "' holds no PEM block (-----BEGIN ...)";
  }
  return "";
}

}  // namespace

std::string TransportName(const ServerConfig& config) {
  if (config.tls_cert_file.empty()) return "plaintext";
  return config.tls_client_ca_file.empty() ? "tls" : "mtls";
}

std::shared_ptr<grpc::ServerCredentials> ListeningCredentials(const ServerConfig& config,
                                                              std::string* error) {
  if (config.tls_cert_file.empty()) return grpc::InsecureServerCredentials();
  for (const auto& [field, path] : {std::pair{"tls_cert_file", config.tls_cert_file},
                                    std::pair{"tls_key_file", config.tls_key_file},
                                    std::pair{"tls_client_ca_file", config.tls_client_ca_file}}) {
    if (path.empty()) continue;
    if (std::string problem = PemProblem(field, path); !problem.empty()) {
      *error = problem;
      return nullptr;
    }
  }
  const auto refresh = static_cast<unsigned int>(config.tls_refresh.count());
  const bool mutual = !config.tls_client_ca_file.empty();
  auto provider =
      mutual ? std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
                   config.tls_key_file, config.tls_cert_file, config.tls_client_ca_file, refresh)
             : std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
                   config.tls_key_file, config.tls_cert_file, refresh);
  grpc::experimental::TlsServerCredentialsOptions options(provider);
  options.watch_identity_key_cert_pairs();
  if (mutual) {
    options.watch_root_certs();
    options.set_cert_request_type(GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  }
  return grpc::experimental::TlsServerCredentials(options);
}

}  // namespace tether::server
