#include "cli/progress_bar.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/number_format.h"
#include "cli/terminal.h"

namespace tether::cli {

ProgressBar::ProgressBar(std::ostream& out, bool enabled, double t0, double t_end, int columns)
    : out_(out),
      enabled_(enabled),
      t0_(t0),
      t_end_(t_end),
      columns_(columns),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

std::string ProgressBar::Line(double t, std::uint64_t samples, double seconds) const {
  const bool bounded = std::isfinite(t_end_) && t_end_ > t0_;
  const double fraction = bounded ? std::clamp((t - t0_) / (t_end_ - t0_), 0.0, 1.0) : 0.0;
  std::vector<std::string> parts;
  if (bounded) {
    parts.push_back(std::to_string(static_cast<int>(std::lround(fraction * 100))) + "%");
    parts.push_back("t = " + FormatShort(t, 6) + " / " + FormatShort(t_end_, 6) + " s");
  } else {
    parts.push_back("t = " + FormatShort(t, 6) + " s");
  }
  parts.push_back(std::to_string(samples) + " samples");
  if (seconds > 0) parts.push_back(FormatShort(static_cast<double>(samples) / seconds, 4) + " samples/s");
  return bounded ? ProgressLine(fraction, parts, columns_) : FitLine(parts, columns_);
}

void ProgressBar::Update(double t, std::uint64_t samples) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_draw_ < kRedrawInterval) return;
  last_draw_ = now;
  drawn_ = true;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  // "\r" returns to the line start, "\x1b[K" erases what a longer previous line left.
  out_ << '\r' << Line(t, samples, seconds) << "\x1b[K" << std::flush;
}

void ProgressBar::Finish() {
  if (!enabled_ || !drawn_) return;
  out_ << "\r\x1b[K" << std::flush;
  drawn_ = false;
}

bool StderrIsTerminal() { return isatty(fileno(stderr)) != 0; }

}  // namespace tether::cli
