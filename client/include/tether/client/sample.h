// Decoded stream samples. A stream's frames are columnar (t[], row-major values[]); the client
// hands them out one sample at a time with the header's column names, so no caller indexes
// the row-major array.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tether/client/error.h"
#include "tether/v1/simulation_service.pb.h"

namespace tether::client {

// The columns of a stream, from its header.
struct StreamColumns {
  std::vector<std::string> names;  // in value order: states, multipliers, outputs
  std::vector<std::string> units;  // same length; "" when none

  // Position of `name` in `names`, or nullopt.
  [[nodiscard]] std::optional<std::size_t> Find(std::string_view name) const;
};

// A switch of a projected dynamical system: inequality `constraint` became active (c_i reached 0,
// the state now slides along it) or inactive (its multiplier μ_i reached 0). Decoded from an
// EVENT_KIND_ACTIVATED / EVENT_KIND_DEACTIVATED event; the sample it comes with is the state at
// the located switch time.
struct Switch {
  enum class Direction { kActivated, kDeactivated };
  Direction direction = Direction::kActivated;
  double t = 0.0;                // located switch time [s]
  std::uint32_t constraint = 0;  // 0-based index into Model.inequalities ("mu_{constraint+1}")

  [[nodiscard]] bool activated() const { return direction == Direction::kActivated; }
};

// One sample. `values` and `switches` view the frame being decoded: valid only during the
// callback.
struct Sample {
  // 0 is the initial state; consecutive within and across frames, except where a view-only
  // stream skips samples it lost (an EVENT_KIND_SAMPLES_LOST event at the first sample after).
  std::uint64_t index = 0;
  double t = 0.0;           // [s]
  std::span<const double> values;  // over columns->names
  double residual_position = 0.0;  // ‖Φ‖∞ (mechanical) or ‖g‖∞
  double residual_velocity = 0.0;  // ‖h‖∞; 0 for index 1
  // max(0, −min_i c_i(x)): how far the sample lies outside {c ≥ 0}; absent when the model has
  // no inequalities (the frame carried none).
  std::optional<double> residual_inequality;
  // The switches located at this sample, in stream order (usually none; several when constraints
  // switch at the same instant). Every one is also passed to StreamHandlers::on_event.
  std::span<const Switch> switches;
  const StreamColumns* columns = nullptr;

  // The value of the column `name`; NaN if the stream has no such column.
  [[nodiscard]] double Value(std::string_view name) const;
};

// What a stream call does with what arrives. Every member is optional.
struct StreamHandlers {
  std::function<void(const v1::StreamHeader& header, const StreamColumns& columns)> on_header;
  // Return false to cancel the call (the session pauses after the last delivered sample).
  std::function<bool(const Sample& sample)> on_sample;
  // Every event of a frame, before the frame's samples (switch events also reach on_sample as
  // Sample::switches, at the sample they belong to).
  std::function<void(const v1::Event& event)> on_event;
  std::function<void(const v1::Progress& progress)> on_progress;
  // After each frame's events, samples and progress were handed on (e.g. to flush output that
  // a reader follows live); not after a frame that on_sample cancelled.
  std::function<void()> on_frame;
  // If given, raising it (from any thread, or a signal handler) ends the call within about
  // kStopPollInterval as on_sample returning false does, also while no frame arrives (a frame
  // of a slow run can take the server a while).
  const std::atomic<bool>* stop = nullptr;
  static constexpr std::chrono::milliseconds kStopPollInterval{20};
};

// How a stream ended.
struct StreamEnd {
  std::optional<v1::StreamSummary> summary;  // absent if the stream broke before its summary
  std::string session;                       // "sessions/{id}" (StreamStates), "" (Simulate)
  std::uint64_t samples = 0;                 // delivered to on_sample
  // The index to pass to Client::Resume to continue without gap or duplicate: one past the
  // last delivered sample (or the header's first index if none arrived).
  std::uint64_t next_sample_index = 0;
  bool cancelled_by_handler = false;  // on_sample returned false
  // The server that ran the stream: the name it gives in the initial metadata x-tether-replica,
  // else the transport's peer address ("ipv4:127.0.0.1:50051"; behind a proxy, the proxy's).
  // Which replica of a balanced channel took the call; "" if the call never reached one.
  std::string replica;
  Error error;  // the call's final status; OK when the stream ended normally

  // The stream ended with an OK status and its run reached the end (or the handler cancelled).
  [[nodiscard]] bool ok() const { return error.ok(); }
};

}  // namespace tether::client
