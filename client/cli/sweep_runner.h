// Runs the Simulate calls of a sweep, `concurrency` at a time, over one client (one server, or a
// channel that balances over several replicas). A run that fails transiently (IsTransientFailure:
// the call never started, its replica went away mid-stream, or the server refused it for a
// limit on concurrent streams) is run again from the start after a backoff, on whichever replica
// the channel picks next (a dead replica's subchannel has left gRPC's round_robin ready set);
// every other outcome, a numerical failure included, is final.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tether/client/client.h"

namespace tether::cli {

// Whether a run that ended with `status` (a StatusCodeName, e.g. "UNAVAILABLE") may succeed when
// run again: UNAVAILABLE (the call never started, or its replica went away), or RESOURCE_EXHAUSTED
// before any summary (`summarized` false: the server refused to start it, "max_streams ...
// reached; retry later"). A run that ended RESOURCE_EXHAUSTED with a summary hit its step limit
// and would hit it again; DEADLINE_EXCEEDED ran for the whole deadline and would run out of it
// again. The runner retries these; --resume runs such rows again. The Python client's sweep
// has the same rule (client/python/tether/_retry.py, is_transient_failure).
bool IsTransientFailure(std::string_view status, bool summarized);

struct SweepRunnerOptions {
  // Runs in flight at once, >= 1.
  std::size_t concurrency = 4;
  // Calls per run while they fail transiently, >= 1. Default 5: with the waits below a run
  // gives up after 0.2 + 0.4 + 0.8 + 1.6 = 3 s without any replica or a free stream.
  int max_attempts = 5;
  // Wait before the 2nd call [ms], doubled before each further one up to max_backoff.
  std::chrono::milliseconds initial_backoff{200};
  std::chrono::milliseconds max_backoff{2000};

  // On failure writes e.g. "SweepRunnerOptions::concurrency = 0; must be >= 1".
  bool IsValid(std::string* why) const;
};

// What a finished run produced.
struct SweepRunOutcome {
  std::size_t run = 0;
  client::StreamEnd end;                 // summary, final status, replica
  std::vector<std::string> value_names;  // the stream's columns (empty: no header arrived)
  std::vector<double> last_values;       // the last sample's values (empty: no sample)
  double last_t = 0.0;                   // the last sample's time
  int attempts = 1;
};

// Receives the samples of one attempt of one run (e.g. to write its trajectory). A retried run
// gets Begin again for the new attempt.
class SweepRunObserver {
 public:
  virtual ~SweepRunObserver() = default;
  virtual void Begin(const v1::StreamHeader& header, const client::StreamColumns& columns) = 0;
  virtual void Sample(const client::Sample& sample) = 0;
  virtual void End() = 0;
};

struct SweepRunnerHooks {
  // The request of run i (called once per attempt).
  std::function<v1::SimulateRequest(std::size_t run)> request;
  // Called for every finished run, one call at a time (serialized), in completion order.
  std::function<void(SweepRunOutcome outcome)> on_done;
  // Called for a run given up after max_attempts UNAVAILABLE calls (serialized with on_done); a
  // run given up after RESOURCE_EXHAUSTED went to on_done (the server answered: its row says so).
  std::function<void(std::size_t run, const client::Error& error)> on_unavailable;
  // Optional: an observer per run (nullptr = none).
  std::function<std::unique_ptr<SweepRunObserver>(std::size_t run)> observer;
};

// Runs every index of `runs` and returns when all are done, or soon after *stop becomes true:
// then no new run starts, runs in flight are cancelled, and neither is reported.
void RunSweep(client::Client& client, const std::vector<std::size_t>& runs,
              const SweepRunnerOptions& options, const SweepRunnerHooks& hooks,
              const std::atomic<bool>& stop);

}  // namespace tether::cli
