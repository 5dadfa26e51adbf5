// The parameter sets of `tether sweep`: full-factorial grids, explicit levels, Latin hypercubes
// and tables, combined into one list of runs. The Python client (client/python/tether/design.py)
// implements the same rules number for number, so one design runs the same parameter sets in the
// same order from either.
//
//   --grid NAME=START:STOP:N   N levels, level i = START + (STOP − START)·i/(N − 1), the last
//                              exactly STOP; N = 1 needs START = STOP
//   --values NAME=a,b,c        the levels as given
//   --latin NAME=LO:HI         one dimension of an N-sample Latin hypercube (latin_hypercube.h),
//                              N = --samples, seeded by --seed (default 0)
//   --from FILE.csv            one run per row, one parameter per column (header: the names)
// Grid and value factors form the full factorial, the first factor varying slowest (every --grid
// in the order given, then every --values). Several kinds together give their product: the
// factorial slowest, then the hypercube's samples, then the table's rows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tether::cli {

// What the user asked for, as given on the command line.
struct SweepDesignOptions {
  std::vector<std::string> grid;       // "NAME=START:STOP:N"
  std::vector<std::string> values;     // "NAME=a,b,c"
  std::vector<std::string> latin;      // "NAME=LO:HI"
  std::optional<std::size_t> samples;  // Latin hypercube samples, >= 1; required with --latin
  std::uint64_t seed = 0;              // the hypercube's SplitMix64 seed
  std::string from_file;               // CSV of parameter sets; empty = none
};

// A design holds at most this many runs: it is built whole before the first run starts, and ten
// million runs at a few hundred per second already take a day or more.
inline constexpr std::size_t kMaxSweepRuns = 10'000'000;

// The runs of a sweep, in run order.
struct SweepDesign {
  std::vector<std::string> names;         // swept parameters, in column order
  std::vector<std::vector<double>> runs;  // one value per name, per run

  [[nodiscard]] std::size_t size() const { return runs.size(); }
};

// Builds the design; false with every problem listed ("--grid 'l=1:3': expected
// NAME=START:STOP:N", "--values 'm=': no values", "parameter 'l' is given twice", a design of
// more than kMaxSweepRuns runs).
bool BuildSweepDesign(const SweepDesignOptions& options, SweepDesign* design,
                      std::vector<std::string>* problems);

}  // namespace tether::cli
