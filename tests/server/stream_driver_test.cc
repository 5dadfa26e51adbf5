// The stream driver's pipeline over a transport of plain threads — no gRPC, so that
// ThreadSanitizer sees every hand-off (scripts/sanitize tsan runs this): every frame is
// delivered once and in order, the source is never entered from two threads, a stream holds at
// most two frames, a reader that stops reading stalls the source one frame ahead of the write
// it waits on, a paced stream computes nothing ahead, and cancel, abort and failed writes end
// the call once, with their status, only after the last write.
#include "stream_driver.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <future>
#include <random>
#include <thread>
#include <vector>

namespace tether::server {
namespace {

using namespace std::chrono_literals;

// What the source saw, shared with the test (it outlives the source, which the driver frees).
struct SourceLog {
  std::atomic<int> inside{0};  // calls running now
  std::atomic<bool> overlapped{false};
  std::atomic<int> computed{0};  // frames made by Next
  std::atomic<bool> ended{false};
  std::mutex mutex;
  std::vector<std::uint64_t> delivered;  // first_sample_index of each Delivered frame
};

// A source of `frames` frames of `samples` samples (sample i at t = i · 1 ms), then the end.
class CountingSource final : public RunSource {
 public:
  CountingSource(SourceLog* log, int frames, std::size_t samples,
                 std::chrono::microseconds compute = 0us)
      : log_(log), frames_(frames), samples_(samples), compute_(compute) {}

  grpc::Status Begin(const std::atomic<bool>* /*cancel*/, v1::StreamHeader* header) override {
    Inside inside(log_);
    header->set_t_start(0.0);
    return grpc::Status::OK;
  }
  simulate::Status Next(std::size_t max_samples, std::chrono::steady_clock::time_point,
                        v1::Frame* frame) override {
    Inside inside(log_);
    EXPECT_EQ(max_samples, samples_);
    if (next_ == frames_) return {simulate::Termination::kReachedEnd, 0.0, ""};
    const auto first = static_cast<std::uint64_t>(next_) * samples_;
    frame->set_first_sample_index(first);
    for (std::size_t i = 0; i < samples_; ++i) {
      frame->add_t(1e-3 * static_cast<double>(first + i));
    }
    if (compute_ > 0us) std::this_thread::sleep_for(compute_);
    ++next_;
    ++log_->computed;
    if (next_ == frames_) return {simulate::Termination::kReachedEnd, 0.0, ""};
    return {};
  }
  void Delivered(const v1::Frame& frame) override {
    Inside inside(log_);
    std::lock_guard lock(log_->mutex);
    log_->delivered.push_back(frame.first_sample_index());
  }
  grpc::Status Summarize(const simulate::Status& end, v1::StreamSummary* summary) override {
    Inside inside(log_);
    summary->set_termination(end.reason == simulate::Termination::kReachedEnd
                                 ? v1::TERMINATION_REACHED_END
                                 : v1::TERMINATION_CANCELLED);
    return grpc::Status::OK;
  }
  [[nodiscard]] simulate::Statistics Work() const override { return {}; }
  void End(const simulate::Status& /*end*/) override {
    Inside inside(log_);
    log_->ended = true;
  }

 private:
  // Marks a call as running; a second one at the same time is an overlap.
  struct Inside {
    explicit Inside(SourceLog* source_log) : log(source_log) {
      if (log->inside.fetch_add(1) != 0) log->overlapped = true;
    }
    ~Inside() { log->inside.fetch_sub(1); }
    SourceLog* log;
  };

  SourceLog* log_;
  int frames_;
  std::size_t samples_;
  std::chrono::microseconds compute_;
  int next_ = 0;
};

// A transport whose writes complete on a thread of its own after a random delay of up to
// `max_delay`; a stalled transport completes none until Disconnect, which fails the write in
// flight as a client that went away does. `fail_at` fails that write (0-based, counting the
// header) instead.
class ThreadTransport final : public StreamDriver {
 public:
  struct Options {
    std::chrono::microseconds max_delay = 50us;
    int fail_at = -1;
    int stall_after = -1;  // writes accepted before the reader stops reading; -1: never
  };

  ThreadTransport(WorkerPool* pool, StreamCounters* counters, std::unique_ptr<RunSource> source,
                  Settings settings, Options options)
      : StreamDriver(pool, counters, std::move(source), settings,
                     RpcLog(false, LogLevel::kError, nullptr, true, "Test"), nullptr),
        options_(options),
        writer_([this] { WriteLoop(); }) {}
  ~ThreadTransport() override {
    {
      std::lock_guard lock(mutex_);
      quit_ = true;
    }
    wake_.notify_all();
    writer_.join();
  }

  // The call's status once Close ran.
  grpc::Status Wait() {
    EXPECT_EQ(closed_future_.wait_for(30s), std::future_status::ready) << "the call never ended";
    return closed_future_.get();
  }
  void Disconnect() {
    {
      std::lock_guard lock(mutex_);
      disconnected_ = true;
    }
    wake_.notify_all();
  }
  // The kinds of the chunks written, in order: 'h'eader, 'f'rame, 's'ummary.
  std::string kinds() {
    std::lock_guard lock(mutex_);
    return kinds_;
  }
  int closes() const { return closes_.load(); }

 private:
  void Send(const v1::StateChunk* chunk) override {
    {
      std::lock_guard lock(mutex_);
      EXPECT_EQ(pending_, nullptr) << "two writes in flight";
      EXPECT_EQ(closes_.load(), 0) << "a write after Close";
      pending_ = chunk;
    }
    wake_.notify_all();
  }
  void Close(const grpc::Status& status) override {
    EXPECT_EQ(closes_.fetch_add(1), 0) << "Close called twice";
    {
      std::lock_guard lock(mutex_);
      EXPECT_EQ(pending_, nullptr) << "Close with a write in flight";
    }
    closed_.set_value(status);
  }

  void WriteLoop() {
    std::mt19937 random(12345);
    std::uniform_int_distribution<long> delay(0, options_.max_delay.count());
    std::unique_lock lock(mutex_);
    for (int written = 0;; ++written) {
      const bool stall = options_.stall_after >= 0 && written >= options_.stall_after;
      wake_.wait(lock, [&] { return quit_ || (pending_ != nullptr && (!stall || disconnected_)); });
      if (quit_) return;
      const v1::StateChunk* chunk = pending_;
      kinds_ += chunk->has_header() ? 'h' : chunk->has_frame() ? 'f' : 's';
      const bool ok = !disconnected_ && written != options_.fail_at;
      lock.unlock();
      std::this_thread::sleep_for(std::chrono::microseconds(delay(random)));
      lock.lock();
      pending_ = nullptr;
      lock.unlock();
      Written(ok);
      lock.lock();
    }
  }

  Options options_;
  std::mutex mutex_;
  std::condition_variable wake_;
  const v1::StateChunk* pending_ = nullptr;
  bool disconnected_ = false;
  bool quit_ = false;
  std::string kinds_;
  std::atomic<int> closes_{0};
  std::promise<grpc::Status> closed_;
  std::shared_future<grpc::Status> closed_future_ = closed_.get_future().share();
  std::thread writer_;
};

// One stream's world: a pool, the server's counters, what the source saw.
struct Harness {
  std::unique_ptr<ThreadTransport> Start(int frames, std::size_t samples,
                                         ThreadTransport::Options options,
                                         double realtime_factor = 0.0,
                                         std::chrono::microseconds compute = 0us) {
    auto stream = std::make_unique<ThreadTransport>(
        &pool_, &counters_, std::make_unique<CountingSource>(&log_, frames, samples, compute),
        StreamDriver::Settings{.frame_samples = samples, .realtime_factor = realtime_factor},
        options);
    stream->Begin();
    return stream;
  }
  // After Close: the driver's last act; the pool's threads are joined before the stream dies.
  void Finish(std::unique_ptr<ThreadTransport> stream) {
    pool_.Stop();
    stream->Release();
  }
  std::vector<std::uint64_t> Delivered() {
    std::lock_guard lock(log_.mutex);
    return log_.delivered;
  }
  static std::vector<std::uint64_t> FirstIndices(int frames, std::size_t samples) {
    std::vector<std::uint64_t> out;
    for (int k = 0; k < frames; ++k) out.push_back(static_cast<std::uint64_t>(k) * samples);
    return out;
  }

  WorkerPool pool_{2};
  StreamCounters counters_;
  SourceLog log_;
};

class StreamDriverTest : public ::testing::Test, public Harness {};

TEST_F(StreamDriverTest, EveryFrameIsDeliveredOnceInOrderThenTheSummary) {
  // Writes slower than computing, then computing slower than writes: both pipeline regimes.
  for (const auto compute : {0us, 100us}) {
    SCOPED_TRACE(compute.count());
    Harness run;
    auto stream = run.Start(300, 16, {.max_delay = 50us}, 0.0, compute);
    EXPECT_TRUE(stream->Wait().ok());
    EXPECT_EQ(stream->kinds(), "h" + std::string(300, 'f') + "s");
    EXPECT_EQ(run.Delivered(), FirstIndices(300, 16));
    EXPECT_FALSE(run.log_.overlapped) << "the source was entered from two threads at once";
    EXPECT_TRUE(run.log_.ended);
    EXPECT_LE(run.counters_.max_frames_buffered.load(), 2u);
    EXPECT_EQ(run.counters_.frames_buffered.load(), 0u);
    run.Finish(std::move(stream));
  }
}

TEST_F(StreamDriverTest, AReaderThatStopsReadingStallsTheSourceOneFrameAhead) {
  // The header and frames 0-2 are accepted; frame 3's write never completes.
  auto stream = Start(1000, 8, {.max_delay = 0us, .stall_after = 4});
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(log_.computed.load(), 5) << "frames 0-3 written or in flight, frame 4 ahead";
  EXPECT_EQ(counters_.frames_buffered.load(), 2u);
  EXPECT_EQ(counters_.max_frames_buffered.load(), 2u);
  stream->Cancelled();
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(stream->closes(), 0) << "closed with a write in flight";
  stream->Disconnect();  // the write in flight fails, as it does when a client leaves
  EXPECT_EQ(stream->Wait().error_code(), grpc::StatusCode::CANCELLED);
  EXPECT_EQ(Delivered(), FirstIndices(3, 8)) << "only frames whose write completed";
  EXPECT_EQ(counters_.frames_buffered.load(), 0u) << "the frame computed ahead was let go";
  EXPECT_TRUE(log_.ended);
  Finish(std::move(stream));
}

TEST_F(StreamDriverTest, APacedStreamComputesNothingAhead) {
  // 4 samples of 1 ms per frame at real time: a frame every 4 ms.
  auto stream = Start(25, 4, {.max_delay = 0us}, 1.0);
  EXPECT_TRUE(stream->Wait().ok());
  EXPECT_EQ(Delivered(), FirstIndices(25, 4));
  EXPECT_EQ(counters_.max_frames_buffered.load(), 1u);
  Finish(std::move(stream));
}

TEST_F(StreamDriverTest, AFailedWriteEndsTheCallAsAClientGone) {
  auto stream = Start(100, 8, {.max_delay = 20us, .fail_at = 6});  // the header, then frame 5
  EXPECT_EQ(stream->Wait().error_code(), grpc::StatusCode::CANCELLED);
  EXPECT_EQ(Delivered(), FirstIndices(5, 8));
  EXPECT_EQ(counters_.frames_buffered.load(), 0u);
  EXPECT_FALSE(log_.overlapped);
  Finish(std::move(stream));
}

// Cancels and aborts at random moments of a running stream: each call ends once, with its
// status, after its last write; what was delivered is a prefix of the frames, in order.
TEST_F(StreamDriverTest, CancelAndAbortAtAnyMomentEndTheCallOnce) {
  std::mt19937 random(2026);
  std::uniform_int_distribution<int> moment_us(0, 3000);
  for (int i = 0; i < 40; ++i) {
    SCOPED_TRACE(i);
    const bool abort = i % 2 == 1;
    Harness run;
    auto stream = run.Start(1'000'000, 16, {.max_delay = 30us});
    std::this_thread::sleep_for(std::chrono::microseconds(moment_us(random)));
    abort ? stream->Abort() : stream->Cancelled();
    EXPECT_EQ(stream->Wait().error_code(),
              abort ? grpc::StatusCode::UNAVAILABLE : grpc::StatusCode::CANCELLED);
    const std::vector<std::uint64_t> delivered = run.Delivered();
    EXPECT_EQ(delivered, FirstIndices(static_cast<int>(delivered.size()), 16));
    EXPECT_FALSE(run.log_.overlapped);
    EXPECT_EQ(run.counters_.frames_buffered.load(), 0u);
    EXPECT_LE(run.counters_.max_frames_buffered.load(), 2u);
    run.Finish(std::move(stream));
  }
}

}  // namespace
}  // namespace tether::server
