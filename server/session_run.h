// StreamStates' RunSource for the session's driving stream: advances a session, keeps the
// replay history (and wakes the session's viewers as it grows), carries out ControlSession's
// queued commands between frames, pauses at the request's stop conditions, and leaves the
// session paused (resumable) however the stream ends.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "run_source.h"
#include "session.h"

namespace tether::server {

class SessionRun final : public RunSource {
 public:
  // `store` (which holds `session`) enforces the server-wide replay budget after each frame.
  SessionRun(std::shared_ptr<Session> session, SessionStore* store,
             v1::StreamStatesRequest request, std::uint64_t max_steps_per_stream,
             std::uint64_t max_samples_per_stream);

  // Waits while the session's driver lets go, as long as Session::AwaitDriverRelease does,
  // without holding a worker: the stream asks again after kRetryInterval.
  std::chrono::milliseconds RetryBeginIn(std::chrono::milliseconds waited) override;
  // The request against the session, unless a driving stream holds the run (it advances it
  // without the session's lock): then Begin checks once that stream let go.
  grpc::Status Check() override;
  grpc::Status Begin(const std::atomic<bool>* cancel, v1::StreamHeader* header) override;
  simulate::Status Next(std::size_t max_samples, std::chrono::steady_clock::time_point return_by,
                        v1::Frame* frame) override;
  void Delivered(const v1::Frame& frame) override;
  grpc::Status Summarize(const simulate::Status& end, v1::StreamSummary* summary) override;
  [[nodiscard]] simulate::Statistics Work() const override;
  void End(const simulate::Status& end) override;

 private:
  // The request's problems with the session as it is now, changing nothing: stop conditions,
  // columns, start index, horizon. Sets stop_, writer_, columns_, first_index_, t_end_ and
  // interval_. Caller holds the lock and no stream drives the session.
  grpc::Status Validate(v1::StreamHeader* header);
  // Part of Validate: sets the horizon and grid of this stream (t_end_, interval_);
  // INVALID_ARGUMENT for a bad one.
  grpc::Status CheckHorizon();
  // Gives the run the horizon and grid CheckHorizon accepted. Caller holds the lock.
  void ApplyHorizon();
  // Carries out the change of a ControlSession command on this worker (the only party that
  // may touch the run while the stream is open).
  void ApplyChange(const ControlCommand& command);
  std::size_t Replay(std::size_t max_samples, v1::Frame* frame);
  simulate::Status Advance(std::size_t max_samples,
                           std::chrono::steady_clock::time_point return_by, v1::Frame* frame);
  // Ends the stream at the frame boundary after the samples sent so far: TERMINATION_PAUSED.
  simulate::Status Pause(const std::string& cause, const v1::Frame& frame);

  std::shared_ptr<Session> session_;
  SessionStore* store_;
  v1::StreamStatesRequest request_;
  std::uint64_t max_steps_per_stream_;
  std::uint64_t max_samples_per_stream_;
  const std::atomic<bool>* cancel_ = nullptr;
  StopConditions stop_;
  bool stop_time_reached_ = false;  // a sent sample reached stop_.stop_time
  bool paused_ = false;             // Pause ended the stream
  std::string pause_message_;       // the summary's message then
  double t_last_sent_ = 0.0;
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
  double interval_ = 0.0;  // the output grid's interval this stream asks for
  std::uint64_t samples_sent_ = 0;
  std::chrono::steady_clock::time_point wall_start_ = std::chrono::steady_clock::now();
};

}  // namespace tether::server
