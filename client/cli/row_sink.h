// The interface every output format implements: a table of named columns, one row per sample.
//
// The CLI flattens each decoded sample into one row over the columns
//   t, <streamed columns in the header's order>, residual_position, residual_velocity
//   [, residual_inequality]   (models with inequalities)
// so the formats know nothing of the wire or of models: they format names, numbers and the
// switch events located at a row (row_event.h).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "cli/row_event.h"

namespace tether::cli {

class RowSink {
 public:
  virtual ~RowSink() = default;
  // Called once, before any row. `columns` stays the same for the whole table. `with_events`:
  // rows may carry switch events (a model with inequalities), so the formats show them (CSV and
  // the table with a last `event` column); false keeps the output of equality models unchanged.
  virtual void Begin(const std::vector<std::string>& columns, bool with_events) = 0;
  // One row, values in the order of Begin's columns, with the switches located at it (usually
  // none; always none without events).
  virtual void Row(std::span<const double> values, std::span<const RowEvent> events) = 0;
  // Called once after the last row (also after a failed run: the rows so far are kept).
  virtual void End() = 0;
};

// Sends every call to each of several sinks (e.g. CSV to a file and the SVG plot at once).
class TeeSink final : public RowSink {
 public:
  explicit TeeSink(std::vector<RowSink*> sinks) : sinks_(std::move(sinks)) {}
  void Begin(const std::vector<std::string>& columns, bool with_events) override {
    for (RowSink* sink : sinks_) sink->Begin(columns, with_events);
  }
  void Row(std::span<const double> values, std::span<const RowEvent> events) override {
    for (RowSink* sink : sinks_) sink->Row(values, events);
  }
  void End() override {
    for (RowSink* sink : sinks_) sink->End();
  }

 private:
  std::vector<RowSink*> sinks_;
};

}  // namespace tether::cli
