// Ctrl-C and SIGTERM as a request to stop at the next safe point, for commands that write
// rows (run, sweep): they finish the row in hand, close their output and print a summary
// instead of dying mid-line. A second signal acts as before (terminates).
#pragma once

#include <atomic>
#include <csignal>

namespace tether::cli {

// The exit code of a command stopped by Ctrl-C or SIGTERM (128 + SIGINT, the shell's convention).
inline constexpr int kExitInterrupted = 130;

// Installs the one-shot handlers for SIGINT and SIGTERM for its lifetime; stop_requested()
// turns true when one arrives.
class StopOnSignals {
 public:
  StopOnSignals();
  ~StopOnSignals();
  StopOnSignals(const StopOnSignals&) = delete;
  StopOnSignals& operator=(const StopOnSignals&) = delete;

  // The flag the handler sets (a lock-free atomic store is async-signal-safe); workers poll it.
  static const std::atomic<bool>& flag();
  [[nodiscard]] static bool stop_requested() { return flag().load(); }

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

}  // namespace tether::cli
