#include "cli/jsonl_writer.h"

#include <array>
#include <cstdio>

#include "cli/number_format.h"

namespace tether::cli {

std::string JsonString(const std::string& text) {
  std::string quoted = "\"";
  for (char c : text) {
    switch (c) {
      case '"': quoted += "\\\""; break;
      case '\\': quoted += "\\\\"; break;
      case '\n': quoted += "\\n"; break;
      case '\r': quoted += "\\r"; break;
      case '\t': quoted += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          std::array<char, 8> escape{};
          std::snprintf(escape.data(), escape.size(), "\\u%04x", static_cast<unsigned>(c));
          quoted += escape.data();
        } else {
          quoted += c;
        }
    }
  }
  quoted += '"';
  return quoted;
}

void JsonlWriter::Begin(const std::vector<std::string>& columns, bool /*with_events*/) {
  keys_.clear();
  for (const std::string& name : columns) keys_.push_back(JsonString(name) + ':');
}

void JsonlWriter::Row(std::span<const double> values, std::span<const RowEvent> events) {
  for (const RowEvent& event : events) {
    out_ << "{\"event\":" << JsonString(EventName(event)) << ",\"t\":" << FormatJson(event.t)
         << ",\"constraint\":" << event.constraint << "}\n";
  }
  out_ << '{';
  for (std::size_t i = 0; i < values.size() && i < keys_.size(); ++i) {
    if (i > 0) out_ << ',';
    out_ << keys_[i] << FormatJson(values[i]);
  }
  out_ << "}\n";
}

void JsonlWriter::End() { out_.flush(); }

}  // namespace tether::cli
