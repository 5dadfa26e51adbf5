// How user text appears in messages: quoted, with non-printable bytes escaped, and cut to a
// bounded length, so that a 10 KB name or a binary key never makes a diagnostic (or the gRPC
// status carrying it) unbounded or unreadable. The one rule for every module that quotes what
// a client sent: names, ids, paths built from map keys.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace tether::expr {

// Bytes of user text a message quotes at most; the rest is summarized by its length.
inline constexpr std::size_t kMaxQuotedBytes = 64;

// `text` printable: bytes < 0x20, 0x7f and bytes that are not part of valid UTF-8 become
// "\xNN"; valid UTF-8 sequences are kept. If `text` is longer than `max_bytes`, its first
// `max_bytes` bytes (never splitting a UTF-8 sequence) are followed by "…(N bytes)", N the
// length of the whole of `text`.
std::string Printable(std::string_view text, std::size_t max_bytes = kMaxQuotedBytes);

// Offset of the first byte of `text` that is not part of a valid UTF-8 sequence (the reading of
// Printable), or nullopt when all of `text` is UTF-8: e.g. text for a protobuf string field.
std::optional<std::size_t> FirstInvalidUtf8(std::string_view text);

// "'" + Printable(text, max_bytes) + "'": 'length', 'aaaa…(10240 bytes)'.
std::string Quote(std::string_view text, std::size_t max_bytes = kMaxQuotedBytes);

}  // namespace tether::expr
