#include "cli/stop_signals.h"

namespace tether::cli {
namespace {

std::atomic<bool> g_stop{false};

extern "C" void RequestStop(int /*signal*/) { g_stop.store(true); }

}  // namespace

StopOnSignals::StopOnSignals() {
  g_stop.store(false);
  struct sigaction action {};
  action.sa_handler = RequestStop;
  // One-shot: the next signal acts as before. (SA_RESETHAND is 0x80000000u on Linux, sa_flags an
  // int: the cast keeps the bit.)
  action.sa_flags = static_cast<int>(SA_RESETHAND);
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &old_int_);
  sigaction(SIGTERM, &action, &old_term_);
}

StopOnSignals::~StopOnSignals() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
}

const std::atomic<bool>& StopOnSignals::flag() { return g_stop; }

}  // namespace tether::cli
