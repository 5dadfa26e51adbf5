// `--json` output of the catalog and session commands: the resources exactly as the API
// returns them, in protobuf's canonical JSON mapping with the proto's own field names
// (snake_case), every field present, so that scripts can rely on a key being there.
#pragma once

#include <string>

#include <google/protobuf/message.h>

namespace tether::cli {

// One JSON document, pretty-printed, ending in a newline.
std::string ProtoJson(const google::protobuf::Message& message);

}  // namespace tether::cli
