#include "cli/sweep_design.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>

#include "cli/csv_reader.h"
#include "cli/latin_hypercube.h"

namespace tether::cli {
namespace {

bool ParseNumber(const std::string& text, double* value) {
  const char* end = text.data() + text.size();
  const auto result = std::from_chars(text.data(), end, *value);
  return !text.empty() && result.ec == std::errc() && result.ptr == end && std::isfinite(*value);
}

bool ParseCount(const std::string& text, std::size_t* value) {
  const char* end = text.data() + text.size();
  const auto result = std::from_chars(text.data(), end, *value);
  return !text.empty() && result.ec == std::errc() && result.ptr == end;
}

std::vector<std::string> Split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == separator) {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

// "NAME=REST" into name and rest; false when there is no name.
bool SplitAssignment(const std::string& text, std::string* name, std::string* rest) {
  const auto equals = text.find('=');
  if (equals == std::string::npos || equals == 0) return false;
  *name = text.substr(0, equals);
  *rest = text.substr(equals + 1);
  return true;
}

// Collects the design's parts and its problems.
class DesignBuilder {
 public:
  explicit DesignBuilder(std::vector<std::string>* problems) : problems_(problems) {}

  void AddGrid(const std::string& spec);
  void AddValues(const std::string& spec);
  void AddLatin(const std::string& spec);
  void AddTable(const std::string& path);
  void SampleHypercube(std::optional<std::size_t> samples, std::uint64_t seed);
  // The number of runs Build would make, or kMaxSweepRuns + 1 for any number above the limit.
  [[nodiscard]] std::size_t RunCount() const;
  SweepDesign Build() const;

 private:
  void Problem(std::string message) { problems_->push_back(std::move(message)); }
  // Records a parameter name; false (with a problem) when it is already swept.
  bool Claim(const std::string& name, const std::string& flag);

  std::vector<std::string>* problems_;
  std::vector<std::string> names_;
  std::vector<std::vector<double>> factors_;  // levels of each grid/values factor
  std::vector<LatinRange> latin_;
  std::vector<std::vector<double>> latin_rows_;
  std::vector<std::vector<double>> table_rows_;
  bool has_table_ = false;
};

bool DesignBuilder::Claim(const std::string& name, const std::string& flag) {
  if (std::find(names_.begin(), names_.end(), name) != names_.end()) {
    Problem(flag + ": parameter '" + name + "' is given twice");
    return false;
  }
  names_.push_back(name);
  return true;
}

void DesignBuilder::AddGrid(const std::string& spec) {
  const std::string flag = "--grid '" + spec + "'";
  std::string name;
  std::string rest;
  if (!SplitAssignment(spec, &name, &rest) || Split(rest, ':').size() != 3) {
    return Problem(flag + ": expected NAME=START:STOP:N");
  }
  const std::vector<std::string> fields = Split(rest, ':');
  double start = 0;
  double stop = 0;
  std::size_t n = 0;
  if (!ParseNumber(fields[0], &start) || !ParseNumber(fields[1], &stop)) {
    return Problem(flag + ": START and STOP must be finite numbers");
  }
  if (!ParseCount(fields[2], &n) || n < 1 || n > kMaxSweepRuns) {
    return Problem(flag + ": N = '" + fields[2] + "'; must be an integer from 1 to " +
                   std::to_string(kMaxSweepRuns));
  }
  if (n == 1 && start != stop) return Problem(flag + ": N = 1 needs START = STOP");
  if (!Claim(name, flag)) return;
  std::vector<double> levels;
  for (std::size_t i = 0; i + 1 < n; ++i) {
    levels.push_back(start + (stop - start) * static_cast<double>(i) / static_cast<double>(n - 1));
  }
  levels.push_back(stop);  // exactly STOP, whatever the rounding of the formula
  factors_.push_back(std::move(levels));
}

void DesignBuilder::AddValues(const std::string& spec) {
  const std::string flag = "--values '" + spec + "'";
  std::string name;
  std::string rest;
  if (!SplitAssignment(spec, &name, &rest)) return Problem(flag + ": expected NAME=a,b,c");
  if (rest.empty()) return Problem(flag + ": no values");
  std::vector<double> levels;
  for (const std::string& text : Split(rest, ',')) {
    double value = 0;
    if (!ParseNumber(text, &value))
      return Problem(flag + ": '" + text + "' is not a finite number");
    levels.push_back(value);
  }
  if (!Claim(name, flag)) return;
  factors_.push_back(std::move(levels));
}

void DesignBuilder::AddLatin(const std::string& spec) {
  const std::string flag = "--latin '" + spec + "'";
  std::string name;
  std::string rest;
  if (!SplitAssignment(spec, &name, &rest) || Split(rest, ':').size() != 2) {
    return Problem(flag + ": expected NAME=LO:HI");
  }
  const std::vector<std::string> fields = Split(rest, ':');
  LatinRange range{name, 0.0, 0.0};
  if (!ParseNumber(fields[0], &range.lo) || !ParseNumber(fields[1], &range.hi)) {
    return Problem(flag + ": LO and HI must be finite numbers");
  }
  if (range.lo > range.hi) return Problem(flag + ": LO must be <= HI");
  if (!Claim(name, flag)) return;
  latin_.push_back(std::move(range));
}

void DesignBuilder::SampleHypercube(std::optional<std::size_t> samples, std::uint64_t seed) {
  if (latin_.empty()) {
    if (samples.has_value()) Problem("--samples: given without --latin");
    return;
  }
  if (!samples.has_value() || *samples < 1) {
    return Problem("--latin needs --samples N (N >= 1 runs of the hypercube)");
  }
  if (*samples > kMaxSweepRuns) {
    return Problem("--samples " + std::to_string(*samples) + ": a sweep has at most " +
                   std::to_string(kMaxSweepRuns) + " runs");
  }
  latin_rows_ = LatinHypercube(latin_, *samples, seed);
}

void DesignBuilder::AddTable(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Problem("--from: cannot read '" + path + "'");
  std::vector<CsvRecord> records;
  std::string why;
  if (!ReadCsv(in, &records, &why)) return Problem("--from '" + path + "': " + why);
  if (records.empty()) return Problem("--from '" + path + "': no header row (parameter names)");
  has_table_ = true;
  const std::vector<std::string>& header = records.front().fields;
  for (const std::string& name : header) Claim(name, "--from '" + path + "'");
  for (std::size_t r = 1; r < records.size(); ++r) {
    const CsvRecord& record = records[r];
    if (record.fields.size() != header.size()) {
      return Problem("--from '" + path + "', line " + std::to_string(record.line) + ": " +
                     std::to_string(record.fields.size()) + " fields for " +
                     std::to_string(header.size()) + " columns");
    }
    std::vector<double> row(header.size());
    for (std::size_t c = 0; c < header.size(); ++c) {
      if (!ParseNumber(record.fields[c], &row[c])) {
        return Problem("--from '" + path + "', line " + std::to_string(record.line) + ", " +
                       header[c] + ": '" + record.fields[c] + "' is not a finite number");
      }
    }
    table_rows_.push_back(std::move(row));
  }
}

// The rows of the product of the blocks, the first block varying slowest.
std::vector<std::vector<double>> Product(
    const std::vector<std::vector<std::vector<double>>>& blocks) {
  std::vector<std::vector<double>> rows = {{}};
  for (const auto& block : blocks) {
    std::vector<std::vector<double>> next;
    next.reserve(rows.size() * block.size());
    for (const auto& prefix : rows) {
      for (const auto& part : block) {
        next.push_back(prefix);
        next.back().insert(next.back().end(), part.begin(), part.end());
      }
    }
    rows = std::move(next);
  }
  return rows;
}

std::size_t DesignBuilder::RunCount() const {
  std::vector<std::size_t> sizes;
  for (const std::vector<double>& levels : factors_) sizes.push_back(levels.size());
  if (!latin_.empty()) sizes.push_back(latin_rows_.size());
  if (has_table_) sizes.push_back(table_rows_.size());
  std::size_t runs = 1;
  for (std::size_t size : sizes) {
    if (size != 0 && runs > kMaxSweepRuns / size) return kMaxSweepRuns + 1;
    runs *= size;
  }
  return runs;
}

SweepDesign DesignBuilder::Build() const {
  std::vector<std::vector<std::vector<double>>> blocks;
  // Each factor is a block of one-value rows: the factorial is their product.
  for (const std::vector<double>& levels : factors_) {
    std::vector<std::vector<double>> block;
    for (double level : levels) block.push_back({level});
    blocks.push_back(std::move(block));
  }
  if (!latin_.empty()) blocks.push_back(latin_rows_);
  if (has_table_) blocks.push_back(table_rows_);
  return SweepDesign{names_, Product(blocks)};
}

}  // namespace

bool BuildSweepDesign(const SweepDesignOptions& options, SweepDesign* design,
                      std::vector<std::string>* problems) {
  const std::size_t problems_before = problems->size();
  DesignBuilder builder(problems);
  for (const std::string& spec : options.grid) builder.AddGrid(spec);
  for (const std::string& spec : options.values) builder.AddValues(spec);
  for (const std::string& spec : options.latin) builder.AddLatin(spec);
  builder.SampleHypercube(options.samples, options.seed);
  if (!options.from_file.empty()) builder.AddTable(options.from_file);
  if (problems->size() > problems_before) return false;
  if (builder.RunCount() > kMaxSweepRuns) {
    problems->push_back("the design has more than " + std::to_string(kMaxSweepRuns) +
                        " runs (the product of its factors' levels, samples and rows)");
    return false;
  }
  *design = builder.Build();
  if (design->names.empty()) {
    problems->push_back("nothing to sweep: give --grid, --values, --latin or --from");
    return false;
  }
  return true;
}

}  // namespace tether::cli
