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
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::NOT_FOUND:
    case grpc::StatusCode::ALREADY_EXISTS:
    case grpc::StatusCode::OUT_OF_RANGE:
      return kExitUsageError;
    default:
      return kExitSimulationFailed;
  }
}

int ReportError(std::ostream& err, const std::string& what, const client::Error& error) {
  err << "tether: " << what << ": " << error.ToString() << '\n';
  return ExitCodeFor(error);
}

}  // namespace tether::cli
