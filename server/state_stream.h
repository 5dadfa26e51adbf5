// The gRPC face of a state stream: the server-streaming write reactor of StreamStates and
// Simulate over a StreamDriver (stream_driver.h has the flow control). A chunk is written with
// StartWrite; OnWriteDone reports it accepted, OnCancel a client gone, OnDone the call's end.
#pragma once

#include <functional>
#include <memory>

#include <grpcpp/support/server_callback.h>

#include "stream_driver.h"

namespace tether::server {

class StateStream final : public grpc::ServerWriteReactor<v1::StateChunk>, public StreamDriver {
 public:
  // Deletes itself when gRPC is done with the call.
  StateStream(WorkerPool* pool, StreamCounters* counters, std::unique_ptr<RunSource> source,
              Settings settings, RpcLog log, std::function<void(StreamDriver*)> on_done)
      : StreamDriver(pool, counters, std::move(source), settings, std::move(log),
                     std::move(on_done)) {}

  void OnWriteDone(bool ok) override { Written(ok); }
  void OnCancel() override { Cancelled(); }
  void OnDone() override {
    Release();
    delete this;
  }

 private:
  // The first write goes without buffer_hint (grpc issues 34231, 12975); no write uses one.
  void Send(const v1::StateChunk* chunk) override { StartWrite(chunk); }
  void Close(const grpc::Status& status) override { Finish(status); }
};

}  // namespace tether::server
