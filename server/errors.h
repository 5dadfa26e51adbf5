// gRPC statuses with google.rpc details (BadRequest, ErrorInfo), and the one place where a
// core termination reason becomes a gRPC code.
//
// Every status the service returns is bounded, whatever the request: a default gRPC client
// accepts at most 8 KiB of response metadata, and the status message (grpc-message) and its
// details (grpc-status-details-bin, base64) travel there. A larger error would reach the
// client as RESOURCE_EXHAUSTED and lose its real code. So:
//   - user text is quoted through expr::Quote (64 bytes, then "…(N bytes)");
//   - a BadRequest lists at most kMaxViolations problems, then one entry "and N more problems";
//   - message + serialized details stay below kMaxErrorBytes (4 KiB, half the client's limit,
//     leaving room for base64's 4/3 and percent-encoding of the few non-ASCII characters):
//     descriptions are cut, and trailing violations dropped into the "and N more" entry, until
//     they fit. The code is never changed.
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

// Status message + serialized details of every error stay below this [bytes].
inline constexpr std::size_t kMaxErrorBytes = 4096;
// Problems one BadRequest lists at most before "and N more problems".
inline constexpr std::size_t kMaxViolations = 50;
// One violation's field path and description are cut to these [bytes] (before the total
// budget, which may cut further); a description quotes user text, so it is short anyway.
inline constexpr std::size_t kMaxFieldBytes = 160;
inline constexpr std::size_t kMaxDescriptionBytes = 480;

// `text` with user input quoted the one way (tether/expr/quote.h): "'name'", at most 64 bytes.
std::string Quote(std::string_view text);
// A name's printable, bounded form without quotes, for field paths: "parameters.<name>".
std::string PathPart(std::string_view text);

// A status with no details; the message cut to fit kMaxErrorBytes.
grpc::Status Error(grpc::StatusCode code, std::string message);
// INVALID_ARGUMENT carrying google.rpc.BadRequest with the violations; the message is
// `summary` followed by the violations, one per line, so that a client without detail
// decoding still sees them. At most kMaxViolations are listed, fewer if the kMaxErrorBytes
// budget is reached first; the rest are counted in a last entry (empty field) "and N more
// problems", in the details and in the message alike.
// `unlisted` more problems that `violations` does not hold are counted in the same entry.
grpc::Status InvalidArgument(std::string_view summary, const std::vector<FieldViolation>& violations,
                             std::size_t unlisted = 0);
// `code` carrying google.rpc.ErrorInfo{reason, domain kErrorDomain, metadata}.
grpc::Status ErrorWithInfo(grpc::StatusCode code, std::string message, std::string reason,
                           const std::map<std::string, std::string>& metadata);

// Spec problems as violations; the field is "<prefix><path>, col <c>" when in an expression.
// The reader's own last entry "and N more problems not listed" (model/unlisted_problems.h) is
// left out: InvalidArgument counts those N itself.
std::vector<FieldViolation> SpecViolations(const std::vector<model::SpecProblem>& problems,
                                           std::string_view prefix);
// Setup problems ("options.rtol", "parameters.mass") as violations of the request's fields:
// the core's paths "initial.<name>" become "<values_field>.<name>" ("initial_values" of
// CreateSession and Simulate, "values" of UpdateSession).
std::vector<FieldViolation> SetupViolations(const std::vector<simulate::SetupProblem>& problems,
                                            std::string_view values_field);

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

// `status` if it fits kMaxErrorBytes; otherwise the same code with the message cut and the
// details dropped if they alone do not fit. Every RPC's final status passes through it (the
// statuses built above already fit; this holds the bound for any other).
grpc::Status Bounded(const grpc::Status& status);

// A caller's W3C trace context (the `traceparent` metadata, www.w3.org/TR/trace-context):
// "00-<trace_id: 32 hex>-<span_id: 16 hex>-<flags: 2 hex>". Empty when absent or malformed.
struct TraceContext {
  std::string trace_id;  // 32 lowercase hex digits, not all zero
  std::string span_id;   // the caller's span: 16 lowercase hex digits, not all zero
  [[nodiscard]] bool empty() const { return trace_id.empty(); }
};
// The trace context of a `traceparent` value; empty if it does not follow the format (a
// version other than 00 is read by its 00 prefix, as the specification asks).
TraceContext ParseTraceparent(std::string_view value);

// A non-OK `status` with google.rpc.RequestInfo{request_id: trace_id, serving_data:
// "span_id=<span_id>"} added to its details, so that the caller's trace finds our log line;
// `status` itself if OK or without a trace. Bounded afterwards (the detail is ~90 bytes).
grpc::Status WithTrace(const grpc::Status& status, const TraceContext& trace);

// "1.5e-09": shortest text that reads back as the same double.
std::string FormatDouble(double value);

}  // namespace tether::server
