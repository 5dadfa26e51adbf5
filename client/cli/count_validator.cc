#include "cli/count_validator.h"

#include <charconv>
#include <string>
#include <system_error>

namespace tether::cli {

CLI::Validator WholeNumberIn(std::uint64_t least, std::uint64_t most) {
  const std::string range = std::to_string(least) + " to " + std::to_string(most);
  return CLI::Validator(
      [least, most, range](std::string& text) {
        std::uint64_t value = 0;
        const char* end = text.data() + text.size();
        const auto [stop, error] = std::from_chars(text.data(), end, value);
        if (error != std::errc() || stop != end || value < least || value > most) {
          return "must be a whole number from " + range + ", not " + text;
        }
        return std::string();
      },
      most == std::numeric_limits<std::uint64_t>::max()
          ? "COUNT >= " + std::to_string(least)
          : "COUNT " + std::to_string(least) + ".." + std::to_string(most));
}

}  // namespace tether::cli
