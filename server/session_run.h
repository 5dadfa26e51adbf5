// StreamStates' RunSource: advances a session, keeps the replay history, and leaves the
// session paused (resumable) however the stream ends.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include "run_source.h"
#include "session.h"

namespace tether::server {

class SessionRun final : public RunSource {
 public:
  // `store` (which holds `session`) enforces the server-wide replay budget after each frame.
  SessionRun(std::shared_ptr<Session> session, SessionStore* store,
             v1::StreamStatesRequest request, std::uint64_t max_steps_per_stream,
             std::uint64_t max_samples_per_stream);

  grpc::Status Begin(const std::atomic<bool>* cancel, v1::StreamHeader* header) override;
  simulate::Status Next(std::size_t max_samples, v1::Frame* frame) override;
  void Delivered(const v1::Frame& frame) override;
  grpc::Status Summarize(const simulate::Status& end, v1::StreamSummary* summary) override;
  [[nodiscard]] simulate::Statistics Work() const override;
  void End(const simulate::Status& end) override;

 private:
  // Horizon and grid of this stream; INVALID_ARGUMENT for a bad one. Caller holds the lock.
  grpc::Status ApplyHorizon(v1::StreamHeader* header);
  std::size_t Replay(std::size_t max_samples, v1::Frame* frame);
  simulate::Status Advance(std::size_t max_samples, v1::Frame* frame);

  std::shared_ptr<Session> session_;
  SessionStore* store_;
  v1::StreamStatesRequest request_;
  std::uint64_t max_steps_per_stream_;
  std::uint64_t max_samples_per_stream_;
  const std::atomic<bool>* cancel_ = nullptr;
  SampleWriter writer_;
  std::size_t columns_ = 0;            // all columns of the run
  std::uint64_t replay_next_ = 0;      // next sample to replay from the history
  std::uint64_t replay_end_ = 0;       // one past the last replayable sample
  std::uint64_t first_index_ = 0;      // first sample of this stream
  simulate::Statistics at_start_;  // the simulation's statistics when this stream began
  bool grid_restarted_ = false;
  bool limit_reached_ = false;
  double t_start_ = 0.0;
  double t_end_ = 0.0;
  std::uint64_t samples_sent_ = 0;
  std::chrono::steady_clock::time_point wall_start_ = std::chrono::steady_clock::now();
};

}  // namespace tether::server
