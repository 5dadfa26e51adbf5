// JSON Lines output: one object per sample, keyed by column name in column order, numbers in
// their shortest exactly-round-tripping form; NaN and ±∞ (which JSON cannot hold) as null.
// A switch is its own line, {"event":"activated","t":…,"constraint":0}, immediately before the
// line of the sample it happened at (which has the same t).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "cli/row_sink.h"

namespace tether::cli {

class JsonlWriter final : public RowSink {
 public:
  explicit JsonlWriter(std::ostream& out) : out_(out) {}
  void Begin(const std::vector<std::string>& columns, bool with_events) override;
  void Row(std::span<const double> values, std::span<const RowEvent> events) override;
  void End() override;

 private:
  std::ostream& out_;
  std::vector<std::string> keys_;  // the column names, already JSON-quoted with ':'
};

// `text` as a JSON string literal (quotes, backslashes and control characters escaped).
std::string JsonString(const std::string& text);

}  // namespace tether::cli
