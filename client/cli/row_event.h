// A switch of a projected dynamical system as the output formats see it: inequality `constraint`
// became active or inactive at a row (the row is the state at the located switch time). The
// formats render it as text: "activated:0" in CSV and the table, an object in JSONL, a marker
// in the plot.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace tether::cli {

struct RowEvent {
  bool activated = true;         // true: c_i reached 0 (now active); false: μ_i reached 0 (released)
  double t = 0.0;                // switch time [s], the row's t
  std::uint32_t constraint = 0;  // 0-based index of the inequality (the column mu_{constraint+1})
};

// "activated" or "deactivated".
std::string EventName(const RowEvent& event);

// The events of one row as "activated:0;deactivated:1" (in order); "" for none.
std::string EventLabels(std::span<const RowEvent> events);

}  // namespace tether::cli
