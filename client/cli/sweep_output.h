// Puts a sweep's rows into run order as they finish out of order (runs run concurrently), and
// writes each as soon as every earlier run's row is written: a reorder buffer. The CSV header
// names the streamed columns, known only when some run's header arrived, so nothing is written
// before that (or before Finish, if no run streamed). Rows of a resumed output are fed in
// unchanged and take their places among the new ones.
#pragma once

#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <variant>

#include "cli/sweep_table.h"

namespace tether::cli {

class SweepOutput {
 public:
  // `columns`: parameters and stats (values come from a run or from `existing`).
  // `existing`: a resumed output whose header (CSV) and rows are kept; may be null.
  SweepOutput(SweepFormat format, std::ostream& out, SweepColumns columns,
              const ExistingSweepOutput* existing);

  // The run's line in `existing` is to be replaced by a new row (a transient failure run
  // again): it is held back until Add replaces it, or Skip or Finish keep it.
  void Redo(std::size_t run);
  // A finished run's row (for a run given to Redo, in place of its old line).
  void Add(SweepRow row);
  // A run that will have no new row (given up): the rows after it need not wait for it, and
  // its held line (Redo), if any, stays.
  void Skip(std::size_t run);
  // Writes whatever is still buffered, in run order, held lines included, skipping runs that
  // never finished (an interrupted sweep; --resume fills them in later).
  void Finish();

 private:
  // Writes the header when it can be and then every row whose predecessors are written.
  void Drain(bool finishing);
  // Puts the held line of `run` (Redo), if any, back among the rows to write.
  void Keep(std::size_t run);

  std::unique_ptr<SweepWriter> writer_;
  SweepColumns columns_;
  bool needs_values_;  // CSV without a resumed header: the header waits for a run's columns
  bool header_written_ = false;
  std::string existing_header_;  // the resumed CSV's header line, "" when none
  // Rows not yet written, by run: nothing (a skipped run), a new row, or a resumed line.
  std::map<std::size_t, std::variant<std::monostate, SweepRow, std::string>> pending_;
  std::map<std::size_t, std::string> held_;  // resumed lines of runs being run again (Redo)
  std::size_t next_ = 0;  // the run whose row comes next
};

}  // namespace tether::cli
