#include "tether/expr/quote.h"

#include <algorithm>
#include <cstdio>

namespace tether::expr {
namespace {

// Length of the valid UTF-8 sequence starting at text[i] (RFC 3629: no overlong forms, no
// surrogates, at most U+10FFFF), or 0 if the byte there does not start one.
std::size_t Utf8Length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b0 = byte(i);
  std::size_t length = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xbf;
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    length = 2;
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    length = 3;
    if (b0 == 0xe0) low = 0xa0;
    if (b0 == 0xed) high = 0x9f;
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    length = 4;
    if (b0 == 0xf0) low = 0x90;
    if (b0 == 0xf4) high = 0x8f;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (std::size_t k = 2; k < length; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xbf) return 0;
  }
  return length;
}

}  // namespace

std::string Printable(std::string_view text, std::size_t max_bytes) {
  std::string out;
  out.reserve(std::min(text.size(), max_bytes) + 24);
  std::size_t i = 0;
  while (i < text.size()) {
    const auto b = static_cast<unsigned char>(text[i]);
    std::size_t length = 1;
    if (b >= 0x80) length = Utf8Length(text, i);
    if (i + std::max<std::size_t>(length, 1) > max_bytes) break;
    if (b < 0x20 || b == 0x7f || length == 0) {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", b);
      out += escaped;
      ++i;
      continue;
    }
    out.append(text.substr(i, length));
    i += length;
  }
  if (i < text.size()) out += "…(" + std::to_string(text.size()) + " bytes)";
  return out;
}

std::optional<std::size_t> FirstInvalidUtf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const bool ascii = static_cast<unsigned char>(text[i]) < 0x80;
    const std::size_t length = ascii ? 1 : Utf8Length(text, i);
    if (length == 0) return i;
    i += length;
  }
  return std::nullopt;
}

std::string Quote(std::string_view text, std::size_t max_bytes) {
  return "'" + Printable(text, max_bytes) + "'";
}

}  // namespace tether::expr
