// Turns the StateChunks of one stream (header, frames, summary) into handler calls with
// decoded samples, checking the frame layout instead of trusting it: a frame whose arrays do not
// have the sizes n, n·c, n, n (n = len(t), c = number of columns) ends the stream with INTERNAL.
#pragma once

#include <cstdint>

#include <grpcpp/support/status.h>

#include "tether/client/sample.h"

namespace tether::client {

class StreamDecoder {
 public:
  explicit StreamDecoder(const StreamHandlers& handlers) : handlers_(handlers) {}

  // Handles one chunk; false when reading should stop (a handler cancelled, or the stream
  // broke its own layout).
  bool Consume(const v1::StateChunk& chunk);
  // The outcome, given the call's final status.
  StreamEnd Finish(const grpc::Status& status);

 private:
  bool ConsumeFrame(const v1::Frame& frame);

  const StreamHandlers& handlers_;
  StreamColumns columns_;
  bool have_header_ = false;
  StreamEnd end_;
  Error protocol_error_;
};

}  // namespace tether::client
