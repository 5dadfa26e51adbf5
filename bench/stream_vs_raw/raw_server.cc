#include "stream_vs_raw/raw_server.h"

#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server.h>
#include <grpcpp/server_builder.h>
#include <grpcpp/support/server_callback.h>

#include <cstddef>
#include <map>
#include <mutex>
#include <utility>

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

// Finishes at once with an error status.
class FailReactor : public grpc::ServerWriteReactor<v1::StateChunk> {
 public:
  explicit FailReactor(const grpc::Status& status) { Finish(status); }
  void OnDone() override { delete this; }
};

class ReplayService : public v1::SimulationService::WithCallbackMethod_StreamStates<
                          v1::SimulationService::Service> {
 public:
  grpc::ServerWriteReactor<v1::StateChunk>* StreamStates(
      grpc::CallbackServerContext* /*context*/, const v1::StreamStatesRequest* request) override {
    std::shared_ptr<const Chunks> chunks = Find(request->frame_samples());
    if (chunks == nullptr) {
      return new FailReactor(grpc::Status(
          grpc::StatusCode::FAILED_PRECONDITION,
          "raw server: no pre-built frames for frame_samples = " +
              std::to_string(request->frame_samples())));
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

  std::mutex mutex_;
  std::map<unsigned, std::shared_ptr<const Chunks>> chunks_;
};

}  // namespace

struct RawStreamServer::Impl {
  ReplayService service;
  std::unique_ptr<grpc::Server> server;
  int port = 0;
};

std::unique_ptr<RawStreamServer> RawStreamServer::Start(std::string* error) {
  auto impl = std::make_unique<Impl>();
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
