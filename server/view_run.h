// StreamStates' RunSource for a read-only viewer (StreamStatesRequest.view_only): sends what
// the session's driving stream computes, from the replay history, and never touches the run.
//
// Bound on the driver: none of the driver's work waits for a viewer. The driver appends to
// the history and wakes the waiting viewers (a callback that posts their next frame to the
// pool); a viewer copies from the history under the session's lock, for one frame at a time.
// So a viewer costs the driver only the session lock's short copy sections and a wake-up per
// frame, and a viewer that does not read holds at most two frames (stream_driver.h); when the history (bounded
// by replay_bytes) drops samples the viewer has not read, it is told (EVENT_KIND_SAMPLES_LOST)
// and continues at the oldest retained sample. When the session's run has failed, a viewer
// that has sent every sample ends with that failure, as the driving stream did.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "run_source.h"
#include "session.h"

namespace tether::server {

class ViewRun final : public RunSource {
 public:
  ViewRun(std::shared_ptr<Session> session, v1::StreamStatesRequest request);

  grpc::Status Check() override;
  grpc::Status Begin(const std::atomic<bool>* cancel, v1::StreamHeader* header) override;
  // Sends what the driver computed: nothing to wait for, so `return_by` does not apply.
  simulate::Status Next(std::size_t max_samples, std::chrono::steady_clock::time_point return_by,
                        v1::Frame* frame) override;
  void Delivered(const v1::Frame& /*frame*/) override {}
  bool WaitForMore(std::function<void()> wake) override;
  grpc::Status Summarize(const simulate::Status& end, v1::StreamSummary* summary) override;
  void End(const simulate::Status& end) override;
  // A viewer computes nothing: its stream's log line reports no work.
  [[nodiscard]] simulate::Statistics Work() const override { return {}; }

 private:
  // The request's problems with the session as it is now: fields that belong to the driver,
  // stop conditions, columns, start index. Sets stop_, writer_, columns_ and next_. Caller
  // holds the session's lock.
  grpc::Status Validate(v1::StreamHeader* header);

  std::shared_ptr<Session> session_;
  v1::StreamStatesRequest request_;
  StopConditions stop_;
  SampleWriter writer_;
  std::size_t columns_ = 0;      // all columns of the run
  std::uint64_t next_ = 0;       // next sample to send
  std::uint64_t samples_sent_ = 0;
  std::uint64_t samples_lost_ = 0;
  double t_last_sent_ = 0.0;
  double t_start_ = 0.0;  // the session's t when the viewer joined, for Frame.progress
  double t_end_ = 0.0;
  std::optional<std::uint64_t> gap_from_;  // start of lost samples not yet reported
  bool stop_time_reached_ = false;
  bool paused_ = false;   // a stop condition ended the stream
  bool deleted_ = false;  // the session left the store (deleted or expired)
};

}  // namespace tether::server
