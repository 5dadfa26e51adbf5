// A one-line progress bar redrawn in place on a terminal, fitted to its width (ProgressLine):
//   [##########..........]  50%  t = 25 / 50 s  2501 samples  12034 samples/s
// Enabled only when the stream is a terminal (StderrIsTerminal), so redirected stderr and
// tests see nothing; redraws at most every kRedrawInterval so a fast run is not slowed by it.
#pragma once

#include <chrono>
#include <cstdint>
#include <ostream>

namespace tether::cli {

class ProgressBar {
 public:
  static constexpr std::chrono::milliseconds kRedrawInterval{100};
  // `t_end` may be +∞ (a run until cancelled): then no bar, only t and the counts. `columns`:
  // the terminal's width (TerminalColumns).
  ProgressBar(std::ostream& out, bool enabled, double t0, double t_end, int columns);

  void Update(double t, std::uint64_t samples);
  // Erases the bar so that the messages after it start on a clean line.
  void Finish();

  // The line as drawn for the given state (exposed for tests).
  [[nodiscard]] std::string Line(double t, std::uint64_t samples, double seconds) const;

 private:
  std::ostream& out_;
  bool enabled_;
  double t0_;
  double t_end_;
  int columns_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
  bool drawn_ = false;
};

// isatty(fileno(stderr)).
bool StderrIsTerminal();

}  // namespace tether::cli
