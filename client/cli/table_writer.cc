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

void TableWriter::Begin(const std::vector<std::string>& columns) { columns_ = columns; }

void TableWriter::Row(std::span<const double> values) { rows_.Add(values); }

void TableWriter::End() {
  std::vector<std::vector<std::string>> cells;
  for (const std::vector<double>& row : rows_.Rows()) {
    std::vector<std::string> line;
    for (double value : row) line.push_back(FormatShort(value, kTableDigits));
    cells.push_back(std::move(line));
  }
  std::vector<std::size_t> widths;
  for (const std::string& name : columns_) widths.push_back(name.size());
  for (const auto& line : cells) {
    for (std::size_t i = 0; i < line.size() && i < widths.size(); ++i) {
      widths[i] = std::max(widths[i], line[i].size());
    }
  }
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    if (i > 0) out_ << "  ";
    PrintPadded(out_, columns_[i], widths[i]);
  }
  out_ << '\n';
  for (const auto& line : cells) {
    for (std::size_t i = 0; i < line.size() && i < widths.size(); ++i) {
      if (i > 0) out_ << "  ";
      PrintPadded(out_, line[i], widths[i]);
    }
    out_ << '\n';
  }
  if (rows_.seen() > cells.size()) {
    out_ << "(" << cells.size() << " of " << rows_.seen()
         << " samples shown; --format csv or jsonl for all)\n";
  }
  out_.flush();
}

}  // namespace tether::cli
