// Bearer tokens and the tenants they name (ServerConfig::token_file).
//
// The token file holds one token per line, never the token itself but a salted hash:
//
//   # comment; blank lines are ignored
//   TENANT:SALT:HASH
//
//   TENANT  [a-z][a-z0-9_-]{0,62}: who the token's calls act for (a tenant may have several)
//   SALT    1 to 64 hexadecimal digits, random per line (`tether-server hash-token` takes 16
//           random bytes, 32 digits)
//   HASH    64 hexadecimal digits: SHA-256 of the bytes SALT (its hex text as written) followed
//           by the token, i.e. `printf '%s%s' "$SALT" "$TOKEN" | sha256sum`
//
// A salt per line keeps equal tokens from having equal lines, and a stolen file from being
// matched against a table of precomputed hashes. Checking a token hashes it once per line
// (about 0.3 µs each), so a file of a few thousand tokens costs a call about a millisecond.
//
// The file is re-read when it changes (inode, size or modification time, looked at no more
// than once per kTokenRecheck, on use): a rotated Kubernetes secret takes effect without a
// restart. A change that does not parse keeps the previous tokens and is reported on stderr
// (line number and problem, never the line's text).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace tether::server {

// How often the token file is looked at for changes, at most.
inline constexpr std::chrono::milliseconds kTokenRecheck{1000};

// True iff `tenant` matches [a-z][a-z0-9_-]{0,62} (the model names' rule).
bool IsValidTenant(std::string_view tenant);

// A token file line "TENANT:SALT:HASH" for `token` with a fresh random salt; empty and *why if
// the tenant is malformed, the token empty, longer than 4096 bytes or holding whitespace or
// ':', or no random bytes could be had.
std::string HashTokenLine(std::string_view tenant, std::string_view token, std::string* why);

class TokenFile {
 public:
  // Reads `path`; nullptr and *error ("token_file '/x': line 3: …") if it cannot be read or
  // a line does not parse. A file without any token is valid (every call is refused).
  static std::unique_ptr<TokenFile> Open(const std::string& path, std::string* error);

  // The tenant of `token`, or nothing if no line matches. Re-reads the file first if it
  // changed (see above). Thread-safe.
  std::optional<std::string> Lookup(std::string_view token);

  [[nodiscard]] std::size_t size() const;

 private:
  struct Line {
    std::string tenant;
    std::string salt;
    unsigned char hash[32];
  };
  struct Stamp {
    ino_t inode = 0;
    off_t size = 0;
    std::int64_t mtime_ns = 0;
    bool operator==(const Stamp&) const = default;
  };
  explicit TokenFile(std::string path) : path_(std::move(path)) {}
  // Parses the file; false and *error naming the line if it does not.
  static bool Read(const std::string& path, std::vector<Line>* lines, Stamp* stamp,
                   std::string* error);
  void MaybeReload();

  const std::string path_;
  mutable std::mutex mutex_;
  std::shared_ptr<const std::vector<Line>> lines_;  // swapped whole on reload
  Stamp stamp_;
  std::chrono::steady_clock::time_point checked_;
};

}  // namespace tether::server
