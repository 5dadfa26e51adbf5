#include "cli/row_event.h"

namespace tether::cli {

std::string EventName(const RowEvent& event) { return event.activated ? "activated" : "deactivated"; }

std::string EventLabels(std::span<const RowEvent> events) {
  std::string labels;
  for (const RowEvent& event : events) {
    if (!labels.empty()) labels += ';';
    labels += EventName(event) + ':' + std::to_string(event.constraint);
  }
  return labels;
}

}  // namespace tether::cli
