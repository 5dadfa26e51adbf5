// The interface every output format implements: a table of named columns, one row per sample.
//
// The CLI flattens each decoded sample into one row over the columns
//   t, <streamed columns in the header's order>, residual_position, residual_velocity
// so the formats know nothing of the wire or of models: they format names and numbers.
#pragma once

#include <span>
#include <string>
#include <vector>

namespace tether::cli {

class RowSink {
 public:
  virtual ~RowSink() = default;
  // Called once, before any row. `columns` stays the same for the whole table.
  virtual void Begin(const std::vector<std::string>& columns) = 0;
  // One row, values in the order of Begin's columns.
  virtual void Row(std::span<const double> values) = 0;
  // Called once after the last row (also after a failed run: the rows so far are kept).
  virtual void End() = 0;
};

// Sends every call to each of several sinks (e.g. CSV to a file and the SVG plot at once).
class TeeSink final : public RowSink {
 public:
  explicit TeeSink(std::vector<RowSink*> sinks) : sinks_(std::move(sinks)) {}
  void Begin(const std::vector<std::string>& columns) override {
    for (RowSink* sink : sinks_) sink->Begin(columns);
  }
  void Row(std::span<const double> values) override {
    for (RowSink* sink : sinks_) sink->Row(values);
  }
  void End() override {
    for (RowSink* sink : sinks_) sink->End();
  }

 private:
  std::vector<RowSink*> sinks_;
};

}  // namespace tether::cli
