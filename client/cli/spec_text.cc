#include "cli/spec_text.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

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
  return true;
}

}  // namespace tether::cli
