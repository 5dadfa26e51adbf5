#include "auth.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace tether::server {
namespace {

// Longest token accepted: far above any real bearer token (JWTs run to 1-2 KiB), and a
// bound on what one call makes us hash.
constexpr std::size_t kMaxTokenBytes = 4096;
// Longest salt, in hex digits.
constexpr std::size_t kMaxSaltDigits = 64;
// Random salt bytes per line that hash-token writes (128 bits: never repeated in practice).
constexpr int kSaltBytes = 16;

bool IsHex(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  });
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

std::string ToHex(const unsigned char* bytes, std::size_t n) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    out += kHex[bytes[i] >> 4];
    out += kHex[bytes[i] & 0xF];
  }
  return out;
}

// SHA-256(salt ‖ token).
void SaltedHash(std::string_view salt, std::string_view token, unsigned char out[32]) {
  std::string input;
  input.reserve(salt.size() + token.size());
  input.append(salt).append(token);
  SHA256(reinterpret_cast<const unsigned char*>(input.data()), input.size(), out);
  OPENSSL_cleanse(input.data(), input.size());  // the token's copy does not outlive the call
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

bool IsValidToken(std::string_view token, std::string* why) {
  if (token.empty()) {
    *why = "the token is empty";
    return false;
  }
  if (token.size() > kMaxTokenBytes) {
    *why = "the token has " + std::to_string(token.size()) + " bytes; at most " +
           std::to_string(kMaxTokenBytes);
    return false;
  }
  for (const char c : token) {
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f) {
      *why = "the token holds whitespace or a control character";
      return false;
    }
  }
  return true;
}

}  // namespace

bool IsValidTenant(std::string_view tenant) {
  if (tenant.empty() || tenant.size() > 63 || tenant[0] < 'a' || tenant[0] > 'z') return false;
  return std::all_of(tenant.begin(), tenant.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
  });
}

std::string HashTokenLine(std::string_view tenant, std::string_view token, std::string* why) {
  if (!IsValidTenant(tenant)) {
    *why = "tenant '" + std::string(tenant.substr(0, 64)) + "' must match [a-z][a-z0-9_-]{0,62}";
    return {};
  }
  if (!IsValidToken(token, why)) return {};
  unsigned char salt_bytes[kSaltBytes];
  if (RAND_bytes(salt_bytes, kSaltBytes) != 1) {
    *why = "no random bytes for the salt (OpenSSL RAND_bytes failed)";
    return {};
  }
  const std::string salt = ToHex(salt_bytes, kSaltBytes);
  unsigned char hash[32];
  SaltedHash(salt, token, hash);
  return std::string(tenant) + ":" + salt + ":" + ToHex(hash, 32);
}

bool TokenFile::Read(const std::string& path, std::vector<Line>* lines, Stamp* stamp,
                     std::string* error) {
  const std::string where = "token_file '" + path + "'";
  struct stat info {};
  std::ifstream in(path, std::ios::binary);
  if (!in || ::stat(path.c_str(), &info) != 0) {
    *error = where + " cannot be read";
    return false;
  }
  stamp->inode = info.st_ino;
  stamp->size = info.st_size;
  stamp->mtime_ns = static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 +
                    info.st_mtim.tv_nsec;
  lines->clear();
  std::string text;
  int number = 0;
  while (std::getline(in, text)) {
    ++number;
    const std::string_view line = Trim(text);
    if (line.empty() || line.front() == '#') continue;
    // The line's text is never quoted in an error: it is a credential's hash.
    const std::string at = where + ": line " + std::to_string(number) + ": ";
    const std::size_t first = line.find(':');
    const std::size_t second = first == std::string_view::npos ? first : line.find(':', first + 1);
    if (second == std::string_view::npos || line.find(':', second + 1) != std::string_view::npos) {
      *error = at + "expected TENANT:SALT:HASH (three fields separated by ':')";
      return false;
    }
    Line parsed;
    parsed.tenant = std::string(line.substr(0, first));
    parsed.salt = std::string(line.substr(first + 1, second - first - 1));
    const std::string_view hash = line.substr(second + 1);
    if (!IsValidTenant(parsed.tenant)) {
      *error = at + "the tenant must match [a-z][a-z0-9_-]{0,62}";
      return false;
    }
    if (parsed.salt.empty() || parsed.salt.size() > kMaxSaltDigits || !IsHex(parsed.salt)) {
      *error = at + "the salt must be 1 to " + std::to_string(kMaxSaltDigits) +
               " hexadecimal digits";
      return false;
    }
    if (hash.size() != 64 || !IsHex(hash)) {
      *error = at + "the hash must be 64 hexadecimal digits (SHA-256)";
      return false;
    }
    for (std::size_t i = 0; i < 32; ++i) {
      parsed.hash[i] =
          static_cast<unsigned char>(HexValue(hash[2 * i]) * 16 + HexValue(hash[2 * i + 1]));
    }
    lines->push_back(std::move(parsed));
  }
  return true;
}

std::unique_ptr<TokenFile> TokenFile::Open(const std::string& path, std::string* error) {
  std::unique_ptr<TokenFile> file(new TokenFile(path));
  auto lines = std::make_shared<std::vector<Line>>();
  if (!Read(path, lines.get(), &file->stamp_, error)) return nullptr;
  file->lines_ = std::move(lines);
  file->checked_ = std::chrono::steady_clock::now();
  return file;
}

void TokenFile::MaybeReload() {
  std::lock_guard lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  if (now - checked_ < kTokenRecheck) return;
  checked_ = now;
  struct stat info {};
  Stamp current;
  if (::stat(path_.c_str(), &info) == 0) {
    current.inode = info.st_ino;
    current.size = info.st_size;
    current.mtime_ns = static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 +
                       info.st_mtim.tv_nsec;
  }
  if (current == stamp_) return;
  auto lines = std::make_shared<std::vector<Line>>();
  std::string error;
  Stamp read;
  if (!Read(path_, lines.get(), &read, &error)) {
    // Reported once per change: the stamp moves on, the tokens stay.
    stamp_ = current;
    const nlohmann::json line = {{"level", "error"},
                                 {"event", "token_file"},
                                 {"message", error + "; the previous tokens stay in force"}};
    std::fprintf(stderr, "%s\n", line.dump(-1, ' ', false,
                                           nlohmann::json::error_handler_t::replace).c_str());
    return;
  }
  stamp_ = read;
  lines_ = std::move(lines);
}

std::optional<std::string> TokenFile::Lookup(std::string_view token) {
  std::string why;
  if (!IsValidToken(token, &why)) return std::nullopt;
  MaybeReload();
  std::shared_ptr<const std::vector<Line>> lines;
  {
    std::lock_guard lock(mutex_);
    lines = lines_;
  }
  // Every line is hashed and compared in constant time, whether or not one matched, so the
  // time taken tells nothing about which tenant or how many bytes matched.
  std::optional<std::string> tenant;
  for (const Line& line : *lines) {
    unsigned char hash[32];
    SaltedHash(line.salt, token, hash);
    if (CRYPTO_memcmp(hash, line.hash, sizeof hash) == 0 && !tenant) tenant = line.tenant;
  }
  return tenant;
}

std::size_t TokenFile::size() const {
  std::lock_guard lock(mutex_);
  return lines_->size();
}

}  // namespace tether::server
