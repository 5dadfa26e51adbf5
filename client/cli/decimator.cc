#include "cli/decimator.h"

namespace tether::cli {

void Decimator::Add(std::span<const double> row) {
  const std::size_t index = seen_++;
  last_.assign(row.begin(), row.end());
  if (index % stride_ != 0) return;
  if (kept_.size() == capacity_) {
    // Halve: keep the rows whose index is a multiple of the doubled stride (every other one).
    std::vector<std::vector<double>> halved;
    halved.reserve(capacity_);
    for (std::size_t i = 0; i < kept_.size(); i += 2) halved.push_back(std::move(kept_[i]));
    kept_ = std::move(halved);
    stride_ *= 2;
    if (index % stride_ != 0) return;
  }
  kept_.push_back(last_);
}

std::vector<std::vector<double>> Decimator::Rows() const {
  std::vector<std::vector<double>> rows = kept_;
  if (seen_ > 0 && (seen_ - 1) % stride_ != 0) rows.push_back(last_);
  return rows;
}

}  // namespace tether::cli
