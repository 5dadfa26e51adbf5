#include "cli/run_output.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <limits>

#include "cli/csv_writer.h"
#include "cli/jsonl_writer.h"
#include "cli/svg_plot.h"
#include "cli/table_writer.h"
#include "cli/terminal.h"

namespace tether::cli {

bool HasInequalityColumns(const v1::StreamHeader& header) {
  for (const v1::Column& column : header.columns()) {
    if (column.kind() == v1::COLUMN_KIND_INEQUALITY_MULTIPLIER ||
        column.kind() == v1::COLUMN_KIND_ACTIVE) {
      return true;
    }
  }
  return false;
}

bool RunOutput::OpenFormat(std::string* why) {
  std::ostream* data = &out_;
  if (!options_.output_file.empty()) {
    file_.open(options_.output_file, std::ios::binary | std::ios::trunc);
    if (!file_) {
      *why = "--output: cannot write '" + options_.output_file + "': " + std::strerror(errno);
      return false;
    }
    data = &file_;
  }
  data_ = data;
  switch (options_.format) {
    case OutputFormat::kTable: {
      // Fitted to the terminal only when the table goes to one.
      const bool terminal = data == &std::cout && isatty(STDOUT_FILENO) != 0;
      format_ = std::make_unique<TableWriter>(
          *data, TableWriter::kDefaultMaxRows,
          terminal ? static_cast<std::size_t>(TerminalColumns(STDOUT_FILENO)) : 0);
      break;
    }
    case OutputFormat::kCsv: format_ = std::make_unique<CsvWriter>(*data); break;
    case OutputFormat::kJsonl: format_ = std::make_unique<JsonlWriter>(*data); break;
  }
  return true;
}

bool RunOutput::OpenPlot(const std::string& title, std::string* why) {
  if (options_.plot_file.empty()) return true;
  plot_file_.open(options_.plot_file, std::ios::binary | std::ios::trunc);
  if (!plot_file_) {
    *why = "--plot: cannot write '" + options_.plot_file + "': " + std::strerror(errno);
    return false;
  }
  PlotOptions plot_options;
  plot_options.title = title;
  plot_ = std::make_unique<SvgPlotWriter>(plot_file_, plot_options);
  return true;
}

bool RunOutput::Begin(const std::string& title, const v1::StreamHeader& header,
                      const client::StreamColumns& columns, std::string* why) {
  if (!OpenFormat(why) || !OpenPlot(title, why)) return false;
  std::vector<RowSink*> sinks = {format_.get()};
  if (plot_ != nullptr) sinks.push_back(plot_.get());
  sink_ = std::make_unique<TeeSink>(sinks);
  has_inequalities_ = HasInequalityColumns(header);
  names_ = {"t"};
  names_.insert(names_.end(), columns.names.begin(), columns.names.end());
  names_.emplace_back("residual_position");
  names_.emplace_back("residual_velocity");
  return true;
}

void RunOutput::WriteHeader() {
  if (header_written_) return;
  header_written_ = true;
  if (has_inequalities_) names_.emplace_back("residual_inequality");
  row_.resize(names_.size());
  sink_->Begin(names_, has_inequalities_);
}

void RunOutput::Row(const client::Sample& sample) {
  if (!header_written_) {
    has_inequalities_ = has_inequalities_ || sample.residual_inequality.has_value();
    WriteHeader();
  }
  auto next = row_.begin();
  *next++ = sample.t;
  next = std::copy(sample.values.begin(), sample.values.end(), next);
  *next++ = sample.residual_position;
  *next++ = sample.residual_velocity;
  events_.clear();
  if (has_inequalities_) {
    // A frame without residual_inequality in a stream with inequality columns is the server's
    // omission: NaN prints as "nan" (CSV) or null (JSONL) rather than a made-up 0.
    *next = sample.residual_inequality.value_or(std::numeric_limits<double>::quiet_NaN());
    for (const client::Switch& s : sample.switches) events_.push_back({s.activated(), s.t, s.constraint});
  }
  sink_->Row(row_, events_);
}

void RunOutput::Flush() {
  if (data_ != nullptr) data_->flush();
}

void RunOutput::End() {
  if (sink_ == nullptr) return;
  WriteHeader();  // a stream without samples: its columns alone decide
  sink_->End();
}

}  // namespace tether::cli
