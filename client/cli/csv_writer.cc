#include "cli/csv_writer.h"

#include "cli/number_format.h"

namespace tether::cli {

std::string CsvField(std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(field);
  std::string quoted = "\"";
  for (char c : field) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  quoted += '"';
  return quoted;
}

void CsvWriter::Begin(const std::vector<std::string>& columns, bool with_events) {
  with_events_ = with_events;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) out_ << ',';
    out_ << CsvField(columns[i]);
  }
  if (with_events_) out_ << ",event";
  out_ << '\n';
}

void CsvWriter::Row(std::span<const double> values, std::span<const RowEvent> events) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out_ << ',';
    out_ << FormatExact(values[i]);
  }
  if (with_events_) out_ << ',' << CsvField(EventLabels(events));
  out_ << '\n';
}

void CsvWriter::End() { out_.flush(); }

}  // namespace tether::cli
