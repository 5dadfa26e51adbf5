#include "cli/sweep_runner.h"

#include <algorithm>
#include <mutex>
#include <thread>

namespace tether::cli {
namespace {

// Sleeps `wait` in short slices so that a stop request is honoured within kStopPoll.
void SleepUnlessStopped(std::chrono::milliseconds wait, const std::atomic<bool>& stop) {
  constexpr std::chrono::milliseconds kStopPoll{20};
  const auto until = std::chrono::steady_clock::now() + wait;
  while (!stop.load() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::min(kStopPoll, wait));
  }
}

// One attempt of one run: the stream's columns and last sample, handed on to the observer.
client::StreamEnd Attempt(client::Client& client, const v1::SimulateRequest& request,
                          SweepRunObserver* observer, const std::atomic<bool>& stop,
                          SweepRunOutcome* outcome) {
  outcome->value_names.clear();
  outcome->last_values.clear();
  client::StreamHandlers handlers;
  handlers.on_header = [&](const v1::StreamHeader& header, const client::StreamColumns& columns) {
    outcome->value_names = columns.names;
    if (observer != nullptr) observer->Begin(header, columns);
  };
  handlers.stop = &stop;  // Ctrl-C cancels the call: it waits neither for the run nor a frame
  handlers.on_sample = [&](const client::Sample& sample) {
    outcome->last_values.assign(sample.values.begin(), sample.values.end());
    outcome->last_t = sample.t;
    if (observer != nullptr) observer->Sample(sample);
    return true;
  };
  client::StreamEnd end = client.Simulate(request, handlers);
  if (observer != nullptr) observer->End();
  return end;
}

// Runs one index to its final outcome and reports it; a stopped run is not reported.
void RunOne(client::Client& client, std::size_t run, const SweepRunnerOptions& options,
            const SweepRunnerHooks& hooks, const std::atomic<bool>& stop, std::mutex& report) {
  const std::unique_ptr<SweepRunObserver> observer = hooks.observer ? hooks.observer(run) : nullptr;
  SweepRunOutcome outcome;
  outcome.run = run;
  auto backoff = options.initial_backoff;
  for (int attempt = 1;; ++attempt) {
    outcome.attempts = attempt;
    outcome.end = Attempt(client, hooks.request(run), observer.get(), stop, &outcome);
    if (stop.load() || outcome.end.cancelled_by_handler) return;
    const client::StreamEnd& end = outcome.end;
    if (!IsTransientFailure(client::StatusCodeName(end.error.code), end.summary.has_value())) break;
    if (attempt >= options.max_attempts) {
      // A server that refused the run answered: the row says so, and --resume runs it again.
      if (end.error.code != grpc::StatusCode::UNAVAILABLE) break;
      std::lock_guard lock(report);
      outcome.end.error.attempts = attempt;
      if (hooks.on_unavailable) hooks.on_unavailable(run, outcome.end.error);
      return;
    }
    SleepUnlessStopped(backoff, stop);
    backoff = std::min(backoff * 2, options.max_backoff);
  }
  std::lock_guard lock(report);
  hooks.on_done(std::move(outcome));
}

}  // namespace

bool IsTransientFailure(std::string_view status, bool summarized) {
  return status == "UNAVAILABLE" || (status == "RESOURCE_EXHAUSTED" && !summarized);
}

bool SweepRunnerOptions::IsValid(std::string* why) const {
  if (concurrency < 1) {
    *why = "SweepRunnerOptions::concurrency = " + std::to_string(concurrency) + "; must be >= 1";
    return false;
  }
  if (max_attempts < 1) {
    *why = "SweepRunnerOptions::max_attempts = " + std::to_string(max_attempts) + "; must be >= 1";
    return false;
  }
  if (initial_backoff.count() <= 0 || max_backoff < initial_backoff) {
    *why = "SweepRunnerOptions::initial_backoff = " + std::to_string(initial_backoff.count()) +
           " ms, max_backoff = " + std::to_string(max_backoff.count()) +
           " ms; must be 0 < initial_backoff <= max_backoff";
    return false;
  }
  return true;
}

void RunSweep(client::Client& client, const std::vector<std::size_t>& runs,
              const SweepRunnerOptions& options, const SweepRunnerHooks& hooks,
              const std::atomic<bool>& stop) {
  std::atomic<std::size_t> next{0};
  std::mutex report;
  auto worker = [&] {
    for (std::size_t i = next.fetch_add(1); i < runs.size() && !stop.load();
         i = next.fetch_add(1)) {
      RunOne(client, runs[i], options, hooks, stop, report);
    }
  };
  std::vector<std::thread> workers;
  const std::size_t count = std::min(options.concurrency, std::max<std::size_t>(runs.size(), 1));
  workers.reserve(count);
  for (std::size_t w = 0; w < count; ++w) workers.emplace_back(worker);
  for (std::thread& t : workers) t.join();
}

}  // namespace tether::cli
