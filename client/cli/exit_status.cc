#include "cli/exit_status.h"

#include "cli/exit_codes.h"

namespace tether::cli {

int ExitCodeFor(const client::Error& error) {
  switch (error.code) {
    case grpc::StatusCode::OK:
      return kExitOk;
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return kExitServerUnreachable;
    // The request itself is wrong: the user fixes the command line or the spec.
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::OUT_OF_RANGE:
      return kExitUsageError;
    // NOT_FOUND, ALREADY_EXISTS, FAILED_PRECONDITION, RESOURCE_EXHAUSTED, …: a well-formed
    // request the server refused in its present state (an unknown model, a taken name).
    default:
      return kExitSimulationFailed;
  }
}

int ReportError(std::ostream& err, const std::string& what, const client::Error& error) {
  err << "tether: " << what << ": " << error.ToString() << '\n';
  return ExitCodeFor(error);
}

}  // namespace tether::cli
