// The output of one benchmark: a JSON document (machine-readable, every number) and a markdown
// file of tables (the README's Performance section), both under the results directory as
// <name>.json and <name>.md.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tether::bench {

// A markdown table built row by row.
class Table {
 public:
  Table(std::string title, std::vector<std::string> header);
  void AddRow(std::vector<std::string> cells);
  [[nodiscard]] std::string Markdown() const;

 private:
  std::string title_;
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// The nearest-rank p-quantile (0 ≤ p ≤ 1) of `values`; 0 for none.
double Percentile(std::vector<double> values, double p);

// Formats a number with `digits` significant digits ("1.23e-05", "0.0123").
std::string Format(double value, int digits = 3);

// The exponent p of y ∝ x^p: the least-squares slope of log y over log x (x, y > 0, ≥ 2 points).
double FitExponent(const std::vector<double>& x, const std::vector<double>& y);
// FitExponent over all sizes ("all") and over the 4 largest ("largest_4": small sizes are
// dominated by fixed per-call costs, the tail shows the growth); null for fewer than 2.
nlohmann::ordered_json Fit(const std::vector<double>& sizes, const std::vector<double>& times);

class Report {
 public:
  // `name` is the file stem; `command` the command line that produced it.
  Report(std::string name, std::string command);

  nlohmann::ordered_json& json() { return json_; }
  void AddTable(const Table& table) { tables_.push_back(table.Markdown()); }
  void AddNote(const std::string& text) { notes_.push_back(text); }

  // Writes <directory>/<name>.json and .md, adding the machine (nproc, CPU model) and the time.
  // Returns false (with the reason in `why`) if a file cannot be written.
  bool Write(const std::string& directory, std::string* why);

 private:
  std::string name_;
  std::string command_;
  nlohmann::ordered_json json_;
  std::vector<std::string> tables_;
  std::vector<std::string> notes_;
};

// "2 × AMD EPYC …" from /proc/cpuinfo and std::thread::hardware_concurrency.
std::string MachineDescription();

}  // namespace tether::bench
