#include "stream_driver.h"

#include <algorithm>
#include <array>
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
      on_done_(std::move(on_done)) {
  written_.reserve(chunks_.size());  // never more: a chunk is reused only once delivered
}

void StreamDriver::Begin() {
  wall_start_ = std::chrono::steady_clock::now();
  pool_->Post([this] { RunUnit(); });
}

void StreamDriver::RunUnit() {
  park_state_.store(0);
  for (;;) {
    Todo todo = Todo::kIdle;
    {
      std::lock_guard lock(mutex_);
      todo = NextTodo();
    }
    switch (todo) {
      case Todo::kIdle:
        return;  // `this` may be gone from here on: the next Written owns the stream
      case Todo::kDeliver:
        Deliver();
        break;
      case Todo::kStop:
        Stop();
        return;
      case Todo::kFinish:
        End(end_, final_status_);
        return;
      case Todo::kBegin:
        if (!BeginRun()) return;
        break;
      case Todo::kCompute:
        if (!ComputeFrame()) return;
        break;
      case Todo::kSendReady:
        if (!SendReadyWhenDue()) return;
        break;
      case Todo::kSummarize:
        SendSummary();
        break;
    }
  }
}

StreamDriver::Todo StreamDriver::NextTodo() {
  const auto idle = [this] {
    unit_held_ = false;
    return Todo::kIdle;
  };
  // Every completed write is Delivered first, also when the stream stops: the session's resume
  // point must include it.
  if (!written_.empty()) return Todo::kDeliver;
  if (summary_written_) return Todo::kFinish;
  if (aborted_.load() || cancelled_.load() || write_failed_) {
    return in_flight_ == kNone ? Todo::kStop : idle();
  }
  if (phase_ == Phase::kHeader) return Todo::kBegin;
  if (phase_ == Phase::kSummary) return idle();  // the summary is in flight
  if (ready_ != kNone) return in_flight_ == kNone ? Todo::kSendReady : idle();
  if (ended_) return in_flight_ == kNone ? Todo::kSummarize : idle();
  if (paced() && in_flight_ != kNone) return idle();
  return Todo::kCompute;
}

void StreamDriver::Deliver() {
  std::array<int, 2> done{kNone, kNone};
  {
    std::lock_guard lock(mutex_);
    std::copy(written_.begin(), written_.end(), done.begin());
    written_.clear();
  }
  // The chunks are free once taken out of written_, but only the unit reuses a chunk.
  for (const int index : done) {
    if (index == kNone) continue;
    const v1::Frame& frame = Chunk(index).frame();
    source_->Delivered(frame);
    samples_delivered_ += static_cast<std::uint64_t>(frame.t_size());
    ++frames_delivered_;
  }
}

bool StreamDriver::BeginRun() {
  const auto now = std::chrono::steady_clock::now();
  const auto retry = source_->RetryBeginIn(
      std::chrono::duration_cast<std::chrono::milliseconds>(now - wall_start_));
  if (retry.count() > 0) {
    pool_->PostAt(now + retry, [this] { RunUnit(); });
    return false;
  }
  const int index = TakeFreeChunk();
  v1::StateChunk& chunk = Chunk(index);
  const grpc::Status status = Bounded(source_->Begin(&cancelled_, chunk.mutable_header()));
  if (!status.ok()) {
    phase_ = Phase::kFinished;
    Close(log_.Finish(status));
    return false;
  }
  begun_ = true;
  wall_start_ = std::chrono::steady_clock::now();  // pacing starts with the header
  t_start_ = chunk.header().t_start();
  phase_ = Phase::kFrames;
  WriteChunk(index);
  return true;
}

bool StreamDriver::ComputeFrame() {
  const int index = TakeFreeChunk();
  v1::StateChunk& chunk = Chunk(index);
  v1::Frame* frame = chunk.mutable_frame();
  const simulate::Status status = source_->Next(
      settings_.frame_samples, std::chrono::steady_clock::now() + kFrameComputeLimit, frame);
  if (status.ended()) {
    ended_ = true;
    end_ = status;
  }
  if (frame->t().empty()) {
    if (ended_) return true;  // the summary follows once no write is in flight
    Park();
    return false;
  }
  bool send = false;
  {
    std::lock_guard lock(mutex_);
    ++frames_held_;
    ++counters_->frames_buffered;
    std::size_t mark = counters_->max_frames_buffered.load();
    while (frames_held_ > mark &&
           !counters_->max_frames_buffered.compare_exchange_weak(mark, frames_held_)) {
    }
    // With no write in flight the unit sends at once and computes on (no hand-off); otherwise
    // the frame waits for the write, and Written sends it.
    send = in_flight_ == kNone && !paced();
    (send ? in_flight_ : ready_) = index;
  }
  if (send) Send(&chunk);
  return true;
}

bool StreamDriver::SendReadyWhenDue() {
  int index = kNone;
  {
    std::lock_guard lock(mutex_);
    index = ready_;
  }
  v1::StateChunk& chunk = Chunk(index);
  if (paced()) {
    const double t_last = chunk.frame().t(chunk.frame().t_size() - 1);
    const auto due = wall_start_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                       std::chrono::duration<double>((t_last - t_start_) /
                                                                     settings_.realtime_factor));
    const auto now = std::chrono::steady_clock::now();
    if (due > now) {
      // The unit stays held through the wait; a cancel is seen within one slice.
      pool_->PostAt(std::min(due, now + kPacingSlice), [this] { RunUnit(); });
      return false;
    }
  }
  WriteChunk(index);
  return true;
}

void StreamDriver::SendSummary() {
  const int index = TakeFreeChunk();
  v1::StateChunk& chunk = Chunk(index);
  final_status_ = Bounded(source_->Summarize(end_, chunk.mutable_summary()));
  summary_termination_ = chunk.summary().termination();
  phase_ = Phase::kSummary;
  WriteChunk(index);
}

void StreamDriver::WriteChunk(int index) {
  {
    std::lock_guard lock(mutex_);
    in_flight_ = index;
    if (ready_ == index) ready_ = kNone;
  }
  Send(&Chunk(index));
}

int StreamDriver::TakeFreeChunk() {
  int index = kNone;
  {
    std::lock_guard lock(mutex_);
    // One chunk at most is taken (in flight, or written since Deliver ran): ready_ is empty
    // whenever the unit computes.
    const auto taken = [this](int i) {
      return in_flight_ == i || ready_ == i ||
             std::find(written_.begin(), written_.end(), i) != written_.end();
    };
    index = taken(0) ? 1 : 0;
  }
  // A frame is cleared in place: its arrays keep their capacity for the next frame instead of
  // being freed and grown again sample by sample.
  v1::StateChunk& chunk = Chunk(index);
  if (chunk.has_frame()) {
    chunk.mutable_frame()->Clear();
  } else {
    chunk.Clear();
  }
  return index;
}

void StreamDriver::Park() {
  if (!source_->WaitForMore([this] { Wake(); })) {
    pool_->Post([this] { RunUnit(); });
    return;
  }
  // Nothing of `this` is touched after this: a wake-up may run the stream to its end at once.
  if ((park_state_.fetch_or(kParked) & kWoken) != 0) pool_->Post([this] { RunUnit(); });
}

void StreamDriver::Wake() {
  if (park_state_.fetch_or(kWoken) == kParked) pool_->Post([this] { RunUnit(); });
}

void StreamDriver::Written(bool ok) {
  int send = kNone;
  bool post = false;
  {
    std::lock_guard lock(mutex_);
    const int done = std::exchange(in_flight_, kNone);
    if (done != kNone) {
      const v1::StateChunk& chunk = Chunk(done);
      if (chunk.has_frame()) {
        --frames_held_;
        --counters_->frames_buffered;
        if (ok) written_.push_back(done);
      } else if (chunk.has_summary()) {
        summary_written_ = ok;
      }
    }
    // The client is gone (cancelled, deadline, disconnect) or the server is shutting down.
    if (!ok) write_failed_ = true;
    if (ok && ready_ != kNone && !paced() && !cancelled_.load() && !aborted_.load()) {
      send = in_flight_ = std::exchange(ready_, kNone);
    }
    if (!unit_held_) {
      unit_held_ = true;
      post = true;
    }
  }
  // The unit cannot end the call while `send` is in flight, nor before the posted unit runs.
  if (send != kNone) Send(&Chunk(send));
  if (post) pool_->Post([this] { RunUnit(); });
}

void StreamDriver::Stop() {
  if (aborted_.load()) {
    End({simulate::Termination::kCancelled, 0.0, "server shutting down"},
        Error(grpc::StatusCode::UNAVAILABLE,
              "server shutting down; resume the session's stream on a live server"));
  } else if (cancelled_.load()) {
    End({simulate::Termination::kCancelled, 0.0, "cancelled by the client"},
        Error(grpc::StatusCode::CANCELLED, "stream cancelled by the client"));
  } else {
    End({simulate::Termination::kCancelled, 0.0, "write failed"},
        Error(grpc::StatusCode::CANCELLED, "the client went away"));
  }
}

void StreamDriver::End(const simulate::Status& end, const grpc::Status& status) {
  if (phase_ == Phase::kFinished) return;
  // After the summary the source's own termination (TERMINATION_PAUSED) is the one to log.
  const v1::Termination termination =
      phase_ == Phase::kSummary ? summary_termination_ : TerminationToProto(end.reason);
  phase_ = Phase::kFinished;
  {
    std::lock_guard lock(mutex_);
    if (ready_ != kNone) {  // computed ahead, never written: the replay history keeps it
      ready_ = kNone;
      --frames_held_;
      --counters_->frames_buffered;
    }
  }
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
