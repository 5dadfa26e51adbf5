#include "cli/spec_text.h"

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "tether/expr/quote.h"

namespace tether::cli {

bool ReadSpecText(const std::string& path, std::string* text, std::string* why) {
  std::ostringstream buffer;
  if (path == "-") {
    buffer << std::cin.rdbuf();
    if (std::cin.bad()) {
      *why = "cannot read the spec from standard input";
      return false;
    }
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      *why = "cannot read '" + path + "': " + std::strerror(errno);
      return false;
    }
    buffer << in.rdbuf();
  }
  *text = buffer.str();
  if (text->empty()) {
    *why = "'" + path + "' is empty";
    return false;
  }
  // A spec travels in a protobuf string field, which must be UTF-8: refuse other bytes here,
  // naming the first, rather than let the call fail in serialization.
  if (const auto bad = expr::FirstInvalidUtf8(*text)) {
    std::array<char, 8> byte{};
    std::snprintf(byte.data(), byte.size(), "0x%02x", static_cast<unsigned char>((*text)[*bad]));
    *why = "'" + path + "' is not UTF-8 text (byte " + byte.data() + " at offset " +
           std::to_string(*bad) + "), so not a JSON spec";
    return false;
  }
  return true;
}

}  // namespace tether::cli
