// The transport-neutral driver of a state stream (StreamStates, Simulate): it runs a RunSource
// on the worker pool and hands each StateChunk to its transport (the gRPC write reactor in
// state_stream.h, the server-sent-events stream in sse_stream.h), which reports back when the
// chunk was accepted. Both transports thus share one flow control, one accounting and one end.
//
// Flow control: exactly one unit of work exists per stream at any time — either a task on the
// worker pool (computing the next frame, or waiting for its real-time due time) or one write
// in flight. Written hands the next frame's computation back to the pool, so a reader that
// does not read stalls only its own stream, and the server holds at most one frame for it.
// Cancelled only raises a flag; the holder of the unit of work sees it within one frame (within
// one step for a one-shot run, whose source polls the flag) and finishes the call.
// A source with nothing to send yet (a view-only stream caught up with its driver) parks the
// stream instead of holding the unit of work: RunSource::WaitForMore registers a wake-up, and
// the first wake-up (from the source, Cancelled or Abort) posts the next computation, once.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include <grpcpp/support/status.h>

#include "rpc_log.h"
#include "run_source.h"
#include "worker_pool.h"

namespace tether::server {

// Server-wide counters a stream reports to.
struct StreamCounters {
  std::atomic<std::size_t> frames_buffered{0};    // computed, not yet written (all streams)
  std::atomic<std::size_t> max_frames_buffered{0};  // high-water mark of one stream
};

class StreamDriver {
 public:
  struct Settings {
    std::size_t frame_samples = 256;  // samples per frame, ≥ 1
    double realtime_factor = 0.0;     // simulated s per wall-clock s; 0 = unpaced
  };

  // `on_done` runs once when the call is over (Release), just before the transport deletes it.
  StreamDriver(WorkerPool* pool, StreamCounters* counters, std::unique_ptr<RunSource> source,
               Settings settings, RpcLog log, std::function<void(StreamDriver*)> on_done);
  virtual ~StreamDriver() = default;
  StreamDriver(const StreamDriver&) = delete;
  StreamDriver& operator=(const StreamDriver&) = delete;

  // Schedules the first frame. Call once, right after construction.
  void Begin();
  // Server shutdown: the stream ends at the next frame boundary with UNAVAILABLE.
  void Abort() {
    aborted_.store(true);
    Wake();
  }

  // The transport's reports: the chunk given to Send was accepted (`ok`) or cannot be (the
  // client is gone); the client went away while no write was in flight.
  void Written(bool ok);
  void Cancelled() {
    cancelled_.store(true);
    Wake();
  }
  // The transport is done with the call (after Close): frees the source, runs `on_done`.
  void Release();

 protected:
  // Writes `chunk` (valid until Written); exactly one write is in flight at a time.
  virtual void Send(const v1::StateChunk* chunk) = 0;
  // Ends the call with `status` (called once; no Send after it).
  virtual void Close(const grpc::Status& status) = 0;

 private:
  enum class Phase { kHeader, kFrames, kSummary, kFinished };

  void Compute();  // on the pool
  void WriteFrameWhenDue();
  void WriteSummary();
  void ReleaseFrame();  // the frame's write completed or was abandoned
  // Nothing to send now: waits for the source's wake-up (or a cancel) without a thread.
  void Park();
  // Ends a Park: posts the next computation if the stream is parked.
  void Wake();
  // Ends the call: releases the source, then Close(status).
  void End(const simulate::Status& end, const grpc::Status& status);
  // True if cancelled or aborted; then the call has been ended.
  bool StopRequested();

  WorkerPool* pool_;
  StreamCounters* counters_;
  std::unique_ptr<RunSource> source_;
  Settings settings_;
  RpcLog log_;
  std::function<void(StreamDriver*)> on_done_;

  std::atomic<bool> cancelled_{false};
  std::atomic<bool> aborted_{false};
  // Parking (Park/Wake): kParked once the stream waits for a wake-up (then the unit of work is
  // that wake-up), kWoken once one came; whoever sees the other's bit already set posts the
  // next computation, so exactly one does. Compute clears both.
  static constexpr int kParked = 1;
  static constexpr int kWoken = 2;
  std::atomic<int> park_state_{0};
  Phase phase_ = Phase::kHeader;
  bool begun_ = false;          // source_->Begin succeeded (End must be called)
  bool frame_in_flight_ = false;
  std::size_t frames_held_ = 0;  // computed and not yet written: 0 or 1
  std::uint64_t samples_delivered_ = 0;  // in frames whose write completed, for the log line
  std::uint64_t frames_delivered_ = 0;
  simulate::Status end_;        // set when the source reported its end
  bool ended_ = false;
  grpc::Status final_status_;
  v1::StateChunk chunk_;        // the one message being written
  double t_start_ = 0.0;        // simulated time at the stream's start, for pacing
  std::chrono::steady_clock::time_point wall_start_;
};

}  // namespace tether::server
