#include "http_transcoding.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/reflection.h>
#include <google/protobuf/util/json_util.h>

#include "errors.h"
#include "google/rpc/status.pb.h"

namespace tether::server {
namespace {

namespace pb = google::protobuf;

// The field of `descriptor` called `name` by its proto name or its JSON name.
const pb::FieldDescriptor* FindField(const pb::Descriptor& descriptor, std::string_view name) {
  const std::string text(name);
  if (const pb::FieldDescriptor* field = descriptor.FindFieldByName(text)) return field;
  for (int i = 0; i < descriptor.field_count(); ++i) {
    if (descriptor.field(i)->json_name() == text) return descriptor.field(i);
  }
  return nullptr;
}

// Parses `text` whole as a number of type T; false if it is not one or out of range.
bool ParseSigned(const std::string& text, std::int64_t* out) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return false;
  *out = value;
  return true;
}

bool ParseUnsigned(const std::string& text, std::uint64_t* out) {
  if (text.empty() || text[0] == '-') return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return false;
  *out = value;
  return true;
}

bool ParseReal(const std::string& text, double* out) {
  // proto3 JSON's spellings of the non-finite values.
  if (text == "NaN") {
    *out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  if (text == "Infinity" || text == "-Infinity") {
    *out = (text[0] == '-' ? -1.0 : 1.0) * std::numeric_limits<double>::infinity();
    return true;
  }
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (errno == ERANGE || *end != '\0') return false;
  *out = value;
  return true;
}

// Sets (or, for a repeated field, adds) `value` on `field` of `message`; false if it does not
// parse as the field's type, with *why saying what was expected.
bool SetScalar(pb::Message* message, const pb::FieldDescriptor* field, const std::string& value,
               std::string* why) {
  const pb::Reflection* r = message->GetReflection();
  const bool repeated = field->is_repeated();
  std::int64_t i = 0;
  std::uint64_t u = 0;
  double d = 0.0;
  switch (field->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_STRING:
      repeated ? r->AddString(message, field, value) : r->SetString(message, field, value);
      return true;
    case pb::FieldDescriptor::CPPTYPE_BOOL:
      if (value != "true" && value != "false") {
        *why = "must be true or false";
        return false;
      }
      repeated ? r->AddBool(message, field, value == "true")
               : r->SetBool(message, field, value == "true");
      return true;
    case pb::FieldDescriptor::CPPTYPE_INT32:
      if (!ParseSigned(value, &i) || i < std::numeric_limits<std::int32_t>::min() ||
          i > std::numeric_limits<std::int32_t>::max()) {
        *why = "must be a 32-bit integer";
        return false;
      }
      repeated ? r->AddInt32(message, field, static_cast<std::int32_t>(i))
               : r->SetInt32(message, field, static_cast<std::int32_t>(i));
      return true;
    case pb::FieldDescriptor::CPPTYPE_INT64:
      if (!ParseSigned(value, &i)) {
        *why = "must be a 64-bit integer";
        return false;
      }
      repeated ? r->AddInt64(message, field, i) : r->SetInt64(message, field, i);
      return true;
    case pb::FieldDescriptor::CPPTYPE_UINT32:
      if (!ParseUnsigned(value, &u) || u > std::numeric_limits<std::uint32_t>::max()) {
        *why = "must be an unsigned 32-bit integer";
        return false;
      }
      repeated ? r->AddUInt32(message, field, static_cast<std::uint32_t>(u))
               : r->SetUInt32(message, field, static_cast<std::uint32_t>(u));
      return true;
    case pb::FieldDescriptor::CPPTYPE_UINT64:
      if (!ParseUnsigned(value, &u)) {
        *why = "must be an unsigned 64-bit integer";
        return false;
      }
      repeated ? r->AddUInt64(message, field, u) : r->SetUInt64(message, field, u);
      return true;
    case pb::FieldDescriptor::CPPTYPE_DOUBLE:
    case pb::FieldDescriptor::CPPTYPE_FLOAT:
      if (!ParseReal(value, &d)) {
        *why = "must be a number";
        return false;
      }
      if (field->cpp_type() == pb::FieldDescriptor::CPPTYPE_FLOAT) {
        repeated ? r->AddFloat(message, field, static_cast<float>(d))
                 : r->SetFloat(message, field, static_cast<float>(d));
      } else {
        repeated ? r->AddDouble(message, field, d) : r->SetDouble(message, field, d);
      }
      return true;
    case pb::FieldDescriptor::CPPTYPE_ENUM: {
      const pb::EnumValueDescriptor* found = field->enum_type()->FindValueByName(value);
      if (found == nullptr && ParseSigned(value, &i)) {
        found = field->enum_type()->FindValueByNumber(static_cast<int>(i));
      }
      if (found == nullptr) {
        *why = "must name a value of " + field->enum_type()->full_name();
        return false;
      }
      repeated ? r->AddEnum(message, field, found) : r->SetEnum(message, field, found);
      return true;
    }
    case pb::FieldDescriptor::CPPTYPE_MESSAGE:
      break;
  }
  *why = "is a message or map field, which a query parameter cannot set";
  return false;
}

}  // namespace

unsigned HttpStatusOf(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK: return 200;
    case grpc::StatusCode::CANCELLED: return 499;
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::FAILED_PRECONDITION:
    case grpc::StatusCode::OUT_OF_RANGE: return 400;
    case grpc::StatusCode::UNAUTHENTICATED: return 401;
    case grpc::StatusCode::PERMISSION_DENIED: return 403;
    case grpc::StatusCode::NOT_FOUND: return 404;
    case grpc::StatusCode::ALREADY_EXISTS:
    case grpc::StatusCode::ABORTED: return 409;
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return 429;
    case grpc::StatusCode::UNIMPLEMENTED: return 501;
    case grpc::StatusCode::UNAVAILABLE: return 503;
    case grpc::StatusCode::DEADLINE_EXCEEDED: return 504;
    default: return 500;
  }
}

std::string StatusJson(const grpc::Status& status) {
  google::rpc::Status rich;
  // The details travel as a serialized google.rpc.Status (code and message included); a status
  // without details gets its code and message here.
  if (status.error_details().empty() || !rich.ParseFromString(status.error_details())) {
    rich.Clear();
  }
  rich.set_code(static_cast<int>(status.error_code()));
  rich.set_message(status.error_message());
  return ToJson(rich);
}

std::string ToJson(const google::protobuf::Message& message) {
  std::string out;
  const auto printed = google::protobuf::util::MessageToJsonString(message, &out);
  if (!printed.ok()) {
    // Only an Any of an unknown type fails; every detail type is linked into tether::proto.
    return R"({"code":13,"message":"the response could not be printed as JSON"})";
  }
  return out;
}

grpc::Status ParseBody(std::string_view body, google::protobuf::Message* message) {
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) return grpc::Status::OK;
  const auto parsed = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(body.data(), body.size()), message);
  if (parsed.ok()) return grpc::Status::OK;
  return InvalidArgument("bad request body",
                         {{"body", "not a JSON " + message->GetDescriptor()->full_name() + ": " +
                                       std::string(parsed.message())}});
}

grpc::Status BindQuery(const std::vector<std::pair<std::string, std::string>>& parameters,
                       google::protobuf::Message* message, std::string_view where) {
  std::vector<FieldViolation> violations;
  for (const auto& [name, value] : parameters) {
    pb::Message* target = message;
    const pb::FieldDescriptor* field = nullptr;
    std::string why;
    std::size_t begin = 0;
    while (true) {
      const std::size_t dot = name.find('.', begin);
      const std::string_view part =
          std::string_view(name).substr(begin, dot == std::string::npos ? std::string::npos
                                                                        : dot - begin);
      field = FindField(*target->GetDescriptor(), part);
      if (field == nullptr) {
        why = "no field " + Quote(part) + " in " + target->GetDescriptor()->full_name();
        break;
      }
      if (dot == std::string::npos) break;
      if (field->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE || field->is_repeated()) {
        why = Quote(part) + " is not a singular message field";
        field = nullptr;
        break;
      }
      target = target->GetReflection()->MutableMessage(target, field);
      begin = dot + 1;
    }
    if (field != nullptr && SetScalar(target, field, value, &why)) continue;
    violations.push_back({std::string(where) + "." + PathPart(name),
                          PathPart(name) + "=" + Quote(value) + ": " + why});
  }
  if (violations.empty()) return grpc::Status::OK;
  return InvalidArgument("bad query parameters", violations);
}

std::string SseEvent(const v1::StateChunk& chunk) {
  switch (chunk.chunk_case()) {
    case v1::StateChunk::kHeader:
      return "event: header\ndata: " + ToJson(chunk.header()) + "\n\n";
    case v1::StateChunk::kFrame: {
      const std::uint64_t next =
          chunk.frame().first_sample_index() + static_cast<std::uint64_t>(chunk.frame().t_size());
      return "id: " + std::to_string(next) + "\nevent: frame\ndata: " + ToJson(chunk.frame()) +
             "\n\n";
    }
    case v1::StateChunk::kSummary:
      return "event: summary\ndata: " + ToJson(chunk.summary()) + "\n\n";
    default:
      break;
  }
  return "";
}

std::string SseErrorEvent(const grpc::Status& status) {
  return "event: error\ndata: " + StatusJson(status) + "\n\n";
}

}  // namespace tether::server
