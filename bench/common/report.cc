#include "common/report.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>

namespace tether::bench {

Table::Table(std::string title, std::vector<std::string> header)
    : title_(std::move(title)), header_(std::move(header)) {}

void Table::AddRow(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }

std::string Table::Markdown() const {
  std::ostringstream out;
  if (!title_.empty()) out << "**" << title_ << "**\n\n";
  auto line = [&out](const std::vector<std::string>& cells) {
    out << "|";
    for (const std::string& cell : cells) out << " " << cell << " |";
    out << "\n";
  };
  line(header_);
  out << "|";
  for (std::size_t i = 0; i < header_.size(); ++i) out << "---|";
  out << "\n";
  for (const auto& row : rows_) line(row);
  return out.str();
}

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const auto index = static_cast<std::size_t>(p * static_cast<double>(values.size() - 1) + 0.5);
  return values[std::min(index, values.size() - 1)];
}

std::string Format(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
  return buffer;
}

double FitExponent(const std::vector<double>& x, const std::vector<double>& y) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const auto n = static_cast<double>(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double lx = std::log(x[i]), ly = std::log(y[i]);
    sx += lx;
    sy += ly;
    sxx += lx * lx;
    sxy += lx * ly;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

nlohmann::ordered_json Fit(const std::vector<double>& sizes, const std::vector<double>& times) {
  if (sizes.size() < 2) return nullptr;
  const auto tail = static_cast<long>(sizes.size() >= 4 ? sizes.size() - 4 : 0);
  return {{"all", FitExponent(sizes, times)},
          {"largest_4", FitExponent(std::vector<double>(sizes.begin() + tail, sizes.end()),
                                    std::vector<double>(times.begin() + tail, times.end()))}};
}

std::string MachineDescription() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, model = "unknown CPU";
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      const std::size_t colon = line.find(':');
      if (colon != std::string::npos) model = line.substr(colon + 2);
      break;
    }
  }
  return std::to_string(std::thread::hardware_concurrency()) + " × " + model;
}

Report::Report(std::string name, std::string command)
    : name_(std::move(name)), command_(std::move(command)) {}

bool Report::Write(const std::string& directory, std::string* why) {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  nlohmann::ordered_json document;
  document["benchmark"] = name_;
  document["command"] = command_;
  document["machine"] = MachineDescription();
  document["date"] = stamp;
  for (auto& [key, value] : json_.items()) document[key] = value;

  const std::string stem = directory + "/" + name_;
  std::ofstream json_file(stem + ".json");
  json_file << document.dump(2) << "\n";
  std::ofstream md_file(stem + ".md");
  md_file << "### " << name_ << "\n\n";
  for (const std::string& table : tables_) md_file << table << "\n";
  for (const std::string& note : notes_) md_file << note << "\n\n";
  md_file << "Command: `" << command_ << "` — machine: " << MachineDescription() << " — " << stamp
          << "\n";
  if (!json_file || !md_file) {
    if (why != nullptr) *why = "cannot write " + stem + ".json/.md (does the directory exist?)";
    return false;
  }
  return true;
}

}  // namespace tether::bench
