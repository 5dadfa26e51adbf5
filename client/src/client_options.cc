#include "tether/client/client_options.h"

#include <fstream>
#include <sstream>

namespace tether::client {
namespace {

bool Fail(std::string* why, const std::string& message) {
  if (why != nullptr) *why = message;
  return false;
}

std::string Ms(std::chrono::milliseconds value) { return std::to_string(value.count()); }

// `text` for a message: at most 64 bytes, non-printable bytes as '?'.
std::string Quote(std::string_view text) {
  constexpr std::size_t kMax = 64;
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < kMax; ++i) {
    const char c = text[i];
    out += (c >= 0x20 && c <= 0x7e) ? c : '?';
  }
  if (text.size() > kMax) out += "...";
  return out;
}

}  // namespace

bool ClientOptions::IsValid(std::string* why) const {
  using std::chrono::milliseconds;
  if (deadline <= milliseconds(0)) {
    return Fail(why, "ClientOptions::deadline = " + Ms(deadline) + " ms; must be > 0");
  }
  if (stream_deadline < milliseconds(0)) {
    return Fail(why, "ClientOptions::stream_deadline = " + Ms(stream_deadline) + " ms; must be >= 0");
  }
  if (max_attempts < 1) {
    return Fail(why, "ClientOptions::max_attempts = " + std::to_string(max_attempts) + "; must be >= 1");
  }
  if (initial_backoff <= milliseconds(0)) {
    return Fail(why, "ClientOptions::initial_backoff = " + Ms(initial_backoff) + " ms; must be > 0");
  }
  if (max_backoff < initial_backoff) {
    return Fail(why, "ClientOptions::max_backoff = " + Ms(max_backoff) +
                         " ms; must be >= initial_backoff (" + Ms(initial_backoff) + " ms)");
  }
  if (!(backoff_multiplier >= 1.0)) {
    return Fail(why, "ClientOptions::backoff_multiplier = " + std::to_string(backoff_multiplier) +
                         "; must be >= 1");
  }
  for (std::size_t i = 0; i < metadata.size(); ++i) {
    const auto& [key, value] = metadata[i];
    std::string problem = MetadataKeyProblem(key);
    if (problem.empty()) problem = MetadataValueProblem(key, value);
    if (!problem.empty()) {
      return Fail(why, "ClientOptions::metadata[" + std::to_string(i) + "] (\"" + Quote(key) +
                           "\"): " + problem);
    }
  }
  return true;
}

namespace {

// The text of PEM file `path` (for option `what`); false and *why if it cannot be read or
// holds no PEM block.
bool ReadPem(const std::string& what, const std::string& path, std::string* text, std::string* why) {
  if (path.empty()) return true;
  std::ifstream in(path, std::ios::binary);
  if (!in) return Fail(why, what + " '" + path + "' cannot be read");
  std::stringstream buffer;
  buffer << in.rdbuf();
  *text = buffer.str();
  if (text->find("-----BEGIN ") == std::string::npos) {
    return Fail(why, what + " '" + path + "' holds no PEM block (-----BEGIN ...)");
  }
  return true;
}

}  // namespace

std::shared_ptr<grpc::ChannelCredentials> TlsCredentialsFromFiles(const std::string& ca_file,
                                                                 const std::string& cert_file,
                                                                 const std::string& key_file,
                                                                 std::string* why) {
  if (cert_file.empty() != key_file.empty()) {
    Fail(why, "a client certificate and its key go together (mutual TLS): give both or neither");
    return nullptr;
  }
  grpc::SslCredentialsOptions options;
  if (!ReadPem("CA file", ca_file, &options.pem_root_certs, why) ||
      !ReadPem("client certificate", cert_file, &options.pem_cert_chain, why) ||
      !ReadPem("client key", key_file, &options.pem_private_key, why)) {
    return nullptr;
  }
  return grpc::SslCredentials(options);
}

std::string MetadataKeyProblem(std::string_view key) {
  if (key.empty()) return "the key is empty";
  for (const char c : key) {
    const bool allowed = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                         c == '_' || c == '.';
    if (!allowed) return "a metadata key may hold only lowercase letters, digits, '-', '_' and '.'";
  }
  if (key.substr(0, 5) == "grpc-") return "keys starting with \"grpc-\" are reserved by gRPC";
  if (key == kRoutingKeyHeader) {
    return "the client sets " + std::string(kRoutingKeyHeader) +
           " itself, per session (Client::SetRoutingKey)";
  }
  return "";
}

std::string MetadataValueProblem(std::string_view key, std::string_view value) {
  if (key.size() >= 4 && key.substr(key.size() - 4) == "-bin") return "";  // binary: any bytes
  for (const char c : value) {
    if (c < 0x20 || c > 0x7e) {
      return "the value holds a byte outside printable ASCII (0x20-0x7e); binary values need "
             "a key ending in \"-bin\"";
    }
  }
  return "";
}

}  // namespace tether::client
