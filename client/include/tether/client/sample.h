// Decoded stream samples. A stream's frames are columnar (t[], row-major values[]); the client
// hands them out one sample at a time with the header's column names, so no caller indexes
// the row-major array.
#pragma once

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

// One sample. `values` views the frame being decoded: valid only during the callback.
struct Sample {
  std::uint64_t index = 0;  // 0 is the initial state; consecutive within and across frames
  double t = 0.0;           // [s]
  std::span<const double> values;  // over columns->names
  double residual_position = 0.0;  // ‖Φ‖∞ (mechanical) or ‖g‖∞
  double residual_velocity = 0.0;  // ‖h‖∞; 0 for index 1
  const StreamColumns* columns = nullptr;

  // The value of the column `name`; NaN if the stream has no such column.
  [[nodiscard]] double Value(std::string_view name) const;
};

// What a stream call does with what arrives. Every member is optional.
struct StreamHandlers {
  std::function<void(const v1::StreamHeader& header, const StreamColumns& columns)> on_header;
  // Return false to cancel the call (the session pauses after the last delivered sample).
  std::function<bool(const Sample& sample)> on_sample;
  std::function<void(const v1::Event& event)> on_event;
  std::function<void(const v1::Progress& progress)> on_progress;
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
  Error error;  // the call's final status; OK when the stream ended normally

  // The stream ended with an OK status and its run reached the end (or the handler cancelled).
  [[nodiscard]] bool ok() const { return error.ok(); }
};

}  // namespace tether::client
