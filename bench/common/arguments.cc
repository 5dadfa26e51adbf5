#include "common/arguments.h"

#include <charconv>
#include <string_view>

namespace tether::bench {

bool ParseArguments(int argc, char** argv, const std::string& default_results, Arguments* out,
                    std::string* why) {
  Arguments arguments;
  arguments.results = default_results;
  bool repeats_given = false;
  for (int i = 0; i < argc; ++i) {
    if (i > 0) arguments.command += " ";
    arguments.command += argv[i];
  }
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    const bool has_value = i + 1 < argc;
    if (flag == "--quick") {
      arguments.quick = true;
    } else if (flag == "--results" && has_value) {
      arguments.results = argv[++i];
    } else if (flag == "--repeats" && has_value) {
      const std::string_view text = argv[++i];
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), arguments.repeats);
      if (error != std::errc() || end != text.data() + text.size() || arguments.repeats < 1) {
        *why = "--repeats " + std::string(text) + ": must be an integer >= 1";
        return false;
      }
      repeats_given = true;
    } else {
      *why = "unknown or incomplete flag '" + std::string(flag) +
             "'; usage: [--quick] [--results DIR] [--repeats N]";
      return false;
    }
  }
  if (arguments.quick && !repeats_given) arguments.repeats = 1;
  *out = arguments;
  return true;
}

}  // namespace tether::bench
