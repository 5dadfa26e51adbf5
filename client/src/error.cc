#include "tether/client/error.h"

#include <array>

#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"

namespace tether::client {

std::string_view StatusCodeName(grpc::StatusCode code) {
  // Indexed by the numeric code of google/rpc/code.proto (0 … 16).
  static constexpr std::array<std::string_view, 17> kNames = {
      "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
      "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
      "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
      "UNAUTHENTICATED"};
  const auto index = static_cast<std::size_t>(code);
  return index < kNames.size() ? kNames[index] : std::string_view("UNKNOWN_CODE");
}

Error Error::FromStatus(const grpc::Status& status) {
  Error error;
  error.code = status.error_code();
  error.message = status.error_message();
  if (status.error_details().empty()) return error;
  google::rpc::Status details;
  if (!details.ParseFromString(status.error_details())) return error;
  for (const google::protobuf::Any& any : details.details()) {
    google::rpc::BadRequest bad_request;
    google::rpc::ErrorInfo info;
    if (any.Is<google::rpc::BadRequest>() && any.UnpackTo(&bad_request)) {
      for (const auto& violation : bad_request.field_violations()) {
        error.violations.push_back({violation.field(), violation.description()});
      }
    } else if (any.Is<google::rpc::ErrorInfo>() && any.UnpackTo(&info)) {
      ErrorInfo decoded{info.reason(), info.domain(), {}};
      for (const auto& [key, value] : info.metadata()) decoded.metadata[key] = value;
      error.info = std::move(decoded);
    }
  }
  return error;
}

std::string Error::ToString() const {
  std::string text(StatusCodeName(code));
  if (!message.empty()) text += ": " + message;
  for (const FieldViolation& violation : violations) {
    std::string line = violation.field.empty() ? violation.description
                                               : violation.field + ": " + violation.description;
    // tether's server also spells each violation out in the message, for clients that do not
    // decode details; print it once.
    if (message.find(line) != std::string::npos) continue;
    text += "\n  " + line;
  }
  if (info.has_value()) {
    text += "\n  reason " + info->reason;
    for (const auto& [key, value] : info->metadata) text += ", " + key + " = " + value;
  }
  if (attempts > 1) text += "\n  (after " + std::to_string(attempts) + " attempts)";
  return text;
}

}  // namespace tether::client
