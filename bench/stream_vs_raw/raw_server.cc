#include "stream_vs_raw/raw_server.h"

#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server.h>
#include <grpcpp/server_builder.h>
#include <grpcpp/support/server_callback.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <map>
#include <mutex>
#include <utility>

#include "common/hand_pendulum.h"
#include "tether/v1/simulation_service.grpc.pb.h"

namespace tether::bench {
namespace {

namespace v1 = tether::v1;
using Chunks = std::vector<v1::StateChunk>;

// Writes the chunks one at a time: the next write starts when the previous one completed.
class ReplayReactor : public grpc::ServerWriteReactor<v1::StateChunk> {
 public:
  explicit ReplayReactor(std::shared_ptr<const Chunks> chunks) : chunks_(std::move(chunks)) {
    WriteNext();
  }

  void OnWriteDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::CANCELLED, "raw server: the client went away"));
      return;
    }
    WriteNext();
  }
  void OnDone() override { delete this; }

 private:
  void WriteNext() {
    if (next_ == chunks_->size()) {
      Finish(grpc::Status::OK);
      return;
    }
    StartWrite(&(*chunks_)[next_++]);
  }

  std::shared_ptr<const Chunks> chunks_;
  std::size_t next_ = 0;
};

// Sends the recorded header and summary, and computes every recorded frame anew by hand: the
// message after the one in flight is prepared (a frame computed into the spare of two buffers)
// right after that write starts, on the thread that started it. A write may complete while the
// next message is still being prepared: then the preparing thread writes it when it is ready.
class HandSimulatedReactor : public grpc::ServerWriteReactor<v1::StateChunk> {
 public:
  explicit HandSimulatedReactor(std::shared_ptr<const Chunks> recorded)
      : recorded_(std::move(recorded)) {
    Pump();
  }

  void OnWriteDone(bool ok) override {
    {
      std::lock_guard lock(mutex_);
      in_flight_ = false;
      failed_ = failed_ || !ok;
    }
    Pump();
  }
  void OnDone() override { delete this; }

 private:
  // Writes the prepared message when no write is in flight and prepares the next, until both
  // are done; one thread at a time (the others leave it to the one pumping).
  void Pump() {
    std::unique_lock lock(mutex_);
    if (pumping_) return;
    pumping_ = true;
    for (;;) {
      if (in_flight_ && (have_prepared_ || failed_)) break;  // OnWriteDone pumps again
      if (failed_ || (have_prepared_ && prepared_ == nullptr)) {
        pumping_ = false;
        const bool failed = failed_;
        lock.unlock();
        Finish(failed ? grpc::Status(grpc::StatusCode::CANCELLED,
                                     "hand server: the client went away")
                      : grpc::Status::OK);
        return;
      }
      if (have_prepared_) {
        in_flight_ = true;
        have_prepared_ = false;
        const v1::StateChunk* message = prepared_;
        lock.unlock();
        StartWrite(message);
      } else {
        lock.unlock();
        const v1::StateChunk* next = Prepare();
        lock.lock();
        prepared_ = next;
        have_prepared_ = true;
        continue;
      }
      lock.lock();
    }
    pumping_ = false;
  }

  // The message to write after the one in flight; nullptr after the last.
  const v1::StateChunk* Prepare() {
    if (next_ == recorded_->size()) return nullptr;
    const v1::StateChunk& recorded = (*recorded_)[next_++];
    if (!recorded.has_frame()) return &recorded;
    v1::StateChunk& buffer = buffers_[spare_];
    spare_ ^= 1U;
    Simulate(recorded.frame(), buffer.mutable_frame());
    return &buffer;
  }

  // The recorded frame's samples, at its times: the stream's first sample is the initial state
  // tether sent (consistent), every later one is one hand-written step from the one before.
  void Simulate(const v1::Frame& recorded, v1::Frame* frame) {
    frame->set_first_sample_index(recorded.first_sample_index());
    *frame->mutable_progress() = recorded.progress();
    frame->mutable_t()->Clear();
    frame->mutable_values()->Clear();
    frame->mutable_residual_position()->Clear();
    frame->mutable_residual_velocity()->Clear();
    const int samples = recorded.t_size();
    frame->mutable_values()->Reserve(RawStreamServer::kHandColumns * samples);
    for (int k = 0; k < samples; ++k) {
      const double t = recorded.t(k);
      if (!started_) {
        for (int i = 0; i < 4; ++i) z_[static_cast<std::size_t>(i)] = recorded.values(i);
        started_ = true;
      } else {
        hand_.Step(t - t_, &z_);
      }
      t_ = t;
      AppendSample(t, frame);
    }
  }

  void AppendSample(double t, v1::Frame* frame) const {
    const double x = z_[0], y = z_[1], u = z_[2], w = z_[3];
    const double m = hand_.mass, g = hand_.gravity, l = hand_.length;
    const double r2 = x * x + y * y;
    const double lambda = -m * (u * u + w * w - g * y) / (2.0 * r2);
    frame->add_t(t);
    for (const double value : {x, y, u, w, lambda, 0.5 * m * (u * u + w * w) + m * g * y,
                               std::sqrt(r2)}) {
      frame->add_values(value);
    }
    frame->add_residual_position(std::abs(r2 - l * l));
    frame->add_residual_velocity(std::abs(2.0 * (x * u + y * w)));
  }

  std::shared_ptr<const Chunks> recorded_;
  std::size_t next_ = 0;  // the recorded message Prepare reproduces next
  std::mutex mutex_;
  bool pumping_ = false;
  bool in_flight_ = false;
  bool failed_ = false;
  bool have_prepared_ = false;
  const v1::StateChunk* prepared_ = nullptr;  // nullptr once every message is written
  std::array<v1::StateChunk, 2> buffers_;
  unsigned spare_ = 0;  // the buffer not in flight
  HandPendulum hand_;
  HandPendulum::State z_{};
  double t_ = 0.0;
  bool started_ = false;
};

// Finishes at once with an error status.
class FailReactor : public grpc::ServerWriteReactor<v1::StateChunk> {
 public:
  explicit FailReactor(const grpc::Status& status) { Finish(status); }
  void OnDone() override { delete this; }
};

// Answers StreamStates with the messages recorded for the request's frame_samples, replayed or
// reproduced by hand as `mode` says.
class RecordedStreamService
    : public v1::SimulationService::WithCallbackMethod_StreamStates<
          v1::SimulationService::Service> {
 public:
  explicit RecordedStreamService(RawStreamServer::Mode mode) : mode_(mode) {}

  grpc::ServerWriteReactor<v1::StateChunk>* StreamStates(
      grpc::CallbackServerContext* /*context*/, const v1::StreamStatesRequest* request) override {
    std::shared_ptr<const Chunks> chunks = Find(request->frame_samples());
    if (chunks == nullptr) {
      return new FailReactor(grpc::Status(
          grpc::StatusCode::FAILED_PRECONDITION,
          "raw server: no pre-built frames for frame_samples = " +
              std::to_string(request->frame_samples())));
    }
    if (mode_ == RawStreamServer::Mode::kHandSimulated) {
      return new HandSimulatedReactor(std::move(chunks));
    }
    return new ReplayReactor(std::move(chunks));
  }

  void Set(unsigned frame_samples, Chunks chunks) {
    std::lock_guard<std::mutex> lock(mutex_);
    chunks_[frame_samples] = std::make_shared<const Chunks>(std::move(chunks));
  }

 private:
  std::shared_ptr<const Chunks> Find(unsigned frame_samples) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = chunks_.find(frame_samples);
    return found == chunks_.end() ? nullptr : found->second;
  }

  const RawStreamServer::Mode mode_;
  std::mutex mutex_;
  std::map<unsigned, std::shared_ptr<const Chunks>> chunks_;
};

}  // namespace

struct RawStreamServer::Impl {
  explicit Impl(Mode mode) : service(mode) {}
  RecordedStreamService service;
  std::unique_ptr<grpc::Server> server;
  int port = 0;
};

std::unique_ptr<RawStreamServer> RawStreamServer::Start(Mode mode, std::string* error) {
  auto impl = std::make_unique<Impl>(mode);
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &impl->port);
  builder.RegisterService(&impl->service);
  impl->server = builder.BuildAndStart();
  if (impl->server == nullptr || impl->port == 0) {
    *error = "raw server: could not bind 127.0.0.1:0";
    return nullptr;
  }
  return std::unique_ptr<RawStreamServer>(new RawStreamServer(std::move(impl)));
}

RawStreamServer::RawStreamServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

RawStreamServer::~RawStreamServer() { impl_->server->Shutdown(); }

void RawStreamServer::SetChunks(unsigned frame_samples, std::vector<v1::StateChunk> chunks) {
  impl_->service.Set(frame_samples, std::move(chunks));
}

int RawStreamServer::port() const { return impl_->port; }

}  // namespace tether::bench
