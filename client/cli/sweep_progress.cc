#include "cli/sweep_progress.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cli/number_format.h"
#include "cli/progress_bar.h"
#include "cli/terminal.h"

namespace tether::cli {

SweepProgress::SweepProgress(std::ostream& out, bool enabled, std::size_t total,
                             std::size_t already_done, int columns)
    : out_(out),
      enabled_(enabled),
      total_(total),
      columns_(columns),
      done_(already_done),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

std::string SweepProgress::Line(std::size_t done, std::size_t failed, std::size_t rate_done,
                                double seconds) const {
  const double fraction =
      total_ > 0 ? static_cast<double>(done) / static_cast<double>(total_) : 1.0;
  std::vector<std::string> parts = {std::to_string(done) + "/" + std::to_string(total_) + " runs",
                                    std::to_string(failed) + " failed"};
  if (seconds > 0 && rate_done > 0) {
    const double rate = static_cast<double>(rate_done) / seconds;
    parts.push_back(FormatShort(rate, 3) + " runs/s");
    if (done < total_) {
      parts.push_back("eta " + FormatShort(static_cast<double>(total_ - done) / rate, 2) + " s");
    }
  }
  return ProgressLine(fraction, parts, columns_);
}

void SweepProgress::RunDone(bool failed) {
  ++done_;
  ++done_here_;
  if (failed) ++failed_;
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_draw_ < ProgressBar::kRedrawInterval && done_ < total_) return;
  last_draw_ = now;
  drawn_ = true;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  out_ << '\r' << Line(done_, failed_, done_here_, seconds) << "\x1b[K" << std::flush;
}

void SweepProgress::Finish() {
  if (!enabled_ || !drawn_) return;
  out_ << "\r\x1b[K" << std::flush;
  drawn_ = false;
}

}  // namespace tether::cli
