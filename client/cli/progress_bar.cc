#include "cli/progress_bar.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "cli/number_format.h"

namespace tether::cli {

ProgressBar::ProgressBar(std::ostream& out, bool enabled, double t0, double t_end)
    : out_(out),
      enabled_(enabled),
      t0_(t0),
      t_end_(t_end),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

std::string ProgressBar::Line(double t, std::uint64_t samples, double seconds) const {
  std::string line;
  if (std::isfinite(t_end_) && t_end_ > t0_) {
    const double fraction = std::clamp((t - t0_) / (t_end_ - t0_), 0.0, 1.0);
    const int filled = static_cast<int>(std::lround(fraction * kBarWidth));
    line += "[" + std::string(static_cast<std::size_t>(filled), '#') +
            std::string(static_cast<std::size_t>(kBarWidth - filled), '.') + "] ";
    line += std::to_string(static_cast<int>(std::lround(fraction * 100))) + "%  ";
    line += "t = " + FormatShort(t, 6) + " / " + FormatShort(t_end_, 6) + " s  ";
  } else {
    line += "t = " + FormatShort(t, 6) + " s  ";
  }
  line += std::to_string(samples) + " samples";
  if (seconds > 0) line += "  " + FormatShort(static_cast<double>(samples) / seconds, 4) + " samples/s";
  return line;
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
