#include "stream_driver.h"

#include <algorithm>
#include <utility>

#include "errors.h"

namespace tether::server {
namespace {

// A paced frame waits in slices of at most this long, so that a cancellation during the wait
// is seen within it.
constexpr std::chrono::milliseconds kPacingSlice{50};

}  // namespace

StreamDriver::StreamDriver(WorkerPool* pool, StreamCounters* counters,
                         std::unique_ptr<RunSource> source, Settings settings, RpcLog log,
                         std::function<void(StreamDriver*)> on_done)
    : pool_(pool),
      counters_(counters),
      source_(std::move(source)),
      settings_(settings),
      log_(std::move(log)),
      on_done_(std::move(on_done)) {}

void StreamDriver::Begin() {
  wall_start_ = std::chrono::steady_clock::now();
  pool_->Post([this] { Compute(); });
}

bool StreamDriver::StopRequested() {
  if (cancelled_.load()) {
    simulate::Status end{simulate::Termination::kCancelled, 0.0, "cancelled by the client"};
    End(end, Error(grpc::StatusCode::CANCELLED, "stream cancelled by the client"));
    return true;
  }
  if (aborted_.load()) {
    simulate::Status end{simulate::Termination::kCancelled, 0.0, "server shutting down"};
    End(end, Error(grpc::StatusCode::UNAVAILABLE,
                   "server shutting down; resume the session's stream on a live server"));
    return true;
  }
  return false;
}

void StreamDriver::Compute() {
  park_state_.store(0);
  if (StopRequested()) return;
  if (phase_ == Phase::kHeader) {
    const auto now = std::chrono::steady_clock::now();
    const auto retry = source_->RetryBeginIn(
        std::chrono::duration_cast<std::chrono::milliseconds>(now - wall_start_));
    if (retry.count() > 0) {
      pool_->PostAt(now + retry, [this] { Compute(); });
      return;
    }
    const grpc::Status status = Bounded(source_->Begin(&cancelled_, chunk_.mutable_header()));
    if (!status.ok()) {
      phase_ = Phase::kFinished;
      Close(log_.Finish(status));
      return;
    }
    begun_ = true;
    wall_start_ = std::chrono::steady_clock::now();  // pacing starts with the header
    t_start_ = chunk_.header().t_start();
    phase_ = Phase::kFrames;
    Send(&chunk_);
    return;
  }
  chunk_.Clear();
  v1::Frame* frame = chunk_.mutable_frame();
  const simulate::Status status = source_->Next(settings_.frame_samples, frame);
  if (status.ended()) {
    ended_ = true;
    end_ = status;
  }
  if (frame->t().empty()) {
    if (ended_) {
      WriteSummary();
    } else {
      Park();
    }
    return;
  }
  ++counters_->frames_buffered;
  ++frames_held_;
  std::size_t mark = counters_->max_frames_buffered.load();
  while (frames_held_ > mark &&
         !counters_->max_frames_buffered.compare_exchange_weak(mark, frames_held_)) {
  }
  frame_in_flight_ = true;
  WriteFrameWhenDue();
}

void StreamDriver::WriteFrameWhenDue() {
  if (settings_.realtime_factor > 0.0) {
    const double t_last = chunk_.frame().t(chunk_.frame().t_size() - 1);
    const auto due = wall_start_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                       std::chrono::duration<double>((t_last - t_start_) /
                                                                     settings_.realtime_factor));
    const auto now = std::chrono::steady_clock::now();
    if (due > now) {
      if (cancelled_.load() || aborted_.load()) {
        ReleaseFrame();
        StopRequested();
        return;
      }
      pool_->PostAt(std::min(due, now + kPacingSlice), [this] { WriteFrameWhenDue(); });
      return;
    }
  }
  Send(&chunk_);
}

void StreamDriver::Park() {
  if (!source_->WaitForMore([this] { Wake(); })) {
    pool_->Post([this] { Compute(); });
    return;
  }
  // Nothing of `this` is touched after this: a wake-up may run the stream to its end at once.
  if ((park_state_.fetch_or(kParked) & kWoken) != 0) pool_->Post([this] { Compute(); });
}

void StreamDriver::Wake() {
  if (park_state_.fetch_or(kWoken) == kParked) pool_->Post([this] { Compute(); });
}

void StreamDriver::ReleaseFrame() {
  --counters_->frames_buffered;
  --frames_held_;
  frame_in_flight_ = false;
}

void StreamDriver::WriteSummary() {
  chunk_.Clear();
  final_status_ = Bounded(source_->Summarize(end_, chunk_.mutable_summary()));
  phase_ = Phase::kSummary;
  Send(&chunk_);
}

void StreamDriver::Written(bool ok) {
  if (frame_in_flight_) {
    ReleaseFrame();
    if (ok) {
      source_->Delivered(chunk_.frame());
      samples_delivered_ += static_cast<std::uint64_t>(chunk_.frame().t_size());
      ++frames_delivered_;
    }
  }
  if (!ok) {
    // The client is gone (cancelled, deadline, disconnect) or the server is shutting down.
    simulate::Status end{simulate::Termination::kCancelled, 0.0, "write failed"};
    End(end, Error(grpc::StatusCode::CANCELLED, "the client went away"));
    return;
  }
  if (phase_ == Phase::kSummary) {
    End(end_, final_status_);
    return;
  }
  if (ended_) {
    WriteSummary();
    return;
  }
  pool_->Post([this] { Compute(); });
}

void StreamDriver::End(const simulate::Status& end, const grpc::Status& status) {
  if (phase_ == Phase::kFinished) return;
  // After the summary the source's own termination (TERMINATION_PAUSED) is the one to log.
  const v1::Termination termination =
      phase_ == Phase::kSummary ? chunk_.summary().termination() : TerminationToProto(end.reason);
  phase_ = Phase::kFinished;
  StreamUsage usage{.samples = samples_delivered_,
                    .frames = frames_delivered_,
                    .termination = v1::Termination_Name(termination),
                    .work = {}};
  if (begun_) {
    usage.work = source_->Work();
    source_->End(end);
  }
  log_.set_stream(std::move(usage));
  Close(log_.Finish(status));
}

void StreamDriver::Release() {
  source_.reset();
  if (on_done_) on_done_(this);
}

}  // namespace tether::server
