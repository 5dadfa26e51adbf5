// The output of `tether sweep`: one row per run, in run order, as CSV or JSONL. The Python
// client's DataFrame has the same columns (client/python/tether/sweep.py):
//
//   run            0-based run index
//   <parameters>   the swept parameters' values (sweep_design.h)
//   status         the run's gRPC status code: OK, ABORTED (a numerical failure),
//                  INVALID_ARGUMENT, ...
//   termination    REACHED_END, PROJECTION_FAILED, STEP_LIMIT, ... ("" without a summary)
//   t              time of the last sample [s], whose values the columns hold (a failed run's
//                  own time is in its message); without a sample, the last good state's
//   <columns>      the last sample's value of every streamed column
//   <stats>        the chosen Statistics fields (--stats)
//   cpu_seconds    the server's CPU time for the run [s]
//   replica        the replica that ran it (the server's x-tether-replica name, else its address)
//   attempts       calls made (> 1 after a transient failure was retried, sweep_runner.h)
//   message        the termination's diagnosis or the error ("" when it reached the end)
//
// Numbers are written exactly (number_format.h); a missing number is "nan" in CSV, null in JSONL.
// A resumed sweep reads its output back (ReadSweepOutput) and rewrites it with the new rows in
// their places.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace tether::cli {

enum class SweepFormat { kCsv, kJsonl };

// The columns of a sweep's table, by part.
struct SweepColumns {
  std::vector<std::string> parameters;
  std::vector<std::string> values;  // the streamed columns, known once a run's header arrived
  std::vector<std::string> stats;

  // Every column name in table order (header comment).
  [[nodiscard]] std::vector<std::string> Names() const;
};

// One run's row.
struct SweepRow {
  std::size_t run = 0;
  std::vector<double> parameters;  // over SweepColumns::parameters
  std::string status = "OK";
  std::string termination;
  double t = 0.0;
  std::vector<std::string> value_names;  // the run's streamed columns (empty: no header arrived)
  std::vector<double> values;            // their last sample's values (NaN: no sample)
  std::vector<double> stats;             // over SweepColumns::stats (NaN: no summary)
  double cpu_seconds = 0.0;
  std::string replica;
  int attempts = 1;
  std::string message;
};

// Writes rows in the order given. CSV needs the value columns before the header.
class SweepWriter {
 public:
  virtual ~SweepWriter() = default;
  // Fixes the layout and writes the header (CSV: the names of `columns`, or `existing_text`, the
  // header line of a resumed output, when not empty). JSONL rows carry their own names.
  virtual void Header(const SweepColumns& columns, const std::string& existing_text) = 0;
  virtual void Row(const SweepRow& row) = 0;
  // A line read back from a resumed output, written as it was.
  void Raw(const std::string& text) { out_ << text << '\n' << std::flush; }

 protected:
  explicit SweepWriter(std::ostream& out) : out_(out) {}
  std::ostream& out_;
};

std::unique_ptr<SweepWriter> MakeSweepWriter(SweepFormat format, std::ostream& out);

// Whether a run with this status and termination did not reach its end (a failed row).
bool RunFailed(std::string_view status, std::string_view termination);

// A row of a resumed output.
struct ExistingSweepRow {
  std::string text;         // the line as written
  std::string status;       // its status column
  std::string termination;  // its termination column
};

// A sweep output read back for --resume.
struct ExistingSweepOutput {
  std::string header;                           // CSV: the header line as written; JSONL: ""
  std::vector<std::string> values;              // CSV: the value columns of that header
  std::map<std::size_t, ExistingSweepRow> rows;  // by run
};

// Reads `in` (written by a sweep over `columns` — parameters and stats; the values are taken
// from the file) and checks every row's parameters against `runs` (the design), so that a
// resume never mixes two different sweeps. False with *why naming the line and the mismatch.
bool ReadSweepOutput(std::istream& in, SweepFormat format, const SweepColumns& columns,
                     const std::vector<std::vector<double>>& runs, ExistingSweepOutput* existing,
                     std::string* why);

}  // namespace tether::cli
