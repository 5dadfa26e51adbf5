#include "errors.h"

#include <algorithm>
#include <charconv>
#include <cctype>

#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"
#include "tether/expr/quote.h"
#include "tether/model/unlisted_problems.h"

namespace tether::server {
namespace {

// What a message may take when nothing else shares the budget: below kMaxErrorBytes with room
// for the "…(N bytes)" mark.
constexpr std::size_t kMaxMessageBytes = kMaxErrorBytes - 64;

// `text` cut to at most `max_bytes` plus the mark "…(N bytes)", never inside a UTF-8
// sequence. Unlike expr::Printable it keeps line breaks: it cuts our own messages, whose
// user text is already quoted.
std::string Cut(std::string text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  const std::size_t total = text.size();
  std::size_t end = max_bytes;
  // Back up over UTF-8 continuation bytes (10xxxxxx) to the start of their sequence.
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xc0) == 0x80) --end;
  text.resize(end);
  return text + "…(" + std::to_string(total) + " bytes)";
}

google::rpc::Status Rich(grpc::StatusCode code, const std::string& message,
                         const google::protobuf::Message& detail) {
  google::rpc::Status rich;
  rich.set_code(static_cast<int>(code));
  rich.set_message(message);
  rich.add_details()->PackFrom(detail);
  return rich;
}

// message + details; the details repeat the message (google.rpc.Status.message).
std::size_t ErrorBytes(const std::string& message, const google::rpc::Status& rich) {
  return message.size() + rich.ByteSizeLong();
}

grpc::Status WithDetail(grpc::StatusCode code, std::string message,
                        const google::protobuf::Message& detail) {
  // The message appears twice (status and details): half of what the detail leaves.
  const std::size_t detail_bytes = detail.ByteSizeLong() + 64;
  const std::size_t room = detail_bytes < kMaxMessageBytes ? (kMaxMessageBytes - detail_bytes) / 2 : 0;
  message = Cut(std::move(message), room);
  google::rpc::Status rich = Rich(code, message, detail);
  if (ErrorBytes(message, rich) >= kMaxErrorBytes) return Bounded(grpc::Status(code, message));
  return grpc::Status(code, std::move(message), rich.SerializeAsString());
}

std::string MoreProblems(std::size_t n) {
  return "and " + std::to_string(n) + (n == 1 ? " more problem" : " more problems");
}

// The message of InvalidArgument: the summary, then one line per listed violation.
std::string ViolationsMessage(const std::string& summary, const google::rpc::BadRequest& listed) {
  std::string message = summary;
  for (const auto& v : listed.field_violations()) {
    message += "\n  " + (v.field().empty() ? v.description() : v.field() + ": " + v.description());
  }
  return message;
}

// "kProjectionFailed" style names come from the core as "projection_failed".
std::string UpperReason(std::string_view name) {
  std::string reason(name);
  for (char& c : reason) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return reason;
}

}  // namespace

std::string Quote(std::string_view text) { return expr::Quote(text); }

std::string PathPart(std::string_view text) { return expr::Printable(text); }

grpc::Status Error(grpc::StatusCode code, std::string message) {
  return grpc::Status(code, Cut(std::move(message), kMaxMessageBytes));
}

grpc::Status InvalidArgument(std::string_view summary,
                             const std::vector<FieldViolation>& violations, std::size_t unlisted) {
  constexpr grpc::StatusCode kCode = grpc::StatusCode::INVALID_ARGUMENT;
  const std::string head = Cut(std::string(summary), kMaxDescriptionBytes);
  // Adds violations in order while the whole — with the "and N more" entry for the rest —
  // stays within the budget. Sizes are recomputed per entry: at most kMaxViolations times.
  google::rpc::BadRequest listed;
  auto with_rest = [&](std::size_t rest) {
    google::rpc::BadRequest candidate = listed;
    if (rest > 0) candidate.add_field_violations()->set_description(MoreProblems(rest));
    return candidate;
  };
  auto fits = [&](const google::rpc::BadRequest& candidate) {
    const std::string message = ViolationsMessage(head, candidate);
    return ErrorBytes(message, Rich(kCode, message, candidate)) < kMaxErrorBytes;
  };
  std::size_t n = 0;
  for (; n < violations.size() && n < kMaxViolations; ++n) {
    auto* entry = listed.add_field_violations();
    entry->set_field(Cut(violations[n].field, kMaxFieldBytes));
    entry->set_description(Cut(violations[n].description, kMaxDescriptionBytes));
    if (!fits(with_rest(violations.size() - n - 1 + unlisted))) {
      listed.mutable_field_violations()->RemoveLast();
      break;
    }
  }
  const google::rpc::BadRequest bad_request = with_rest(violations.size() - n + unlisted);
  std::string message = ViolationsMessage(head, bad_request);
  google::rpc::Status rich = Rich(kCode, message, bad_request);
  return grpc::Status(kCode, std::move(message), rich.SerializeAsString());
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
  const std::size_t listed =
      model::UnlistedProblems(problems) > 0 ? problems.size() - 1 : problems.size();
  for (std::size_t i = 0; i < listed; ++i) {
    const model::SpecProblem& p = problems[i];
    std::string field = std::string(prefix) + (p.path.empty() ? "(document)" : p.path);
    if (p.column > 0) field += ", col " + std::to_string(p.column);
    out.push_back({std::move(field), p.message});
  }
  return out;
}

std::vector<FieldViolation> SetupViolations(const std::vector<simulate::SetupProblem>& problems,
                                            std::string_view values_field) {
  constexpr std::string_view kCoreValues = "initial";
  std::vector<FieldViolation> out;
  out.reserve(problems.size());
  for (const simulate::SetupProblem& p : problems) {
    std::string field = p.path;
    if (field.compare(0, kCoreValues.size(), kCoreValues) == 0 &&
        (field.size() == kCoreValues.size() || field[kCoreValues.size()] == '.')) {
      field.replace(0, kCoreValues.size(), values_field);
    }
    out.push_back({std::move(field), p.message});
  }
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

grpc::Status Bounded(const grpc::Status& status) {
  if (status.ok() ||
      status.error_message().size() + status.error_details().size() < kMaxErrorBytes) {
    return status;
  }
  std::string message = Cut(status.error_message(), kMaxMessageBytes / 2);
  if (message.size() + status.error_details().size() < kMaxErrorBytes) {
    return grpc::Status(status.error_code(), std::move(message), status.error_details());
  }
  return grpc::Status(status.error_code(), std::move(message));
}

namespace {

bool IsLowerHex(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool AllZero(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c == '0'; });
}

}  // namespace

TraceContext ParseTraceparent(std::string_view value) {
  // version "-" trace-id "-" parent-id "-" flags: 2 + 1 + 32 + 1 + 16 + 1 + 2 = 55 characters;
  // a later version may append "-…" fields.
  constexpr std::size_t kLength = 55;
  if (value.size() < kLength || (value.size() > kLength && value[kLength] != '-')) return {};
  if (value[2] != '-' || value[35] != '-' || value[52] != '-') return {};
  const std::string_view version = value.substr(0, 2);
  const std::string_view trace_id = value.substr(3, 32);
  const std::string_view span_id = value.substr(36, 16);
  const std::string_view flags = value.substr(53, 2);
  if (!IsLowerHex(version) || version == "ff" || (version == "00" && value.size() != kLength) ||
      !IsLowerHex(trace_id) || AllZero(trace_id) || !IsLowerHex(span_id) || AllZero(span_id) ||
      !IsLowerHex(flags)) {
    return {};
  }
  return {std::string(trace_id), std::string(span_id)};
}

grpc::Status WithTrace(const grpc::Status& status, const TraceContext& trace) {
  if (status.ok() || trace.empty()) return status;
  google::rpc::Status rich;
  if (status.error_details().empty() || !rich.ParseFromString(status.error_details())) {
    rich.Clear();
    rich.set_code(static_cast<int>(status.error_code()));
    rich.set_message(status.error_message());
  }
  google::rpc::RequestInfo info;
  info.set_request_id(trace.trace_id);
  info.set_serving_data("span_id=" + trace.span_id);
  rich.add_details()->PackFrom(info);
  return Bounded(grpc::Status(status.error_code(), status.error_message(), rich.SerializeAsString()));
}

std::string FormatDouble(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

}  // namespace tether::server
