#include "model/definitions.h"

#include <algorithm>
#include <cstdint>

namespace tether::model {
namespace {

enum class Mark : std::uint8_t { kUnvisited, kOnPath, kDone };

class Orderer {
 public:
  explicit Orderer(const std::vector<std::vector<std::size_t>>& uses)
      : uses_(uses), marks_(uses.size(), Mark::kUnvisited) {
    result_.broken.assign(uses.size(), false);
  }

  DefinitionOrder Run() {
    for (std::size_t i = 0; i < uses_.size(); ++i) {
      if (marks_[i] == Mark::kUnvisited) Visit(i);
    }
    return std::move(result_);
  }

 private:
  // Recursion depth is bounded by the number of definitions (SpecLimits::max_definitions).
  void Visit(std::size_t node) {
    marks_[node] = Mark::kOnPath;
    path_.push_back(node);
    for (std::size_t next : uses_[node]) {
      if (marks_[next] == Mark::kOnPath) {
        RecordCycle(next);
      } else if (marks_[next] == Mark::kUnvisited) {
        Visit(next);
      }
      if (result_.broken[next]) result_.broken[node] = true;
    }
    path_.pop_back();
    marks_[node] = Mark::kDone;
    if (!result_.broken[node]) result_.order.push_back(node);
  }

  // `start` is on the current path: the cycle is the path from it back to it.
  void RecordCycle(std::size_t start) {
    const auto from = std::find(path_.begin(), path_.end(), start);
    std::vector<std::size_t> cycle(from, path_.end());
    cycle.push_back(start);
    for (std::size_t member : cycle) result_.broken[member] = true;
    result_.cycles.push_back(std::move(cycle));
  }

  const std::vector<std::vector<std::size_t>>& uses_;
  std::vector<Mark> marks_;
  std::vector<std::size_t> path_;
  DefinitionOrder result_;
};

}  // namespace

DefinitionOrder OrderDefinitions(const std::vector<std::vector<std::size_t>>& uses) {
  return Orderer(uses).Run();
}

}  // namespace tether::model
