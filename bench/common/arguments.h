// The command line every benchmark accepts:
//   --quick          a tiny configuration that only checks the program builds and runs (ctest)
//   --results DIR    where <name>.json and <name>.md go (default: bench/results of the source tree)
//   --repeats N      timed repetitions per measurement, the minimum is kept (default 5; quick 1)
#pragma once

#include <string>

namespace tether::bench {

struct Arguments {
  bool quick = false;
  std::string results;  // directory
  int repeats = 5;
  std::string command;  // the command line as given, for the report
};

// Parses argv; on a bad or unknown flag returns false with the problem in `why`.
bool ParseArguments(int argc, char** argv, const std::string& default_results, Arguments* out,
                    std::string* why);

}  // namespace tether::bench
