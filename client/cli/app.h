// The `tether` command line: parses arguments (CLI11) and runs one subcommand. main() only
// calls RunCli, so every behaviour is testable in-process.
#pragma once

#include <ostream>

namespace tether::cli {

// Returns the process exit code (exit_codes.h). `argv[0]` is the program name.
int RunCli(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace tether::cli
