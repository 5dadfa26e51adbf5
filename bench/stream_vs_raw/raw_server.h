// The bare peers of comparison 3: gRPC callback servers of tether.v1.SimulationService that
// implement only StreamStates, and answer each call with the messages (header, frames, summary)
// tether sent in a recording run with the request's frame_samples. Both write with one write in
// flight, like tether's server.
//   kReplay         sends the recorded messages as they are: it computes nothing, so the
//                   difference to tether is tether's simulation, framing and bookkeeping.
//   kHandSimulated  sends the recorded header and summary, and computes every frame anew with
//                   the hand-written RK4 + projection step of the seed pendulum
//                   (common/hand_pendulum.h), one step per sample at the recorded times, the
//                   same seven columns (x, y, vx, vy, λ, energy, radius) and residuals. It
//                   computes the next frame on gRPC's callback thread while the previous one is
//                   being written: no hand-off, no bookkeeping. The fastest honest simulating
//                   server: a bound on what any simulating server streams on this machine.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tether/v1/simulation_service.pb.h"

namespace tether::bench {

class RawStreamServer {
 public:
  enum class Mode { kReplay, kHandSimulated };
  // The columns kHandSimulated writes per sample: x, y, vx, vy, λ, energy, radius.
  static constexpr int kHandColumns = 7;

  // Binds 127.0.0.1 on a free port; nullptr and *error set if the server does not start.
  static std::unique_ptr<RawStreamServer> Start(Mode mode, std::string* error);
  ~RawStreamServer();
  RawStreamServer(const RawStreamServer&) = delete;
  RawStreamServer& operator=(const RawStreamServer&) = delete;

  // The messages a StreamStates call with this frame_samples receives, in order (kReplay), or
  // the header, frame sizes and times, and summary it reproduces (kHandSimulated). A call whose
  // frame_samples has none ends FAILED_PRECONDITION.
  void SetChunks(unsigned frame_samples, std::vector<tether::v1::StateChunk> chunks);
  [[nodiscard]] int port() const;

  struct Impl;

 private:
  explicit RawStreamServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tether::bench
