// Unit tests of the pieces of `tether sweep` that need no server: the parameter design (grid,
// values, Latin hypercube, CSV table), the CSV reader, the row table and its read-back for
// --resume, and the reorder buffer that writes rows in run order.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "cli/csv_reader.h"
#include "cli/latin_hypercube.h"
#include "cli/sweep_design.h"
#include "cli/sweep_output.h"
#include "cli/sweep_progress.h"
#include "cli/sweep_table.h"

namespace tether::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

SweepDesign Build(const SweepDesignOptions& options) {
  SweepDesign design;
  std::vector<std::string> problems;
  EXPECT_TRUE(BuildSweepDesign(options, &design, &problems)) << ::testing::PrintToString(problems);
  return design;
}

std::vector<std::string> Problems(const SweepDesignOptions& options) {
  SweepDesign design;
  std::vector<std::string> problems;
  EXPECT_FALSE(BuildSweepDesign(options, &design, &problems));
  return problems;
}

TEST(SweepDesign, GridIsFullFactorialFirstFactorSlowest) {
  SweepDesignOptions options;
  options.grid = {"l=1:3:3", "m=1:2:4"};
  const SweepDesign design = Build(options);
  EXPECT_THAT(design.names, ElementsAre("l", "m"));
  ASSERT_EQ(design.size(), 12u);
  // l takes 1, 2, 3 (exact: (3 − 1)·i/2 is an integer); m the 4 levels 1, 4/3, 5/3, 2.
  EXPECT_THAT(design.runs[0], ElementsAre(1.0, 1.0));
  EXPECT_THAT(design.runs[1], ElementsAre(1.0, 1.0 + 1.0 / 3.0));
  EXPECT_THAT(design.runs[3], ElementsAre(1.0, 2.0));
  EXPECT_THAT(design.runs[4], ElementsAre(2.0, 1.0));
  EXPECT_THAT(design.runs[11], ElementsAre(3.0, 2.0));
}

TEST(SweepDesign, GridEndsExactlyAtStop) {
  // 0.1·i/… accumulates rounding; the last level is STOP itself, not the formula's value.
  SweepDesignOptions options;
  options.grid = {"k=0.1:0.7:7"};
  const SweepDesign design = Build(options);
  ASSERT_EQ(design.size(), 7u);
  EXPECT_EQ(design.runs.back()[0], 0.7);
  EXPECT_EQ(design.runs.front()[0], 0.1);
}

TEST(SweepDesign, ValuesAfterGridsAndTheirProduct) {
  SweepDesignOptions options;
  options.values = {"m=5,1"};
  options.grid = {"l=2:2:1"};
  const SweepDesign design = Build(options);
  EXPECT_THAT(design.names, ElementsAre("l", "m"));
  EXPECT_THAT(design.runs, ElementsAre(ElementsAre(2.0, 5.0), ElementsAre(2.0, 1.0)));
}

TEST(SweepDesign, MalformedSpecificationsAreListedByFlag) {
  SweepDesignOptions options;
  options.grid = {"l=1:3", "=1:2:3", "k=1:2:0", "q=1:2:1", "z=a:2:3"};
  options.values = {"m=", "n=1,x"};
  options.latin = {"g=2:1"};
  const std::vector<std::string> problems = Problems(options);
  EXPECT_THAT(problems, ElementsAre(HasSubstr("--grid 'l=1:3': expected NAME=START:STOP:N"),
                                    HasSubstr("--grid '=1:2:3': expected NAME=START:STOP:N"),
                                    HasSubstr("--grid 'k=1:2:0': N = '0'; must be an integer"),
                                    HasSubstr("--grid 'q=1:2:1': N = 1 needs START = STOP"),
                                    HasSubstr("--grid 'z=a:2:3': START and STOP must be finite"),
                                    HasSubstr("--values 'm=': no values"),
                                    HasSubstr("--values 'n=1,x': 'x' is not a finite number"),
                                    HasSubstr("--latin 'g=2:1': LO must be <= HI")));
}

TEST(SweepDesign, ParameterGivenTwiceIsRefused) {
  SweepDesignOptions options;
  options.grid = {"l=1:3:3"};
  options.values = {"l=1,2"};
  EXPECT_THAT(Problems(options), ElementsAre(HasSubstr("parameter 'l' is given twice")));
}

TEST(SweepDesign, NothingToSweepIsAnError) {
  EXPECT_THAT(Problems(SweepDesignOptions{}), ElementsAre(HasSubstr("nothing to sweep")));
}

TEST(SweepDesign, LatinNeedsSamplesAndSamplesNeedLatin) {
  SweepDesignOptions latin_only;
  latin_only.latin = {"g=1:2"};
  EXPECT_THAT(Problems(latin_only), ElementsAre(HasSubstr("--latin needs --samples")));
  SweepDesignOptions samples_only;
  samples_only.grid = {"l=1:2:2"};
  samples_only.samples = 3;
  EXPECT_THAT(Problems(samples_only), ElementsAre(HasSubstr("--samples: given without --latin")));
}

// The design is built whole before the first run, so its size is refused before it is built.
TEST(SweepDesign, ADesignOfMoreThanTenMillionRunsIsRefusedUnbuilt) {
  SweepDesignOptions huge_grid;
  huge_grid.grid = {"l=1:2:10000001"};
  EXPECT_THAT(Problems(huge_grid), ElementsAre(HasSubstr("must be an integer from 1 to 10000000")));
  SweepDesignOptions huge_hypercube;
  huge_hypercube.latin = {"g=1:2"};
  huge_hypercube.samples = std::size_t{1} << 62;
  EXPECT_THAT(Problems(huge_hypercube),
              ElementsAre(HasSubstr("a sweep has at most 10000000 runs")));
  SweepDesignOptions huge_product;  // 10⁴ × 10⁴ levels: each factor is allowed, their product not
  huge_product.grid = {"a=1:2:10000", "b=1:2:10000"};
  EXPECT_THAT(Problems(huge_product), ElementsAre(HasSubstr("the design has more than 10000000")));
  SweepDesignOptions just_above;  // 1001 × 10⁴ = 10,010,000 runs
  just_above.grid = {"a=1:2:1001", "b=1:2:10000"};
  EXPECT_THAT(Problems(just_above), ElementsAre(HasSubstr("the design has more than 10000000")));
}

TEST(LatinHypercube, EveryStratumOnceInEveryDimension) {
  // The defining property (McKay et al. 1979): ⌊N·(x − lo)/(hi − lo)⌋ is a permutation of
  // 0 … N−1 in each dimension.
  constexpr std::size_t kSamples = 50;
  const auto rows = LatinHypercube({{"a", 0.0, 1.0}, {"b", -5.0, 5.0}}, kSamples, 7);
  ASSERT_EQ(rows.size(), kSamples);
  for (std::size_t d = 0; d < 2; ++d) {
    const double lo = d == 0 ? 0.0 : -5.0;
    const double width = d == 0 ? 1.0 : 10.0;
    std::set<long> strata;
    for (const auto& row : rows) {
      EXPECT_GE(row[d], lo);
      EXPECT_LT(row[d], lo + width);
      strata.insert(static_cast<long>(std::floor(kSamples * (row[d] - lo) / width)));
    }
    EXPECT_EQ(strata.size(), kSamples) << "dimension " << d;
  }
}

TEST(LatinHypercube, SeedDeterminesTheSample) {
  const std::vector<LatinRange> ranges = {{"a", 0.0, 1.0}};
  EXPECT_EQ(LatinHypercube(ranges, 10, 1), LatinHypercube(ranges, 10, 1));
  EXPECT_NE(LatinHypercube(ranges, 10, 1), LatinHypercube(ranges, 10, 2));
}

TEST(SplitMix64, MatchesTheReferenceStream) {
  // First outputs for seed 0 of the reference implementation (Vigna's splitmix64.c); the Python
  // client's tests check the same numbers.
  SplitMix64 rng(0);
  EXPECT_EQ(rng.Next(), 0xE220A8397B1DCDAFULL);
  EXPECT_EQ(rng.Next(), 0x6E789E6AA1B965F4ULL);
  EXPECT_EQ(rng.Next(), 0x06C45D188009454FULL);
}

TEST(CsvReader, QuotedFieldsCrlfAndLineNumbers) {
  std::istringstream in("a,b\r\n\"x,1\",\"say \"\"hi\"\"\"\n\n\"two\nlines\",3");
  std::vector<CsvRecord> records;
  std::string why;
  ASSERT_TRUE(ReadCsv(in, &records, &why)) << why;
  ASSERT_EQ(records.size(), 3u);
  EXPECT_THAT(records[0].fields, ElementsAre("a", "b"));
  EXPECT_THAT(records[1].fields, ElementsAre("x,1", "say \"hi\""));
  EXPECT_EQ(records[1].text, "\"x,1\",\"say \"\"hi\"\"\"");
  EXPECT_THAT(records[2].fields, ElementsAre("two\nlines", "3"));
  EXPECT_EQ(records[2].line, 4);
}

TEST(CsvReader, MalformedInputNamesTheLine) {
  std::vector<CsvRecord> records;
  std::string why;
  std::istringstream open_quote("a\n\"never closed");
  EXPECT_FALSE(ReadCsv(open_quote, &records, &why));
  EXPECT_EQ(why, "line 2: unterminated quoted field");
  std::istringstream stray("a\nb\"c\n");
  EXPECT_FALSE(ReadCsv(stray, &records, &why));
  EXPECT_THAT(why, HasSubstr("line 2: a quote inside an unquoted field"));
}

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("tether_sweep_" + std::to_string(getpid()) + "_" + name))
      .string();
}

TEST(SweepDesign, TableRowsAreRuns) {
  const std::string path = TempPath("params.csv");
  std::ofstream(path) << "l,m\n1,2\n3.5,4\n";
  SweepDesignOptions options;
  options.from_file = path;
  options.grid = {"g=9:10:2"};
  const SweepDesign design = Build(options);
  EXPECT_THAT(design.names, ElementsAre("g", "l", "m"));
  EXPECT_THAT(design.runs, ElementsAre(ElementsAre(9.0, 1.0, 2.0), ElementsAre(9.0, 3.5, 4.0),
                                       ElementsAre(10.0, 1.0, 2.0), ElementsAre(10.0, 3.5, 4.0)));
  std::ofstream(path) << "l,m\n1,oops\n";
  EXPECT_THAT(Problems(options),
              ElementsAre(HasSubstr("line 2, m: 'oops' is not a finite number")));
  std::filesystem::remove(path);
}

SweepRow Row(std::size_t run, double l, const std::string& termination = "REACHED_END") {
  SweepRow row;
  row.run = run;
  row.parameters = {l};
  row.termination = termination;
  row.t = 10;
  row.value_names = {"x", "y"};
  row.values = {0.5 * l, -1.0};
  row.stats = {100};
  row.cpu_seconds = 0.25;
  row.replica = "ipv4:127.0.0.1:1";
  return row;
}

const SweepColumns kColumns{{"l"}, {}, {"steps"}};
const std::vector<std::vector<double>> kRuns = {{1.0}, {2.0}, {3.0}};

TEST(SweepOutput, RowsComeOutInRunOrder) {
  std::ostringstream out;
  SweepOutput output(SweepFormat::kCsv, out, kColumns, nullptr);
  const std::string header =
      "run,l,status,termination,t,x,y,steps,cpu_seconds,replica,attempts,message\n";
  output.Add(Row(2, 3.0));
  output.Add(Row(1, 2.0));
  EXPECT_EQ(out.str(), header);  // the columns are known, but run 0 is not done: no row yet
  output.Add(Row(0, 1.0));
  output.Finish();
  EXPECT_EQ(out.str(), header +
                           "0,1,OK,REACHED_END,10,0.5,-1,100,0.25,ipv4:127.0.0.1:1,1,\n"
                           "1,2,OK,REACHED_END,10,1,-1,100,0.25,ipv4:127.0.0.1:1,1,\n"
                           "2,3,OK,REACHED_END,10,1.5,-1,100,0.25,ipv4:127.0.0.1:1,1,\n");
}

TEST(SweepOutput, SkippedRunDoesNotHoldBackTheRest) {
  std::ostringstream out;
  SweepOutput output(SweepFormat::kJsonl, out, kColumns, nullptr);
  output.Add(Row(1, 2.0));
  output.Skip(0);
  EXPECT_THAT(out.str(), HasSubstr("{\"run\":1,\"l\":2,\"status\":\"OK\""));
}

TEST(SweepOutput, InterruptedSweepThatFinishedNothingLeavesAnEmptyOutput) {
  std::ostringstream out;
  SweepOutput output(SweepFormat::kCsv, out, kColumns, nullptr);
  output.Finish();
  EXPECT_EQ(out.str(), "");
}

TEST(SweepTable, CsvReadBackKeepsRowsAndChecksTheDesign) {
  std::ostringstream written;
  SweepOutput output(SweepFormat::kCsv, written, kColumns, nullptr);
  SweepRow failed = Row(2, 3.0, "PROJECTION_FAILED");
  failed.status = "ABORTED";
  failed.message = "projection did not converge at t = 1, residual \"3e-3\"";
  output.Add(Row(0, 1.0));
  output.Skip(1);
  output.Add(failed);
  output.Finish();

  ExistingSweepOutput existing;
  std::string why;
  std::istringstream in(written.str());
  ASSERT_TRUE(ReadSweepOutput(in, SweepFormat::kCsv, kColumns, kRuns, &existing, &why)) << why;
  EXPECT_THAT(existing.values, ElementsAre("x", "y"));
  ASSERT_EQ(existing.rows.size(), 2u);
  EXPECT_EQ(existing.rows.count(1), 0u);
  // Status and termination decide whether --resume runs a row again and counts it as failed.
  EXPECT_EQ(existing.rows.at(2).status, "ABORTED");
  EXPECT_EQ(existing.rows.at(2).termination, "PROJECTION_FAILED");
  EXPECT_TRUE(RunFailed(existing.rows.at(2).status, existing.rows.at(2).termination));
  EXPECT_FALSE(RunFailed(existing.rows.at(0).status, existing.rows.at(0).termination));

  // The resumed output: the old lines unchanged, the new row in its place.
  std::ostringstream resumed;
  SweepOutput again(SweepFormat::kCsv, resumed, kColumns, &existing);
  again.Add(Row(1, 2.0));
  again.Finish();
  EXPECT_EQ(resumed.str().substr(0, resumed.str().find("\n1,")),
            written.str().substr(0, written.str().find("\n2,")));
  EXPECT_THAT(resumed.str(), HasSubstr("\n1,2,OK,"));
  EXPECT_THAT(resumed.str(), HasSubstr("residual \"\"3e-3\"\"\"\n"));
}

// Runs 0 and 1 refused (a transient failure, run again by --resume), run 2 done.
ExistingSweepOutput RefusedTwice() {
  std::ostringstream written;
  SweepOutput output(SweepFormat::kCsv, written, kColumns, nullptr);
  for (std::size_t run = 0; run < 2; ++run) {
    SweepRow refused = Row(run, kRuns[run][0], "");
    refused.status = "RESOURCE_EXHAUSTED";
    output.Add(refused);
  }
  output.Add(Row(2, 3.0));
  output.Finish();
  ExistingSweepOutput existing;
  std::string why;
  std::istringstream in(written.str());
  EXPECT_TRUE(ReadSweepOutput(in, SweepFormat::kCsv, kColumns, kRuns, &existing, &why)) << why;
  return existing;
}

std::size_t Count(const std::string& text, const std::string& part) {
  std::size_t count = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
  return count;
}

// A run given to Redo is written once: its new row in place of its old line, or, when it gets
// no new row (interrupted, or no replica answered), its old line.
TEST(SweepOutput, RedoneRunsReplaceTheirLinesOrKeepThem) {
  const ExistingSweepOutput existing = RefusedTwice();
  std::ostringstream both;
  SweepOutput redone(SweepFormat::kCsv, both, kColumns, &existing);
  redone.Redo(0);
  redone.Redo(1);
  redone.Add(Row(0, 1.0));
  EXPECT_EQ(Count(both.str(), "\n"), 2u) << "run 1 waits for its new row:\n" << both.str();
  redone.Add(Row(1, 2.0));
  redone.Finish();
  EXPECT_EQ(Count(both.str(), "\n"), 4u) << both.str();
  EXPECT_EQ(Count(both.str(), "RESOURCE_EXHAUSTED"), 0u) << both.str();

  std::ostringstream one;
  SweepOutput interrupted(SweepFormat::kCsv, one, kColumns, &existing);
  interrupted.Redo(0);
  interrupted.Redo(1);
  interrupted.Add(Row(1, 2.0));
  interrupted.Finish();
  EXPECT_EQ(Count(one.str(), "\n"), 4u) << one.str();
  EXPECT_EQ(Count(one.str(), "\n0,1,RESOURCE_EXHAUSTED,"), 1u) << one.str();
  EXPECT_EQ(Count(one.str(), "\n1,2,OK,"), 1u) << one.str();
}

TEST(SweepTable, ReadBackRefusesAnotherSweep) {
  std::ostringstream written;
  SweepOutput output(SweepFormat::kJsonl, written, kColumns, nullptr);
  output.Add(Row(0, 1.0));
  output.Finish();
  ExistingSweepOutput existing;
  std::string why;
  std::istringstream in(written.str());
  EXPECT_FALSE(ReadSweepOutput(in, SweepFormat::kJsonl, kColumns, {{1.5}}, &existing, &why));
  EXPECT_EQ(why, "line 1: run 0 has l = 1 but this sweep's run 0 has 1.5 (a different sweep?)");
  std::istringstream csv("run,m,status,termination,t,steps,cpu_seconds,replica,attempts,message\n");
  EXPECT_FALSE(ReadSweepOutput(csv, SweepFormat::kCsv, kColumns, kRuns, &existing, &why));
  EXPECT_THAT(why, HasSubstr("is not that of this sweep"));
}

TEST(SweepProgress, LineCountsRunsFailuresAndRate) {
  std::ostringstream out;
  SweepProgress progress(out, false, 40, 0, 80);
  EXPECT_EQ(progress.Line(10, 1, 10, 2.0),
            "[########......................]  10/40 runs  1 failed  5 runs/s  eta 6 s");
  EXPECT_EQ(progress.Line(40, 0, 40, 4.0),
            "[##############################]  40/40 runs  0 failed  10 runs/s");
  // A narrow terminal: the bar narrows, then the eta and the rate go.
  EXPECT_EQ(SweepProgress(out, false, 40, 0, 40).Line(10, 1, 10, 2.0),
            "[###.......]  10/40 runs  1 failed");
}

}  // namespace
}  // namespace tether::cli
