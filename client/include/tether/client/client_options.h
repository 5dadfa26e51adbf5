// How a Client calls: deadlines and the retry policy of unary calls.
#pragma once

#include <chrono>
#include <string>

namespace tether::client {

struct ClientOptions {
  // Deadline of each attempt of a unary call (ListModels, CreateSession, …) [ms], > 0.
  std::chrono::milliseconds deadline{30000};
  // Deadline of a whole stream (StreamStates, Simulate) [ms]; 0 = none (a stream may run long).
  std::chrono::milliseconds stream_deadline{0};
  // Unary calls that fail with UNAVAILABLE (and only those: the others would fail again, or
  // may have had an effect) are retried up to this many attempts in total, ≥ 1.
  int max_attempts = 4;
  // Wait before the 2nd attempt [ms], > 0; each further wait is `backoff_multiplier` times the
  // previous one, capped at `max_backoff`. Defaults: 100, 200, 400 ms → ≤ 0.7 s before giving up.
  std::chrono::milliseconds initial_backoff{100};
  std::chrono::milliseconds max_backoff{2000};  // ≥ initial_backoff
  double backoff_multiplier = 2.0;              // ≥ 1

  // Checks every field; on failure writes "ClientOptions::max_attempts = 0; must be >= 1".
  bool IsValid(std::string* why) const;
};

}  // namespace tether::client
