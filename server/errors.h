// gRPC statuses with google.rpc details (BadRequest, ErrorInfo), and the one place where a
// core termination reason becomes a gRPC code.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <grpcpp/support/status.h>

#include "tether/model/model.h"
#include "tether/simulate/simulation.h"
#include "tether/v1/simulation_service.pb.h"

namespace tether::server {

// The ErrorInfo domain of every tether error.
inline constexpr std::string_view kErrorDomain = "tether.dev";

// One entry of google.rpc.BadRequest: the request field (or spec path) and what is wrong.
struct FieldViolation {
  std::string field;
  std::string description;
};

// A status with no details.
grpc::Status Error(grpc::StatusCode code, std::string message);
// INVALID_ARGUMENT carrying google.rpc.BadRequest with every violation; the message is
// `summary` followed by the violations, one per line, so that a client without detail
// decoding still sees them all.
grpc::Status InvalidArgument(std::string_view summary, const std::vector<FieldViolation>& violations);
// `code` carrying google.rpc.ErrorInfo{reason, domain kErrorDomain, metadata}.
grpc::Status ErrorWithInfo(grpc::StatusCode code, std::string message, std::string reason,
                           const std::map<std::string, std::string>& metadata);

// Spec problems as violations; the field is "<prefix><path>, col <c>" when in an expression.
std::vector<FieldViolation> SpecViolations(const std::vector<model::SpecProblem>& problems,
                                           std::string_view prefix);
// Setup problems ("options.rtol", "parameters.mass") as violations.
std::vector<FieldViolation> SetupViolations(const std::vector<simulate::SetupProblem>& problems);

v1::Termination TerminationToProto(simulate::Termination reason);

// A sample's residuals (simulate::Sample), as a stream's summary and ErrorInfo report them.
struct Residuals {
  double position = 0.0;
  double velocity = 0.0;
  std::optional<double> inequality;  // set iff the model has inequalities
};

// The final status of a stream that ended with `status` (the one mapping, shared/DESIGN.md §4):
//   kReachedEnd → OK; kCancelled → CANCELLED; kStepLimit → RESOURCE_EXHAUSTED;
//   kProjectionFailed, kSingularConstraints, kStepSizeUnderflow, kNonFinite, kChattering →
//   ABORTED;
// every non-OK one with ErrorInfo{reason "PROJECTION_FAILED" …, metadata t and the residuals of
// the last good sample: residual_position, residual_velocity and, for models with inequalities,
// residual_inequality}.
grpc::Status TerminationStatus(const simulate::Status& status, const Residuals& last);

// "1.5e-09": shortest text that reads back as the same double.
std::string FormatDouble(double value);

}  // namespace tether::server
