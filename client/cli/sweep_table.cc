#include "cli/sweep_table.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "cli/csv_reader.h"
#include "cli/csv_writer.h"
#include "cli/jsonl_writer.h"
#include "cli/number_format.h"

namespace tether::cli {
namespace {

// The columns before the parameters, between parameters and values, and at the end.
const std::vector<std::string> kLeading = {"run"};
const std::vector<std::string> kMiddle = {"status", "termination", "t"};
const std::vector<std::string> kTrailing = {"cpu_seconds", "replica", "attempts", "message"};

constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();

// The row's value of the column `name`: its position among the run's own columns (usually the
// same as the table's, so the first guess is `hint`), NaN when the run did not stream it.
double ValueOf(const SweepRow& row, const std::string& name, std::size_t hint) {
  if (hint < row.value_names.size() && row.value_names[hint] == name) return row.values[hint];
  for (std::size_t i = 0; i < row.value_names.size(); ++i) {
    if (row.value_names[i] == name) return row.values[i];
  }
  return kMissing;
}

class CsvSweepWriter final : public SweepWriter {
 public:
  explicit CsvSweepWriter(std::ostream& out) : SweepWriter(out) {}

  void Header(const SweepColumns& columns, const std::string& existing_text) override {
    values_ = columns.values;
    if (!existing_text.empty()) return Raw(existing_text);
    const std::vector<std::string> names = columns.Names();
    for (std::size_t i = 0; i < names.size(); ++i) out_ << (i > 0 ? "," : "") << CsvField(names[i]);
    out_ << '\n' << std::flush;
  }

  void Row(const SweepRow& row) override {
    out_ << row.run;
    for (double p : row.parameters) out_ << ',' << FormatExact(p);
    out_ << ',' << CsvField(row.status) << ',' << CsvField(row.termination) << ','
         << FormatExact(row.t);
    for (std::size_t i = 0; i < values_.size(); ++i)
      out_ << ',' << FormatExact(ValueOf(row, values_[i], i));
    for (double s : row.stats) out_ << ',' << FormatExact(s);
    out_ << ',' << FormatExact(row.cpu_seconds) << ',' << CsvField(row.replica) << ','
         << row.attempts << ',' << CsvField(row.message) << '\n'
         << std::flush;
  }

 private:
  std::vector<std::string> values_;
};

class JsonlSweepWriter final : public SweepWriter {
 public:
  explicit JsonlSweepWriter(std::ostream& out) : SweepWriter(out) {}

  void Header(const SweepColumns& columns, const std::string& /*existing_text*/) override {
    parameters_ = columns.parameters;
    stats_ = columns.stats;
  }

  void Row(const SweepRow& row) override {
    out_ << "{\"run\":" << row.run;
    for (std::size_t i = 0; i < parameters_.size(); ++i) Number(parameters_[i], row.parameters[i]);
    Text("status", row.status);
    Text("termination", row.termination);
    Number("t", row.t);
    for (std::size_t i = 0; i < row.value_names.size(); ++i)
      Number(row.value_names[i], row.values[i]);
    for (std::size_t i = 0; i < stats_.size(); ++i) Number(stats_[i], row.stats[i]);
    Number("cpu_seconds", row.cpu_seconds);
    Text("replica", row.replica);
    out_ << ",\"attempts\":" << row.attempts;
    Text("message", row.message);
    out_ << "}\n" << std::flush;
  }

 private:
  void Number(const std::string& key, double value) {
    out_ << ',' << JsonString(key) << ':' << FormatJson(value);
  }
  void Text(const std::string& key, const std::string& value) {
    out_ << ',' << JsonString(key) << ':' << JsonString(value);
  }

  std::vector<std::string> parameters_;
  std::vector<std::string> stats_;
};

bool ParseIndex(const std::string& text, std::size_t* index) {
  const char* end = text.data() + text.size();
  const auto result = std::from_chars(text.data(), end, *index);
  return !text.empty() && result.ec == std::errc() && result.ptr == end;
}

bool ParseValue(const std::string& text, double* value) {
  const char* end = text.data() + text.size();
  const auto result = std::from_chars(text.data(), end, *value);
  return !text.empty() && result.ec == std::errc() && result.ptr == end;
}

// Checks a row's run index and parameters against the design; `where` names the line.
bool CheckRun(std::size_t run, const std::vector<double>& parameters, const SweepColumns& columns,
              const std::vector<std::vector<double>>& runs, const std::string& where,
              std::string* why) {
  if (run >= runs.size()) {
    *why = where + ": run " + std::to_string(run) + " is beyond this sweep's " +
           std::to_string(runs.size()) + " runs (a different sweep?)";
    return false;
  }
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    if (parameters[i] != runs[run][i]) {
      *why = where + ": run " + std::to_string(run) + " has " + columns.parameters[i] + " = " +
             FormatExact(parameters[i]) + " but this sweep's run " + std::to_string(run) + " has " +
             FormatExact(runs[run][i]) + " (a different sweep?)";
      return false;
    }
  }
  return true;
}

// The header's value columns, after checking that it is the header of this sweep's table.
bool ReadCsvHeader(const std::vector<std::string>& header, const SweepColumns& columns,
                   std::vector<std::string>* values, std::string* why) {
  SweepColumns without_values = columns;
  without_values.values.clear();
  const std::vector<std::string> expected = without_values.Names();
  const std::size_t head = kLeading.size() + columns.parameters.size() + kMiddle.size();
  const std::size_t tail = columns.stats.size() + kTrailing.size();
  const bool fits =
      header.size() >= expected.size() &&
      std::equal(expected.begin(), expected.begin() + static_cast<long>(head), header.begin()) &&
      std::equal(expected.end() - static_cast<long>(tail), expected.end(),
                 header.end() - static_cast<long>(tail));
  if (!fits) {
    std::string found;
    for (const std::string& name : header) found += (found.empty() ? "" : ",") + name;
    *why = "its header (" + found + ") is not that of this sweep (parameters, --stats)";
    return false;
  }
  values->assign(header.begin() + static_cast<long>(head), header.end() - static_cast<long>(tail));
  return true;
}

bool ReadCsvOutput(std::istream& in, const SweepColumns& columns,
                   const std::vector<std::vector<double>>& runs, ExistingSweepOutput* existing,
                   std::string* why) {
  std::vector<CsvRecord> records;
  if (!ReadCsv(in, &records, why)) return false;
  if (records.empty()) return true;  // an empty file: nothing to keep
  if (!ReadCsvHeader(records.front().fields, columns, &existing->values, why)) return false;
  existing->header = records.front().text;
  const std::size_t width = records.front().fields.size();
  for (std::size_t r = 1; r < records.size(); ++r) {
    const CsvRecord& record = records[r];
    const std::string where = "line " + std::to_string(record.line);
    std::size_t run = 0;
    if (record.fields.size() != width || !ParseIndex(record.fields[0], &run)) {
      *why = where + ": not a row of this table (" + std::to_string(record.fields.size()) +
             " fields for " + std::to_string(width) + " columns)";
      return false;
    }
    std::vector<double> parameters(columns.parameters.size());
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      if (!ParseValue(record.fields[1 + i], &parameters[i])) {
        *why = where + ": " + columns.parameters[i] + " = '" + record.fields[1 + i] +
               "' is not a number";
        return false;
      }
    }
    if (!CheckRun(run, parameters, columns, runs, where, why)) return false;
    const std::size_t status = kLeading.size() + columns.parameters.size();
    existing->rows[run] = {record.text, record.fields[status], record.fields[status + 1]};
  }
  return true;
}

// The string `key` of a JSONL row, "" when absent or not a string.
std::string TextOf(const nlohmann::json& row, const char* key) {
  const auto value = row.find(key);
  return value != row.end() && value->is_string() ? value->get<std::string>() : std::string();
}

bool ReadJsonlOutput(std::istream& in, const SweepColumns& columns,
                     const std::vector<std::vector<double>>& runs, ExistingSweepOutput* existing,
                     std::string* why) {
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    const std::string where = "line " + std::to_string(number);
    const nlohmann::json row = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!row.is_object() || !row.contains("run") || !row["run"].is_number_unsigned()) {
      *why = where + ": not a JSON object with a \"run\" index";
      return false;
    }
    std::vector<double> parameters(columns.parameters.size());
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      const auto value = row.find(columns.parameters[i]);
      if (value == row.end() || !value->is_number()) {
        *why = where + ": no number \"" + columns.parameters[i] + "\" (a different sweep?)";
        return false;
      }
      parameters[i] = value->get<double>();
    }
    const auto run = row["run"].get<std::size_t>();
    if (!CheckRun(run, parameters, columns, runs, where, why)) return false;
    existing->rows[run] = {line, TextOf(row, "status"), TextOf(row, "termination")};
  }
  return true;
}

}  // namespace

bool RunFailed(std::string_view status, std::string_view termination) {
  return status != "OK" || termination != "REACHED_END";
}

std::vector<std::string> SweepColumns::Names() const {
  std::vector<std::string> names = kLeading;
  names.insert(names.end(), parameters.begin(), parameters.end());
  names.insert(names.end(), kMiddle.begin(), kMiddle.end());
  names.insert(names.end(), values.begin(), values.end());
  names.insert(names.end(), stats.begin(), stats.end());
  names.insert(names.end(), kTrailing.begin(), kTrailing.end());
  return names;
}

std::unique_ptr<SweepWriter> MakeSweepWriter(SweepFormat format, std::ostream& out) {
  if (format == SweepFormat::kJsonl) return std::make_unique<JsonlSweepWriter>(out);
  return std::make_unique<CsvSweepWriter>(out);
}

bool ReadSweepOutput(std::istream& in, SweepFormat format, const SweepColumns& columns,
                     const std::vector<std::vector<double>>& runs, ExistingSweepOutput* existing,
                     std::string* why) {
  return format == SweepFormat::kJsonl ? ReadJsonlOutput(in, columns, runs, existing, why)
                                       : ReadCsvOutput(in, columns, runs, existing, why);
}

}  // namespace tether::cli
