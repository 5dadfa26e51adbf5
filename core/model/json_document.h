// Reads the JSON text of a spec into a DOM, reporting problems instead of throwing: syntax
// errors with line and column, numbers that overflow a double (`1e999`), and duplicate keys
// (which JSON parsers silently collapse to one, hiding a typo or a pasted twice line).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <vector>

#include "tether/model/model.h"

namespace tether::model {

// Keeps the order of keys as written, so parameters and outputs keep the spec's order.
using Json = nlohmann::ordered_json;

// The document, or nothing when it could not be read (the reason is in `problems`). Duplicate
// keys are reported but do not stop reading.
std::optional<Json> ReadJsonDocument(std::string_view text, std::vector<SpecProblem>& problems);

// 1-based line and column of byte `offset` of `text`.
struct TextPosition {
  int line = 1;
  int column = 1;
};
TextPosition PositionOf(std::string_view text, std::size_t offset);

}  // namespace tether::model
