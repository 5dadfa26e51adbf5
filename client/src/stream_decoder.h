// Turns the StateChunks of one stream (header, frames, summary) into handler calls with
// decoded samples, checking the frame layout instead of trusting it: a frame whose arrays do not
// have the sizes n, n·c, n, n (n = len(t), c = number of columns), whose residual_inequality has
// neither n nor 0 entries, or whose switch event lacks its constraint or names a sample outside
// the frame ends the stream with INTERNAL.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

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
  // The sizes of the frame's arrays; false (with the protocol error set) when they do not fit.
  bool CheckLayout(const v1::Frame& frame);
  // The frame's ACTIVATED/DEACTIVATED events into switches_, by sample; false when one is malformed.
  bool CollectSwitches(const v1::Frame& frame);
  bool DeliverSamples(const v1::Frame& frame);
  bool Fail(std::string message);

  const StreamHandlers& handlers_;
  StreamColumns columns_;
  bool have_header_ = false;
  StreamEnd end_;
  Error protocol_error_;
  // The current frame's switches with their sample indices, in sample order.
  std::vector<std::pair<std::uint64_t, Switch>> indexed_switches_;
  std::vector<Switch> sample_switches_;  // the ones of the sample being delivered
};

}  // namespace tether::client
