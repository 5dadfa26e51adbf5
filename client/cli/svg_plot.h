// The `--plot` output: a standalone SVG with two panels sharing the time axis.
//
//   upper panel: every value column (all but t and the residuals) against t, linear axes;
//   lower panel: residual_position and residual_velocity (and residual_inequality, for models
//                with inequalities) against t on a log₁₀ axis;
//   switches: a vertical dashed line at each switch time across both panels, labelled above the
//             upper panel "▲i" (constraint i activated) or "▼i" (deactivated), i 0-based.
//
// Residuals that are exactly 0 (or below `residual_floor`) are drawn at the floor, since log 0 is
// −∞; the axis label says so. With `--projection none` the lower panel shows the drift of the
// invariants growing (chapter 11); with `coupled` it stays flat at the projection tolerance
// (chapter 19). Rows are decimated to `max_points` (decimator.h); non-finite values break the
// line instead of being drawn.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "cli/decimator.h"
#include "cli/row_sink.h"

namespace tether::cli {

struct PlotOptions {
  int width = 960;   // [px] of the whole image, ≥ 400
  int height = 720;  // [px] of the whole image, ≥ 300
  std::string title;  // drawn on top; may be empty
  // Residuals below this are drawn at it (and 0 is): the bottom of the log axis. > 0.
  double residual_floor = 1e-17;
  // At most this many points per line (evenly decimated). ≥ 2.
  std::size_t max_points = 2000;
  // At most this many switch markers (the first ones; the legend counts the rest). A
  // chattering run can switch thousands of times; more lines than pixels say nothing.
  std::size_t max_markers = 200;

  bool IsValid(std::string* why) const;
};

class SvgPlotWriter final : public RowSink {
 public:
  // Eight clearly distinct line colours; further value columns are listed as not drawn.
  static constexpr std::size_t kMaxSeries = 8;

  SvgPlotWriter(std::ostream& out, PlotOptions options)
      : out_(out), options_(std::move(options)), rows_(options_.max_points) {}
  void Begin(const std::vector<std::string>& columns, bool with_events) override;
  void Row(std::span<const double> values, std::span<const RowEvent> events) override;
  void End() override;

 private:
  std::ostream& out_;
  PlotOptions options_;
  std::vector<std::string> columns_;
  Decimator rows_;
  std::vector<RowEvent> markers_;
  std::size_t markers_dropped_ = 0;
};

// `text` with &, <, >, " and ' replaced by XML entities.
std::string XmlEscape(const std::string& text);

// "Nice" tick positions (1, 2 or 5 × 10^k apart) covering [lo, hi] with about `target` ticks.
std::vector<double> LinearTicks(double lo, double hi, int target);

}  // namespace tether::cli
