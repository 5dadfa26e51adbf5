// The error of a failed call: the gRPC status code and message plus the decoded rich details
// the tether server attaches (google.rpc.BadRequest for INVALID_ARGUMENT, google.rpc.ErrorInfo
// for numerical failures), printable for a human.
#pragma once

#include <grpcpp/support/status.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tether::client {

// One problem of a request: google.rpc.BadRequest.FieldViolation.
struct FieldViolation {
  std::string field;        // spec path or request field, e.g. "constraints[0]", "options.rtol"
  std::string description;  // e.g. "col 7: unknown name 'lenght' (did you mean 'length'?)"
};

// Why a run failed numerically: google.rpc.ErrorInfo.
struct ErrorInfo {
  std::string reason;  // e.g. "PROJECTION_FAILED"
  std::string domain;  // "tether.dev"
  std::map<std::string, std::string> metadata;  // "t", "residual_position", …
};

struct Error {
  grpc::StatusCode code = grpc::StatusCode::OK;
  std::string message;
  std::vector<FieldViolation> violations;  // every problem, in the server's order
  std::optional<ErrorInfo> info;
  int attempts = 1;  // calls made, > 1 when UNAVAILABLE was retried

  [[nodiscard]] bool ok() const { return code == grpc::StatusCode::OK; }
  // "INVALID_ARGUMENT: the spec has 2 problems" and then one indented line per violation
  // ("  constraints[0]: col 7: unknown name ..."), and the ErrorInfo reason and metadata.
  [[nodiscard]] std::string ToString() const;

  // Decodes a status, including google.rpc.Status details (unknown detail types are skipped;
  // undecodable details leave only code and message).
  static Error FromStatus(const grpc::Status& status);
};

// "OK", "INVALID_ARGUMENT", … as in google/rpc/code.proto.
std::string_view StatusCodeName(grpc::StatusCode code);

}  // namespace tether::client
