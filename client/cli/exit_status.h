// How a failed call becomes a message on stderr and an exit code (exit_codes.h).
#pragma once

#include <ostream>

#include "tether/client/error.h"

namespace tether::cli {

// UNAVAILABLE / DEADLINE_EXCEEDED → kExitServerUnreachable; INVALID_ARGUMENT, NOT_FOUND,
// ALREADY_EXISTS, OUT_OF_RANGE → kExitUsageError (the request was wrong); anything else →
// kExitSimulationFailed (the server could not do it).
int ExitCodeFor(const client::Error& error);

// Writes "tether: <what>: <error with one line per violation>" and returns ExitCodeFor(error).
int ReportError(std::ostream& err, const std::string& what, const client::Error& error);

}  // namespace tether::cli
