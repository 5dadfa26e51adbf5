#include "errors.h"

#include <charconv>
#include <cctype>

#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"

namespace tether::server {
namespace {

grpc::Status WithDetail(grpc::StatusCode code, std::string message,
                        const google::protobuf::Message& detail) {
  google::rpc::Status rich;
  rich.set_code(static_cast<int>(code));
  rich.set_message(message);
  rich.add_details()->PackFrom(detail);
  return grpc::Status(code, std::move(message), rich.SerializeAsString());
}

// "kProjectionFailed" style names come from the core as "projection_failed".
std::string UpperReason(std::string_view name) {
  std::string reason(name);
  for (char& c : reason) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return reason;
}

}  // namespace

grpc::Status Error(grpc::StatusCode code, std::string message) {
  return grpc::Status(code, std::move(message));
}

grpc::Status InvalidArgument(std::string_view summary,
                             const std::vector<FieldViolation>& violations) {
  google::rpc::BadRequest bad_request;
  std::string message(summary);
  for (const FieldViolation& v : violations) {
    auto* entry = bad_request.add_field_violations();
    entry->set_field(v.field);
    entry->set_description(v.description);
    message += "\n  " + v.field + ": " + v.description;
  }
  return WithDetail(grpc::StatusCode::INVALID_ARGUMENT, std::move(message), bad_request);
}

grpc::Status ErrorWithInfo(grpc::StatusCode code, std::string message, std::string reason,
                           const std::map<std::string, std::string>& metadata) {
  google::rpc::ErrorInfo info;
  info.set_reason(std::move(reason));
  info.set_domain(std::string(kErrorDomain));
  for (const auto& [key, value] : metadata) (*info.mutable_metadata())[key] = value;
  return WithDetail(code, std::move(message), info);
}

std::vector<FieldViolation> SpecViolations(const std::vector<model::SpecProblem>& problems,
                                           std::string_view prefix) {
  std::vector<FieldViolation> out;
  out.reserve(problems.size());
  for (const model::SpecProblem& p : problems) {
    std::string field = std::string(prefix) + (p.path.empty() ? "(document)" : p.path);
    if (p.column > 0) field += ", col " + std::to_string(p.column);
    out.push_back({std::move(field), p.message});
  }
  return out;
}

std::vector<FieldViolation> SetupViolations(const std::vector<simulate::SetupProblem>& problems) {
  std::vector<FieldViolation> out;
  out.reserve(problems.size());
  for (const simulate::SetupProblem& p : problems) out.push_back({p.path, p.message});
  return out;
}

v1::Termination TerminationToProto(simulate::Termination reason) {
  using simulate::Termination;
  switch (reason) {
    case Termination::kRunning: return v1::TERMINATION_UNSPECIFIED;
    case Termination::kReachedEnd: return v1::TERMINATION_REACHED_END;
    case Termination::kProjectionFailed: return v1::TERMINATION_PROJECTION_FAILED;
    case Termination::kSingularConstraints: return v1::TERMINATION_SINGULAR_CONSTRAINTS;
    case Termination::kStepSizeUnderflow: return v1::TERMINATION_STEP_SIZE_UNDERFLOW;
    case Termination::kNonFinite: return v1::TERMINATION_NON_FINITE;
    case Termination::kStepLimit: return v1::TERMINATION_STEP_LIMIT;
    case Termination::kCancelled: return v1::TERMINATION_CANCELLED;
    case Termination::kChattering: return v1::TERMINATION_CHATTERING;
  }
  return v1::TERMINATION_UNSPECIFIED;
}

grpc::Status TerminationStatus(const simulate::Status& status, const Residuals& last) {
  using simulate::Termination;
  grpc::StatusCode code = grpc::StatusCode::ABORTED;
  switch (status.reason) {
    case Termination::kRunning:
    case Termination::kReachedEnd:
      return grpc::Status::OK;
    case Termination::kCancelled:
      return Error(grpc::StatusCode::CANCELLED, "stream cancelled at t = " + FormatDouble(status.t));
    case Termination::kStepLimit:
      code = grpc::StatusCode::RESOURCE_EXHAUSTED;
      break;
    case Termination::kProjectionFailed:
    case Termination::kSingularConstraints:
    case Termination::kStepSizeUnderflow:
    case Termination::kNonFinite:
    case Termination::kChattering:
      code = grpc::StatusCode::ABORTED;
      break;
  }
  std::string message = status.message.empty()
                            ? std::string(simulate::TerminationName(status.reason)) + " at t = " +
                                  FormatDouble(status.t)
                            : status.message;
  std::map<std::string, std::string> metadata{{"t", FormatDouble(status.t)},
                                              {"residual_position", FormatDouble(last.position)},
                                              {"residual_velocity", FormatDouble(last.velocity)}};
  if (last.inequality) metadata["residual_inequality"] = FormatDouble(*last.inequality);
  return ErrorWithInfo(code, std::move(message),
                       UpperReason(simulate::TerminationName(status.reason)), metadata);
}

std::string FormatDouble(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

}  // namespace tether::server
