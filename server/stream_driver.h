// The transport-neutral driver of a state stream (StreamStates, Simulate): it runs a RunSource
// on the worker pool and hands each StateChunk to its transport (the gRPC write reactor in
// state_stream.h, the server-sent-events stream in sse_stream.h), which reports back when the
// chunk was accepted. Both transports thus share one flow control, one accounting and one end.
//
// A bounded pipeline of two stages: the computing unit (on the pool: Begin, Next, Delivered,
// Summarize and End — the only code that touches the source, so the source is never used from
// two threads at once) and the write in flight. The unit computes frame k + 1 while frame k is
// being written, and then waits: at most one frame is computed ahead of the one in flight, so a
// stream holds at most two frames (`max_frames_buffered` ≤ 2) and a reader that does not read
// stalls only its own run. No thread hand-off per frame while the computation is the slower
// stage: the unit sends each frame itself the moment the previous write is done and goes on
// computing; Written only records the completed write. While the writes are slower, Written
// sends the frame waiting for it and re-posts the unit, which then computes during that write.
// A paced stream (realtime_factor > 0) computes nothing ahead: the unit computes a frame only
// when no write is in flight and sends it at its due time.
//
// Pause and resume lose nothing: a frame computed ahead but never written stays in the session's
// replay history (RunSource::Delivered is called only for frames whose write completed).
// Cancelled and Abort only raise a flag; the unit sees it within one frame (within one step for
// a one-shot run, whose source polls the flag) and ends the call once no write is in flight.
// A source with nothing to send yet (a view-only stream caught up with its driver) parks the
// unit instead of polling: RunSource::WaitForMore registers a wake-up, and the first wake-up
// (from the source, Cancelled or Abort) posts the unit again, once.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

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
  // How long a frame's samples may wait for the rest of it (RunSource::Next's return_by): a
  // slow run (seconds per sample) still reaches its client sample by sample, and a client that
  // cancels loses at most this much of it. It is also a stream's time slice on its worker: a
  // run with no sample due for minutes gives the worker to the other streams after it.
  static constexpr std::chrono::milliseconds kFrameComputeLimit{250};

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

  // The transport's reports (any thread): the chunk given to Send was accepted (`ok`) or cannot
  // be (the client is gone); the client went away while no write was in flight.
  void Written(bool ok);
  void Cancelled() {
    cancelled_.store(true);
    Wake();
  }
  // The transport is done with the call (after Close): frees the source, runs `on_done`.
  void Release();

 protected:
  // Writes `chunk` (valid until Written); exactly one write is in flight at a time. May run on
  // any thread, concurrently with the transport's own callbacks; must not call Written itself.
  virtual void Send(const v1::StateChunk* chunk) = 0;
  // Ends the call with `status` (called once; no Send after it).
  virtual void Close(const grpc::Status& status) = 0;

 private:
  enum class Phase { kHeader, kFrames, kSummary, kFinished };
  // What the unit does next, decided under mutex_ (NextTodo).
  enum class Todo { kDeliver, kStop, kFinish, kBegin, kCompute, kSendReady, kSummarize, kIdle };
  static constexpr int kNone = -1;  // no chunk

  void RunUnit();  // on the pool, by the holder of the unit
  Todo NextTodo();  // mutex_ held; kIdle gives the unit up
  void Deliver();   // Delivered for the frames whose write completed; frees their chunks
  bool BeginRun();  // the header; false if the call ended
  // Computes the next frame; false if the unit was given up (parked, or waiting to send).
  bool ComputeFrame();
  // Sends the ready frame (no write in flight), a paced one once due; false when the unit was
  // scheduled for its due time instead.
  bool SendReadyWhenDue();
  void SendSummary();
  void Park();  // nothing to send now: waits for the source's wake-up (or a cancel)
  void Wake();  // ends a Park: posts the unit if it is parked
  // Ends the call (no write in flight): releases the source, then Close(status).
  void End(const simulate::Status& end, const grpc::Status& status);
  // Ends the call for a cancel, an abort or a failed write.
  void Stop();
  // A cleared chunk that is neither in flight, ready nor awaiting Delivered.
  int TakeFreeChunk();
  v1::StateChunk& Chunk(int index) { return chunks_[static_cast<std::size_t>(index)]; }
  // Makes chunk `index` (taken from ready_ if it waits there) the write in flight and sends it;
  // the unit's way to write (Written sends a ready frame under its own lock).
  void WriteChunk(int index);
  [[nodiscard]] bool paced() const { return settings_.realtime_factor > 0.0; }

  WorkerPool* pool_;
  StreamCounters* counters_;
  std::unique_ptr<RunSource> source_;
  Settings settings_;
  RpcLog log_;
  std::function<void(StreamDriver*)> on_done_;

  std::atomic<bool> cancelled_{false};
  std::atomic<bool> aborted_{false};
  // Parking (Park/Wake): kParked once the unit waits for a wake-up (then the unit is that
  // wake-up), kWoken once one came; whoever sees the other's bit already set posts the unit, so
  // exactly one does. RunUnit clears both.
  static constexpr int kParked = 1;
  static constexpr int kWoken = 2;
  std::atomic<int> park_state_{0};

  // The pipeline, under mutex_: two chunks, each free, being computed, ready (a frame computed
  // while another write was in flight), in flight, or written and awaiting Delivered.
  std::mutex mutex_;
  std::array<v1::StateChunk, 2> chunks_;
  bool unit_held_ = true;     // the unit is running, scheduled or parked (Begin posts it)
  int in_flight_ = kNone;
  int ready_ = kNone;
  std::vector<int> written_;  // frames whose write completed, in order, for Deliver
  bool write_failed_ = false;
  bool summary_written_ = false;
  std::size_t frames_held_ = 0;  // computed and not yet written: 0, 1 or 2

  // The unit's own state (no lock: only the holder of the unit touches it).
  Phase phase_ = Phase::kHeader;
  bool begun_ = false;  // source_->Begin succeeded (End must be called)
  bool ended_ = false;  // the source reported its end (end_); no more frames
  simulate::Status end_;
  grpc::Status final_status_;
  v1::Termination summary_termination_ = v1::TERMINATION_UNSPECIFIED;
  std::uint64_t samples_delivered_ = 0;  // in frames whose write completed, for the log line
  std::uint64_t frames_delivered_ = 0;
  double t_start_ = 0.0;  // simulated time at the stream's start, for pacing
  std::chrono::steady_clock::time_point wall_start_;
};

}  // namespace tether::server
