#include "cli/svg_plot.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "cli/number_format.h"

namespace tether::cli {
namespace {

// Tableau-10 colours: distinguishable, and readable on white.
constexpr std::array<const char*, SvgPlotWriter::kMaxSeries> kColors = {
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf"};
constexpr const char* kResidualPositionColor = "#d62728";
constexpr const char* kResidualVelocityColor = "#1f77b4";
constexpr const char* kResidualInequalityColor = "#2ca02c";
constexpr const char* kMarkerColor = "#555";  // switch markers: grey, apart from every series

// Margins [px]: room for tick labels on the left, the legend on the right, the title on top.
constexpr double kLeft = 90.0;
constexpr double kRight = 190.0;
constexpr double kTop = 50.0;
constexpr double kBottom = 50.0;
constexpr double kGap = 60.0;           // between the panels, for the upper panel's t labels
constexpr double kUpperFraction = 0.6;  // of the plotting height, for the value panel
constexpr int kTickTarget = 6;

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void Add(double v) {
    if (!std::isfinite(v)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  [[nodiscard]] bool empty() const { return lo > hi; }
  // A non-degenerate range: an empty one becomes [0, 1], a single value v becomes v ± 1 (or
  // ± |v|/2), so the map to pixels never divides by zero.
  [[nodiscard]] Range Widened() const {
    if (empty()) return {0.0, 1.0};
    if (hi > lo) return *this;
    const double half = lo == 0.0 ? 1.0 : std::abs(lo) / 2;
    return {lo - half, hi + half};
  }
};

// A panel: a pixel rectangle and the data ranges it maps.
struct Panel {
  double x = 0, y = 0, w = 0, h = 0;  // [px], y downwards
  Range t;
  Range v;
  [[nodiscard]] double X(double tv) const { return x + (tv - t.lo) / (t.hi - t.lo) * w; }
  [[nodiscard]] double Y(double vv) const { return y + h - (vv - v.lo) / (v.hi - v.lo) * h; }
};

std::string Px(double v) { return FormatShort(v, 6); }

void Text(std::ostream& out, double x, double y, const std::string& anchor, const std::string& text,
          const std::string& extra = "") {
  out << "<text x=\"" << Px(x) << "\" y=\"" << Px(y) << "\" text-anchor=\"" << anchor << "\"" << extra
      << ">" << XmlEscape(text) << "</text>\n";
}

void Line(std::ostream& out, double x1, double y1, double x2, double y2, const std::string& style) {
  out << "<line x1=\"" << Px(x1) << "\" y1=\"" << Px(y1) << "\" x2=\"" << Px(x2) << "\" y2=\""
      << Px(y2) << "\" " << style << "/>\n";
}

// The frame, grid lines and labelled ticks of a panel. `y_label(v)` labels a y tick.
template <typename Label>
void DrawAxes(std::ostream& out, const Panel& p, const std::vector<double>& y_ticks, Label y_label,
              const std::string& y_title) {
  out << "<rect x=\"" << Px(p.x) << "\" y=\"" << Px(p.y) << "\" width=\"" << Px(p.w) << "\" height=\""
      << Px(p.h) << "\" fill=\"none\" stroke=\"#000\"/>\n";
  for (double tv : LinearTicks(p.t.lo, p.t.hi, kTickTarget)) {
    const double x = p.X(tv);
    Line(out, x, p.y, x, p.y + p.h, "stroke=\"#ddd\"");
    Line(out, x, p.y + p.h, x, p.y + p.h + 5, "stroke=\"#000\"");
    Text(out, x, p.y + p.h + 18, "middle", FormatShort(tv, 6));
  }
  for (double vv : y_ticks) {
    const double y = p.Y(vv);
    Line(out, p.x, y, p.x + p.w, y, "stroke=\"#ddd\"");
    Line(out, p.x - 5, y, p.x, y, "stroke=\"#000\"");
    Text(out, p.x - 8, y + 4, "end", y_label(vv));
  }
  Text(out, p.x + p.w / 2, p.y + p.h + 36, "middle", "t [s]");
  const double cx = p.x - 70;
  const double cy = p.y + p.h / 2;
  Text(out, cx, cy, "middle", y_title,
       " transform=\"rotate(-90 " + Px(cx) + " " + Px(cy) + ")\"");
}

// One polyline as a path; a non-finite value lifts the pen. `f` maps a value to the y axis.
template <typename Map>
void DrawSeries(std::ostream& out, const Panel& p, const std::vector<std::vector<double>>& rows,
                std::size_t t_col, std::size_t col, const char* color, Map f) {
  std::string d;
  bool pen_down = false;
  for (const auto& row : rows) {
    const double tv = row[t_col];
    const double vv = f(row[col]);
    if (!std::isfinite(tv) || !std::isfinite(vv)) {
      pen_down = false;
      continue;
    }
    d += pen_down ? " L" : " M";
    d += Px(p.X(tv)) + " " + Px(p.Y(vv));
    pen_down = true;
  }
  if (d.empty()) return;
  out << "<path fill=\"none\" stroke=\"" << color << "\" stroke-width=\"1.5\" d=\"" << d.substr(1)
      << "\"/>\n";
}

void LegendEntry(std::ostream& out, double x, double y, const char* color, const std::string& label) {
  Line(out, x, y - 4, x + 24, y - 4, std::string("stroke=\"") + color + "\" stroke-width=\"2\"");
  Text(out, x + 30, y, "start", label);
}

std::string MarkerStyle() {
  return std::string("stroke=\"") + kMarkerColor + "\" stroke-dasharray=\"4 3\"";
}

const char* ResidualColor(const std::string& name) {
  if (name == "residual_velocity") return kResidualVelocityColor;
  if (name == "residual_inequality") return kResidualInequalityColor;
  return kResidualPositionColor;
}

// "▲0" (constraint 0 activated) or "▼0" (deactivated).
std::string MarkerLabel(const RowEvent& event) {
  return std::string(event.activated ? "\u25B2" : "\u25BC") + std::to_string(event.constraint);
}

// A dashed vertical line through both panels at each switch, its label above the upper panel and
// a tooltip naming the event.
void DrawMarkers(std::ostream& out, const Panel& top, const Panel& bottom,
                 const std::vector<RowEvent>& markers) {
  for (const RowEvent& event : markers) {
    const double x = top.X(event.t);
    if (!std::isfinite(x)) continue;
    out << "<g class=\"switch\"><title>"
        << XmlEscape(EventName(event) + " " + std::to_string(event.constraint) + " at t = " +
                     FormatShort(event.t, 10))
        << "</title>\n";
    Line(out, x, top.y, x, top.y + top.h, MarkerStyle());
    Line(out, x, bottom.y, x, bottom.y + bottom.h, MarkerStyle());
    Text(out, x, top.y - 4, "middle", MarkerLabel(event), std::string(" fill=\"") + kMarkerColor + "\"");
    out << "</g>\n";
  }
}

// The legend of the switch markers, at (x, y) downwards.
void MarkerLegend(std::ostream& out, double x, double y, std::size_t dropped) {
  Line(out, x, y - 4, x + 24, y - 4, MarkerStyle());
  Text(out, x + 30, y, "start", "switch: \u25B2i on, \u25BCi off");
  if (dropped > 0) Text(out, x, y + 20, "start", "(+" + std::to_string(dropped) + " not marked)");
}

}  // namespace

bool PlotOptions::IsValid(std::string* why) const {
  auto fail = [why](const std::string& message) {
    if (why != nullptr) *why = message;
    return false;
  };
  if (width < 400) return fail("PlotOptions::width = " + std::to_string(width) + "; must be >= 400");
  if (height < 300) return fail("PlotOptions::height = " + std::to_string(height) + "; must be >= 300");
  if (!(residual_floor > 0)) {
    return fail("PlotOptions::residual_floor = " + FormatExact(residual_floor) + "; must be > 0");
  }
  if (max_points < 2) {
    return fail("PlotOptions::max_points = " + std::to_string(max_points) + "; must be >= 2");
  }
  return true;
}

std::string XmlEscape(const std::string& text) {
  std::string escaped;
  for (char c : text) {
    switch (c) {
      case '&': escaped += "&amp;"; break;
      case '<': escaped += "&lt;"; break;
      case '>': escaped += "&gt;"; break;
      case '"': escaped += "&quot;"; break;
      case '\'': escaped += "&apos;"; break;
      default:
        // Control characters other than tab and line breaks are not allowed in XML 1.0.
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\t' || c == '\n' || c == '\r') escaped += c;
    }
  }
  return escaped;
}

std::vector<double> LinearTicks(double lo, double hi, int target) {
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi) || target < 1) return {};
  const double raw = (hi - lo) / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * magnitude;
  for (double factor : {1.0, 2.0, 5.0}) {
    if (factor * magnitude >= raw) {
      step = factor * magnitude;
      break;
    }
  }
  std::vector<double> ticks;
  // k·step for integer k, so labels are exact multiples (no accumulated rounding).
  const double first = std::ceil(lo / step - 1e-9);
  for (double k = first; k * step <= hi + step * 1e-9; k += 1) {
    ticks.push_back(std::abs(k * step) < step * 1e-9 ? 0.0 : k * step);
  }
  return ticks;
}

void SvgPlotWriter::Begin(const std::vector<std::string>& columns, bool /*with_events*/) {
  columns_ = columns;
}

void SvgPlotWriter::Row(std::span<const double> values, std::span<const RowEvent> events) {
  rows_.Add(values);
  for (const RowEvent& event : events) {
    if (markers_.size() < options_.max_markers) {
      markers_.push_back(event);
    } else {
      ++markers_dropped_;
    }
  }
}

void SvgPlotWriter::End() {
  std::size_t t_col = 0;
  std::vector<std::size_t> value_cols;
  std::vector<std::size_t> residual_cols;
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    if (columns_[i] == "t") {
      t_col = i;
    } else if (columns_[i].rfind("residual_", 0) == 0) {
      residual_cols.push_back(i);
    } else {
      value_cols.push_back(i);
    }
  }
  const std::size_t drawn = std::min(value_cols.size(), kMaxSeries);
  const std::vector<std::vector<double>> rows = rows_.Rows();

  const double floor_log = std::log10(options_.residual_floor);
  auto log_residual = [this](double r) {
    if (std::isnan(r)) return r;
    return std::log10(std::max(r, options_.residual_floor));
  };
  Range t;
  Range upper;
  Range lower;
  for (const auto& row : rows) {
    if (row.size() != columns_.size()) continue;
    t.Add(row[t_col]);
    for (std::size_t k = 0; k < drawn; ++k) upper.Add(row[value_cols[k]]);
    for (std::size_t c : residual_cols) lower.Add(log_residual(row[c]));
  }
  t = t.Widened();
  upper = upper.Widened();
  const double upper_pad = (upper.hi - upper.lo) * 0.05;
  upper = {upper.lo - upper_pad, upper.hi + upper_pad};
  // Whole decades, at least one, never below the floor.
  lower = lower.empty() ? Range{floor_log, floor_log + 1} : lower;
  lower = {std::floor(lower.lo), std::max(std::ceil(lower.hi), std::floor(lower.lo) + 1)};

  const double W = options_.width;
  const double H = options_.height;
  const double plot_h = H - kTop - kBottom - kGap;
  Panel top{kLeft, kTop, W - kLeft - kRight, plot_h * kUpperFraction, t, upper};
  Panel bottom{kLeft, kTop + top.h + kGap, top.w, plot_h - top.h, t, lower};

  out_ << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
       << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << options_.width << "\" height=\""
       << options_.height << "\" viewBox=\"0 0 " << options_.width << " " << options_.height
       << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
       << "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n";
  if (!options_.title.empty()) Text(out_, W / 2, 28, "middle", options_.title, " font-size=\"16\"");

  DrawAxes(out_, top, LinearTicks(upper.lo, upper.hi, kTickTarget),
           [](double v) { return FormatShort(v, 6); }, "value");
  std::vector<double> decades;
  const double decade_step = std::max(1.0, std::ceil((lower.hi - lower.lo) / 10));
  for (double d = lower.lo; d <= lower.hi; d += decade_step) decades.push_back(d);
  DrawAxes(out_, bottom, decades, [](double d) { return "1e" + FormatShort(d, 4); },
           "residual (inf-norm, log; floor " + FormatShort(options_.residual_floor, 3) + ")");

  for (std::size_t k = 0; k < drawn; ++k) {
    DrawSeries(out_, top, rows, t_col, value_cols[k], kColors[k], [](double v) { return v; });
  }
  for (std::size_t c : residual_cols) {
    DrawSeries(out_, bottom, rows, t_col, c, ResidualColor(columns_[c]), log_residual);
  }
  DrawMarkers(out_, top, bottom, markers_);
  if (rows.empty()) Text(out_, top.x + top.w / 2, top.y + top.h / 2, "middle", "no samples");

  const double lx = top.x + top.w + 20;
  double ly = top.y + 14;
  for (std::size_t k = 0; k < drawn; ++k, ly += 20) LegendEntry(out_, lx, ly, kColors[k], columns_[value_cols[k]]);
  if (value_cols.size() > drawn) {
    Text(out_, lx, ly, "start", "(+" + std::to_string(value_cols.size() - drawn) + " not drawn)");
  }
  ly = bottom.y + 14;
  for (std::size_t c : residual_cols) {
    LegendEntry(out_, lx, ly, ResidualColor(columns_[c]), columns_[c]);
    ly += 20;
  }
  if (!markers_.empty()) MarkerLegend(out_, lx, ly, markers_dropped_);
  out_ << "</svg>\n";
  out_.flush();
}

}  // namespace tether::cli
