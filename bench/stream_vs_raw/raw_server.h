// The raw peer of comparison 3: a bare gRPC callback server of
// tether.v1.SimulationService that implements only StreamStates, and answers each call by
// replaying a pre-built sequence of StateChunk messages (header, frames, summary) chosen by the
// request's frame_samples. It writes with one write in flight, like tether's server, but
// computes nothing: the difference to tether is tether's simulation, framing and bookkeeping.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tether/v1/simulation_service.pb.h"

namespace tether::bench {

class RawStreamServer {
 public:
  // Binds 127.0.0.1 on a free port; nullptr and *error set if the server does not start.
  static std::unique_ptr<RawStreamServer> Start(std::string* error);
  ~RawStreamServer();
  RawStreamServer(const RawStreamServer&) = delete;
  RawStreamServer& operator=(const RawStreamServer&) = delete;

  // The messages a StreamStates call with this frame_samples receives, in order. A call whose
  // frame_samples has none ends FAILED_PRECONDITION.
  void SetChunks(unsigned frame_samples, std::vector<tether::v1::StateChunk> chunks);
  [[nodiscard]] int port() const;

  struct Impl;

 private:
  explicit RawStreamServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tether::bench
