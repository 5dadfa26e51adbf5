// Samples as the core emitted them, over all columns and before column selection: what a
// session's replay history keeps, so that a replayed stream sends exactly what the original did.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tether/simulate/simulation.h"
#include "tether/v1/simulation_service.pb.h"

namespace tether::server {

struct SampleBlock {
  std::uint64_t first_index = 0;
  // The model has inequalities: each sample keeps its residual_inequality.
  bool inequalities = false;
  std::vector<double> t;
  std::vector<double> values;  // row-major, t.size() × columns
  std::vector<double> residual_position;
  std::vector<double> residual_velocity;
  std::vector<double> residual_inequality;  // t.size() entries if `inequalities`, else none
  // The switches of all samples in sample order, and the sample index of each.
  std::vector<simulate::SwitchEvent> switches;
  std::vector<std::uint64_t> switch_index;
  // The warnings likewise (a handful per run: each output warns once).
  std::vector<simulate::Warning> warnings;
  std::vector<std::uint64_t> warning_index;
  // The run's notices likewise.
  std::vector<simulate::RunNotice> notices;
  std::vector<std::uint64_t> notice_index;

  // Events of the session itself at samples of this block (Session::pending_events: changes,
  // refused changes), in sample order, as streamed.
  std::vector<v1::Event> session_events;

  // Appends a copy of `sample`, the block's next one (the first one sets first_index).
  void Append(const simulate::Sample& sample);
  // Sample `row` (0 = first_index) over `columns` columns; views into this block.
  [[nodiscard]] simulate::Sample Row(std::size_t row, std::size_t columns) const;

  [[nodiscard]] std::uint64_t end_index() const { return first_index + t.size(); }
  [[nodiscard]] std::size_t bytes() const;

 private:
  [[nodiscard]] std::size_t NoticeBytes() const;
  [[nodiscard]] std::size_t SessionEventBytes() const;
};

}  // namespace tether::server
