// Terminal table: right-aligned columns of 6 significant digits, decimated to at most
// `max_rows` evenly spaced rows (first and last always shown), printed when the run ends.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "cli/decimator.h"
#include "cli/row_sink.h"

namespace tether::cli {

class TableWriter final : public RowSink {
 public:
  // A terminal page shows about 40 rows with room for the header and the summary.
  static constexpr std::size_t kDefaultMaxRows = 40;

  explicit TableWriter(std::ostream& out, std::size_t max_rows = kDefaultMaxRows)
      : out_(out), rows_(max_rows) {}
  void Begin(const std::vector<std::string>& columns) override;
  void Row(std::span<const double> values) override;
  void End() override;

 private:
  std::ostream& out_;
  std::vector<std::string> columns_;
  Decimator rows_;
};

}  // namespace tether::cli
