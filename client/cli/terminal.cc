#include "cli/terminal.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace tether::cli {

int TerminalColumns(int fd) {
  winsize size{};
  if (::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  if (const char* text = std::getenv("COLUMNS"); text != nullptr) {
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (end != text && *end == '\0' && value > 0 && value <= 10000) return static_cast<int>(value);
  }
  return kDefaultTerminalColumns;
}

std::string FitLine(const std::vector<std::string>& parts, int columns) {
  const auto room = static_cast<std::size_t>(std::max(columns - 1, 1));
  std::string line;
  for (const std::string& part : parts) {
    const std::size_t added = (line.empty() ? 0 : 2) + part.size();
    if (!line.empty() && line.size() + added > room) break;
    if (!line.empty()) line += "  ";
    line += part;
  }
  if (line.size() > room) line.resize(room);
  return line;
}

std::string DrawBar(double fraction, int inner) {
  const int width = std::max(inner, 0);
  const int filled =
      static_cast<int>(std::lround(std::clamp(fraction, 0.0, 1.0) * static_cast<double>(width)));
  return "[" + std::string(static_cast<std::size_t>(filled), '#') +
         std::string(static_cast<std::size_t>(width - filled), '.') + "]";
}

std::string ProgressLine(double fraction, const std::vector<std::string>& parts, int columns) {
  // The bar and its separator take inner + 4 columns: "[", "]" and two blanks.
  const int text = static_cast<int>(FitLine(parts, 1 << 20).size());
  const int inner = std::min(kMaxBarWidth, columns - 1 - text - 4);
  if (inner >= kMinBarWidth) return DrawBar(fraction, inner) + "  " + FitLine(parts, columns - inner - 4);
  const std::string rest = FitLine(parts, columns - kMinBarWidth - 4);
  if (!parts.empty() && rest.size() >= parts.front().size()) {
    return DrawBar(fraction, kMinBarWidth) + "  " + rest;
  }
  return FitLine(parts, columns);
}

}  // namespace tether::cli
