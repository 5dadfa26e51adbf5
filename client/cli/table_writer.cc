#include "cli/table_writer.h"

#include <algorithm>

#include "cli/number_format.h"

namespace tether::cli {
namespace {

// Six significant digits: enough to read a trajectory, narrow enough for a terminal.
constexpr int kTableDigits = 6;

void PrintPadded(std::ostream& out, const std::string& text, std::size_t width) {
  out << std::string(width > text.size() ? width - text.size() : 0, ' ') << text;
}

}  // namespace

void TableWriter::Begin(const std::vector<std::string>& columns, bool with_events) {
  columns_ = columns;
  with_events_ = with_events;
}

void TableWriter::Row(std::span<const double> values, std::span<const RowEvent> events) {
  const std::size_t ordinal = rows_.seen();
  std::vector<double> row(values.begin(), values.end());
  if (!events.empty()) {
    if (event_rows_.size() < max_rows_) {
      event_rows_.push_back({ordinal, row, EventLabels(events)});
    } else {
      ++event_rows_dropped_;
    }
  }
  row.push_back(static_cast<double>(ordinal));
  rows_.Add(row);
}

std::vector<TableWriter::Line> TableWriter::Lines() const {
  std::vector<Line> lines;
  for (std::vector<double>& row : rows_.Rows()) {
    const auto ordinal = static_cast<std::size_t>(row.back());
    row.pop_back();
    lines.push_back({ordinal, std::move(row), ""});
  }
  // Event rows replace the same decimated row (they carry the label) or slot in between.
  for (const Line& event_row : event_rows_) {
    const auto at = std::lower_bound(lines.begin(), lines.end(), event_row.ordinal,
                                     [](const Line& l, std::size_t o) { return l.ordinal < o; });
    if (at != lines.end() && at->ordinal == event_row.ordinal) {
      *at = event_row;
    } else {
      lines.insert(at, event_row);
    }
  }
  return lines;
}

std::vector<std::vector<std::string>> TableWriter::Cells(const std::vector<Line>& lines) const {
  std::vector<std::vector<std::string>> cells;
  for (const Line& line : lines) {
    std::vector<std::string> text;
    for (double value : line.values) text.push_back(FormatShort(value, kTableDigits));
    if (with_events_) text.push_back(line.event);
    cells.push_back(std::move(text));
  }
  return cells;
}

std::size_t TableWriter::Print(const std::vector<std::string>& header,
                               const std::vector<std::vector<std::string>>& cells) {
  std::vector<std::size_t> widths;
  for (const std::string& name : header) widths.push_back(name.size());
  for (const auto& line : cells) {
    for (std::size_t i = 0; i < line.size() && i < widths.size(); ++i) {
      widths[i] = std::max(widths[i], line[i].size());
    }
  }
  // Numeric columns while they fit in the width less its last column (so no line wraps); the
  // first always. The event column, unpadded, may run past it (it is text, cut by the terminal).
  const std::size_t numbers = with_events_ ? header.size() - 1 : header.size();
  std::size_t shown = numbers;
  if (columns_wide_ > 0) {
    std::size_t used = 0;
    for (shown = 0; shown < numbers; ++shown) {
      const std::size_t next = used + (shown > 0 ? 2 : 0) + widths[shown];
      if (shown > 0 && next + 1 > columns_wide_) break;
      used = next;
    }
  }
  PrintLine(header, widths, shown);
  for (const auto& line : cells) PrintLine(line, widths, shown);
  return shown;
}

void TableWriter::PrintLine(const std::vector<std::string>& line,
                            const std::vector<std::size_t>& widths, std::size_t shown) {
  // Numbers right-aligned; the event column, last, left-aligned and unpadded (no trailing blanks).
  const std::size_t numbers = with_events_ && !line.empty() ? line.size() - 1 : line.size();
  for (std::size_t i = 0; i < numbers && i < shown && i < widths.size(); ++i) {
    if (i > 0) out_ << "  ";
    PrintPadded(out_, line[i], widths[i]);
  }
  if (numbers < line.size() && !line.back().empty()) out_ << "  " << line.back();
  out_ << '\n';
}

void TableWriter::End() {
  std::vector<std::string> header = columns_;
  if (with_events_) header.emplace_back("event");
  const std::vector<std::vector<std::string>> cells = Cells(Lines());
  const std::size_t shown = Print(header, cells);
  if (shown < columns_.size()) {
    out_ << "(" << columns_.size() - shown << " columns wider than the terminal not shown:";
    for (std::size_t i = shown; i < columns_.size(); ++i) out_ << (i > shown ? ", " : " ") << columns_[i];
    out_ << "; --columns picks columns, --format csv shows all)\n";
  }
  if (rows_.seen() > cells.size()) {
    out_ << "(" << cells.size() << " of " << rows_.seen()
         << " samples shown; --format csv or jsonl for all)\n";
  }
  if (event_rows_dropped_ > 0) {
    out_ << "(" << event_rows_dropped_ << " further rows with switches not shown)\n";
  }
  out_.flush();
}

}  // namespace tether::cli
