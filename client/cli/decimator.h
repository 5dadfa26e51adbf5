// Keeps an evenly spaced subset of at most `capacity` rows of an unbounded stream, in bounded
// memory, plus the last row seen: rows 0, s, 2s, … with the stride s doubling each time the
// buffer fills. Used by the terminal table and the SVG plot, which need a bounded, representative
// subset of a run whose length is not known in advance.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace tether::cli {

class Decimator {
 public:
  explicit Decimator(std::size_t capacity) : capacity_(capacity < 2 ? 2 : capacity) {}

  void Add(std::span<const double> row);

  // The kept rows in stream order; the last row of the stream is always included.
  [[nodiscard]] std::vector<std::vector<double>> Rows() const;
  [[nodiscard]] std::size_t seen() const { return seen_; }

 private:
  std::size_t capacity_;
  std::size_t stride_ = 1;  // rows with index % stride_ == 0 are kept
  std::size_t seen_ = 0;
  std::vector<std::vector<double>> kept_;
  std::vector<double> last_;
};

}  // namespace tether::cli
