// The output side of one `tether run`: files opened when the header arrives (so a run refused
// before its first sample leaves no empty files behind), the format writer and the plot, and
// the flattening of each decoded sample into a row (row_sink.h) with its switch events.
//
// A stream has inequalities when its samples carry residual_inequality (the server sends it for
// every model with inequalities, whatever columns were chosen) or its header a
// COLUMN_KIND_INEQUALITY_MULTIPLIER or COLUMN_KIND_ACTIVE column; then rows gain
// residual_inequality and the formats show events. Otherwise the rows are exactly those of an
// equality model. Since the first sample decides, the formats' header waits for it (or End).
#pragma once

#include <fstream>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "cli/row_sink.h"
#include "cli/run_command.h"
#include "tether/client/sample.h"

namespace tether::cli {

// True when `header` streams any column of an inequality constraint (mu_i or active_i).
bool HasInequalityColumns(const v1::StreamHeader& header);

class RunOutput {
 public:
  RunOutput(const RunCommandOptions& options, std::ostream& out) : options_(options), out_(out) {}

  // Opens files and writers for the stream of `header`; false with *why on an unwritable file.
  bool Begin(const std::string& title, const v1::StreamHeader& header,
             const client::StreamColumns& columns, std::string* why);
  void Row(const client::Sample& sample);
  // Hands the rows so far to the reader (stdout or --output): called after each frame, so that
  // a pipe or a file followed live gets rows as the server sends them, not when a buffer fills.
  void Flush();
  void End();

  // The stream has inequalities (known from the first sample on).
  [[nodiscard]] bool has_inequalities() const { return has_inequalities_; }

 private:
  bool OpenFormat(std::string* why);
  bool OpenPlot(const std::string& title, std::string* why);
  // Writes the formats' header once: `names_`, with residual_inequality if has_inequalities_.
  void WriteHeader();

  const RunCommandOptions& options_;
  std::ostream& out_;
  std::ofstream file_;
  std::ostream* data_ = nullptr;  // where the format writes: out_ or file_
  std::ofstream plot_file_;
  std::unique_ptr<RowSink> format_;
  std::unique_ptr<RowSink> plot_;
  std::unique_ptr<RowSink> sink_;
  bool has_inequalities_ = false;
  bool header_written_ = false;
  std::vector<std::string> names_;  // t, the columns and the equality residuals
  std::vector<double> row_;
  std::vector<RowEvent> events_;
};

}  // namespace tether::cli
