// CSV output (RFC 4180): a header row of column names, then one row per sample with every
// number in its shortest exactly-round-tripping form (number_format.h). With events, a last
// column `event` holds the row's switches ("activated:0", several joined by ';'; empty on rows
// without one).
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "cli/row_sink.h"

namespace tether::cli {

class CsvWriter final : public RowSink {
 public:
  explicit CsvWriter(std::ostream& out) : out_(out) {}
  void Begin(const std::vector<std::string>& columns, bool with_events) override;
  void Row(std::span<const double> values, std::span<const RowEvent> events) override;
  void End() override;

 private:
  std::ostream& out_;
  bool with_events_ = false;
};

// `field` quoted when it holds a comma, a quote or a line break (quotes doubled), else as is.
std::string CsvField(std::string_view field);

}  // namespace tether::cli
