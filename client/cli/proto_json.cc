#include "cli/proto_json.h"

#include <google/protobuf/util/json_util.h>

namespace tether::cli {

std::string ProtoJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string json;
  // Printing a well-formed message cannot fail; a failure would be a bug worth seeing.
  const auto status = google::protobuf::util::MessageToJsonString(message, &json, options);
  if (!status.ok()) return "{\"error\": \"cannot print JSON\"}\n";
  return json;
}

}  // namespace tether::cli
