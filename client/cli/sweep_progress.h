// The progress line of `tether sweep`, redrawn in place on a terminal:
//   [##########....................]  12/36 runs  1 failed  8.3 runs/s  eta 3 s
// Enabled only when stderr is a terminal (StderrIsTerminal), redrawn at most every
// ProgressBar::kRedrawInterval, like the run's progress bar.
#pragma once

#include <chrono>
#include <cstddef>
#include <ostream>
#include <string>

namespace tether::cli {

class SweepProgress {
 public:
  // `total` runs of which `already_done` were finished before (a resumed sweep).
  // `columns`: the terminal's width (TerminalColumns).
  SweepProgress(std::ostream& out, bool enabled, std::size_t total, std::size_t already_done,
                int columns);

  // One more run finished; `failed`: it did not reach its end.
  void RunDone(bool failed);
  // Erases the line.
  void Finish();

  // The line for `done` runs (of which `failed` failed) after `seconds`; `rate_done` runs were
  // finished in this process (exposed for tests).
  [[nodiscard]] std::string Line(std::size_t done, std::size_t failed, std::size_t rate_done,
                                 double seconds) const;

 private:
  std::ostream& out_;
  bool enabled_;
  std::size_t total_;
  int columns_;
  std::size_t done_;
  std::size_t failed_ = 0;
  std::size_t done_here_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
  bool drawn_ = false;
};

}  // namespace tether::cli
