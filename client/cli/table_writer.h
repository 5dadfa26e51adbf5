// Terminal table: right-aligned columns of 6 significant digits, decimated to at most
// `max_rows` evenly spaced rows (first and last always shown), printed when the run ends.
// With events, a last, left-aligned column `event` marks the rows of switches ("activated:0");
// those rows are shown whatever the decimation keeps (the first `max_rows` of them).
// On a terminal the table fits its width: the columns that do not fit (the last ones; the first
// is always shown) are left out and named below the table.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "cli/decimator.h"
#include "cli/row_sink.h"

namespace tether::cli {

class TableWriter final : public RowSink {
 public:
  // A terminal page shows about 40 rows with room for the header and the summary.
  static constexpr std::size_t kDefaultMaxRows = 40;

  // `columns`: the terminal's width (TerminalColumns); 0 = unlimited (not a terminal).
  explicit TableWriter(std::ostream& out, std::size_t max_rows = kDefaultMaxRows,
                       std::size_t columns = 0)
      : out_(out), max_rows_(max_rows), columns_wide_(columns), rows_(max_rows) {}
  void Begin(const std::vector<std::string>& columns, bool with_events) override;
  void Row(std::span<const double> values, std::span<const RowEvent> events) override;
  void End() override;

 private:
  // A row to print: its position in the stream, its values and its event text.
  struct Line {
    std::size_t ordinal = 0;
    std::vector<double> values;
    std::string event;
  };
  // The decimated rows and the event rows, merged in stream order (a row kept by both once).
  [[nodiscard]] std::vector<Line> Lines() const;
  [[nodiscard]] std::vector<std::vector<std::string>> Cells(const std::vector<Line>& lines) const;
  // Prints the table; returns how many of the numeric columns fit the width (all if unlimited).
  std::size_t Print(const std::vector<std::string>& header,
                    const std::vector<std::vector<std::string>>& cells);
  void PrintLine(const std::vector<std::string>& line, const std::vector<std::size_t>& widths,
                 std::size_t shown);

  std::ostream& out_;
  std::size_t max_rows_;
  std::size_t columns_wide_;  // terminal width; 0 = unlimited
  std::vector<std::string> columns_;
  bool with_events_ = false;
  // Rows with their ordinal appended as a last value (exact below 2^53 rows), so the decimated
  // rows can be merged with the event rows.
  Decimator rows_;
  std::vector<Line> event_rows_;
  std::size_t event_rows_dropped_ = 0;
};

}  // namespace tether::cli
