// The CLI's output formats: CSV and JSONL carry the same numbers exactly, the table is
// aligned and decimated, the SVG is well-formed XML, the progress line reads as documented.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/csv_writer.h"
#include "cli/decimator.h"
#include "cli/jsonl_writer.h"
#include "cli/number_format.h"
#include "cli/progress_bar.h"
#include "cli/row_event.h"
#include "cli/svg_plot.h"
#include "cli/table_writer.h"
#include "cli/terminal.h"
#include "client/xml_check.h"

namespace tether::cli {
namespace {

using ::testing::HasSubstr;

const std::vector<std::string> kColumns = {"t", "x", "y", "lambda_1", "residual_position",
                                           "residual_velocity"};

// A pendulum-like table whose numbers need all 17 significant digits.
std::vector<std::vector<double>> SampleRows(int n) {
  std::vector<std::vector<double>> rows;
  for (int i = 0; i < n; ++i) {
    const double t = 0.01 * i;
    rows.push_back({t, std::sin(t) / 3, -std::cos(t) * 1e-7, 3.6926 + t / 7, 0.0, 1e-16 * (1 + i)});
  }
  return rows;
}

void Feed(RowSink& sink, const std::vector<std::string>& columns,
          const std::vector<std::vector<double>>& rows) {
  sink.Begin(columns, false);
  for (const auto& row : rows) sink.Row(row, {});
  sink.End();
}

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> SplitCsv(const std::string& line) {
  std::vector<std::string> fields;
  std::istringstream in(line);
  for (std::string field; std::getline(in, field, ',');) fields.push_back(field);
  return fields;
}

TEST(NumberFormat, ShortestFormRoundTripsExactly) {
  // to_chars' shortest form is defined to parse back to the same double.
  for (double v : {0.1, 1.0 / 3, -2.2250738585072014e-308, 1e300, 5e-324, 3.6926308293157546}) {
    EXPECT_EQ(std::strtod(FormatExact(v).c_str(), nullptr), v) << FormatExact(v);
  }
  EXPECT_EQ(FormatExact(std::nan("")), "nan");
  EXPECT_EQ(FormatExact(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(FormatJson(std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(FormatShort(3.14159265, 3), "3.14");
}

TEST(CsvWriter, HeaderThenOneRowPerSample) {
  std::ostringstream out;
  CsvWriter csv(out);
  Feed(csv, kColumns, SampleRows(3));
  const auto lines = SplitLines(out.str());
  ASSERT_EQ(lines.size(), 4U);
  EXPECT_EQ(lines[0], "t,x,y,lambda_1,residual_position,residual_velocity");
  EXPECT_EQ(SplitCsv(lines[2]).size(), kColumns.size());
}

TEST(CsvWriter, QuotesFieldsThatNeedIt) {
  EXPECT_EQ(CsvField("plain"), "plain");
  EXPECT_EQ(CsvField("a,b"), "\"a,b\"");
  EXPECT_EQ(CsvField("say \"hi\""), "\"say \"\"hi\"\"\"");
}

TEST(JsonlWriter, EscapesKeysAndWritesNullForNonFinite) {
  std::ostringstream out;
  JsonlWriter jsonl(out);
  Feed(jsonl, {"t", "we\"ird\n"}, {{0.5, std::nan("")}});
  const auto object = nlohmann::json::parse(SplitLines(out.str()).at(0));
  EXPECT_EQ(object["t"].get<double>(), 0.5);
  EXPECT_TRUE(object["we\"ird\n"].is_null());
}

TEST(CsvAndJsonl, CarryTheSameNumbersBitForBit) {
  const auto rows = SampleRows(50);
  std::ostringstream csv_text;
  std::ostringstream jsonl_text;
  CsvWriter csv(csv_text);
  JsonlWriter jsonl(jsonl_text);
  TeeSink both({&csv, &jsonl});
  Feed(both, kColumns, rows);

  const auto csv_lines = SplitLines(csv_text.str());
  const auto json_lines = SplitLines(jsonl_text.str());
  ASSERT_EQ(csv_lines.size(), rows.size() + 1);
  ASSERT_EQ(json_lines.size(), rows.size());
  const auto header = SplitCsv(csv_lines[0]);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const auto fields = SplitCsv(csv_lines[r + 1]);
    const auto object = nlohmann::json::parse(json_lines[r]);
    ASSERT_EQ(object.size(), header.size());
    for (std::size_t c = 0; c < header.size(); ++c) {
      const double from_csv = std::strtod(fields[c].c_str(), nullptr);
      EXPECT_EQ(from_csv, rows[r][c]);
      EXPECT_EQ(object[header[c]].get<double>(), from_csv) << header[c] << " row " << r;
    }
  }
}

TEST(Decimator, KeepsAtMostCapacityPlusLastEvenlySpaced) {
  Decimator decimator(8);
  for (int i = 0; i < 1001; ++i) decimator.Add(std::vector<double>{static_cast<double>(i)});
  const auto rows = decimator.Rows();
  // 1001 rows into 8 slots: the stride doubles until 1001/stride ≤ 8 → stride 128, rows
  // 0, 128, …, 896 (8 of them), then the last row 1000.
  ASSERT_EQ(rows.size(), 9U);
  for (std::size_t i = 0; i + 1 < rows.size(); ++i) EXPECT_EQ(rows[i][0], 128.0 * static_cast<double>(i));
  EXPECT_EQ(rows.back()[0], 1000.0);
  EXPECT_EQ(decimator.seen(), 1001U);
}

TEST(Decimator, KeepsEverythingBelowCapacity) {
  Decimator decimator(8);
  for (int i = 0; i < 5; ++i) decimator.Add(std::vector<double>{static_cast<double>(i)});
  EXPECT_EQ(decimator.Rows().size(), 5U);
}

TEST(TableWriter, AlignsColumnsAndSaysWhatWasLeftOut) {
  std::ostringstream out;
  TableWriter table(out, 10);
  Feed(table, kColumns, SampleRows(100));
  const auto lines = SplitLines(out.str());
  // header + at most 10 kept rows + the last row + the note.
  ASSERT_GE(lines.size(), 4U);
  ASSERT_LE(lines.size(), 13U);
  EXPECT_THAT(lines.back(), HasSubstr("of 100 samples shown"));
  for (std::size_t i = 1; i + 1 < lines.size(); ++i) EXPECT_EQ(lines[i].size(), lines[0].size());
}

TEST(LinearTicks, AreNiceMultiplesInsideTheRange) {
  EXPECT_THAT(LinearTicks(0, 50, 6), ::testing::ElementsAre(0, 10, 20, 30, 40, 50));
  const auto ticks = LinearTicks(-0.93, 0.93, 6);
  ASSERT_FALSE(ticks.empty());
  EXPECT_GE(ticks.front(), -0.93);
  EXPECT_LE(ticks.back(), 0.93);
  EXPECT_TRUE(LinearTicks(1, 1, 6).empty());
}

TEST(XmlEscape, ReplacesTheFiveSpecialCharacters) {
  EXPECT_EQ(XmlEscape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
}

TEST(PlotOptions, DefaultsAreValidAndBadValuesNamed) {
  std::string why;
  EXPECT_TRUE(PlotOptions{}.IsValid(&why)) << why;
  PlotOptions bad;
  bad.residual_floor = 0;
  EXPECT_FALSE(bad.IsValid(&why));
  EXPECT_EQ(why, "PlotOptions::residual_floor = 0; must be > 0");
}

TEST(SvgPlotWriter, WritesWellFormedXmlWithBothPanels) {
  std::ostringstream out;
  PlotOptions options;
  options.title = "pendulum <coupled> & \"friends\"";
  SvgPlotWriter plot(out, options);
  auto rows = SampleRows(300);
  rows[10][1] = std::nan("");  // a gap in x
  Feed(plot, kColumns, rows);
  const std::string svg = out.str();
  std::string why;
  EXPECT_TRUE(test::IsWellFormedXml(svg, &why)) << why;
  EXPECT_THAT(svg, HasSubstr("pendulum &lt;coupled&gt; &amp; &quot;friends&quot;"));
  EXPECT_THAT(svg, HasSubstr(">residual_velocity</text>"));
  EXPECT_THAT(svg, HasSubstr(">lambda_1</text>"));
  EXPECT_THAT(svg, HasSubstr("t [s]"));
  // residual_position is 0 throughout: drawn at the floor, 1e-17.
  EXPECT_THAT(svg, HasSubstr(">1e-17</text>"));
}

TEST(SvgPlotWriter, NoSamplesStillWellFormed) {
  std::ostringstream out;
  SvgPlotWriter plot(out, PlotOptions{});
  Feed(plot, kColumns, {});
  std::string why;
  EXPECT_TRUE(test::IsWellFormedXml(out.str(), &why)) << why;
  EXPECT_THAT(out.str(), HasSubstr("no samples"));
}

// A projected dynamical system's table: 10 rows, constraint 0 activated at row 3, then at row 7
// constraint 0 deactivated and constraint 1 activated at the same instant.
const std::vector<std::string> kPdsColumns = {"t",        "x",        "y",
                                              "mu_1",     "active_1", "residual_position",
                                              "residual_velocity", "residual_inequality"};

struct PdsTable {
  std::vector<std::vector<double>> rows;
  std::map<std::size_t, std::vector<RowEvent>> events;  // by row
};

PdsTable SamplePds() {
  PdsTable table;
  for (int i = 0; i < 10; ++i) {
    const double t = 0.1 * i + 1.0 / 3;  // not round: the event's t must be printed exactly
    const bool active = i >= 3 && i < 7;
    table.rows.push_back({t, t * t, active ? 0.0 : 1 - t, active ? 0.5 : 0.0, active ? 1.0 : 0.0,
                          0.0, 0.0, active ? 1e-17 : 0.0});
  }
  table.events[3] = {{true, table.rows[3][0], 0}};
  table.events[7] = {{false, table.rows[7][0], 0}, {true, table.rows[7][0], 1}};
  return table;
}

void FeedPds(RowSink& sink, const PdsTable& table) {
  sink.Begin(kPdsColumns, true);
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const auto it = table.events.find(r);
    sink.Row(table.rows[r], it == table.events.end() ? std::span<const RowEvent>()
                                                      : std::span<const RowEvent>(it->second));
  }
  sink.End();
}

// The lines `Writer` writes for SamplePds().
template <typename Writer>
std::vector<std::string> WritePds() {
  std::ostringstream out;
  Writer writer(out);
  FeedPds(writer, SamplePds());
  return SplitLines(out.str());
}

TEST(RowEvent, LabelsJoinInOrder) {
  EXPECT_EQ(EventLabels({}), "");
  const std::vector<RowEvent> two = {{false, 1.0, 0}, {true, 1.0, 12}};
  EXPECT_EQ(EventLabels(two), "deactivated:0;activated:12");
}

TEST(CsvWriter, EventColumnLastAndFilledOnlyOnSwitchRows) {
  const PdsTable table = SamplePds();
  const auto lines = WritePds<CsvWriter>();
  ASSERT_EQ(lines.size(), table.rows.size() + 1);
  EXPECT_EQ(lines[0],
            "t,x,y,mu_1,active_1,residual_position,residual_velocity,residual_inequality,event");
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const std::string& line = lines[r + 1];
    // Every row has the 8 numbers and the event field: exactly 8 commas.
    EXPECT_EQ(std::count(line.begin(), line.end(), ','), 8) << line;
    const std::string event = line.substr(line.rfind(',') + 1);
    const std::string expected = r == 3 ? "activated:0" : r == 7 ? "deactivated:0;activated:1" : "";
    EXPECT_EQ(event, expected) << "row " << r;
  }
}

TEST(JsonlWriter, EventLineImmediatelyBeforeItsSample) {
  const PdsTable table = SamplePds();
  const auto lines = WritePds<JsonlWriter>();
  // 10 samples and 3 events.
  ASSERT_EQ(lines.size(), 13U);
  std::vector<std::string> kinds;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto object = nlohmann::json::parse(lines[i]);
    if (!object.contains("event")) {
      EXPECT_EQ(object.size(), kPdsColumns.size()) << lines[i];
      continue;
    }
    ASSERT_EQ(object.size(), 3U) << lines[i];  // event, t, constraint
    kinds.push_back(object["event"].get<std::string>() + ":" +
                    std::to_string(object["constraint"].get<int>()));
    // The next sample line (past the events of the same instant) is the switch's sample: same
    // t, bit for bit, since both print the shortest round-tripping form.
    std::size_t next = i + 1;
    while (next < lines.size() && nlohmann::json::parse(lines[next]).contains("event")) ++next;
    ASSERT_LT(next, lines.size());
    EXPECT_EQ(object["t"].get<double>(), nlohmann::json::parse(lines[next])["t"].get<double>());
  }
  EXPECT_THAT(kinds, ::testing::ElementsAre("activated:0", "deactivated:0", "activated:1"));
  // Placement: lines 0-2 are samples 0-2, line 3 the first event, line 4 sample 3.
  EXPECT_EQ(nlohmann::json::parse(lines[3])["event"], "activated");
  EXPECT_EQ(nlohmann::json::parse(lines[4])["t"].get<double>(), table.rows[3][0]);
  EXPECT_EQ(nlohmann::json::parse(lines[8])["event"], "deactivated");
  EXPECT_EQ(nlohmann::json::parse(lines[9])["event"], "activated");
  EXPECT_EQ(nlohmann::json::parse(lines[10])["t"].get<double>(), table.rows[7][0]);
}

TEST(TableWriter, ShowsSwitchRowsThroughDecimation) {
  std::ostringstream out;
  // 4 rows at most: the decimation alone keeps rows 0, 4, 8 and the last, 9 — neither 3 nor 7.
  TableWriter table(out, 4);
  FeedPds(table, SamplePds());
  const auto lines = SplitLines(out.str());
  ASSERT_GE(lines.size(), 2U);
  EXPECT_THAT(lines[0], ::testing::EndsWith("  event"));
  // The header, rows 0, 3, 4, 7, 8, 9 in stream order (4 decimated rows and the 2 switch rows),
  // then the note.
  ASSERT_EQ(lines.size(), 8U);
  EXPECT_EQ(lines.back(), "(6 of 10 samples shown; --format csv or jsonl for all)");
  // The numbers stay aligned; the event text follows them, left-aligned, without trailing blanks.
  const std::size_t numbers = lines[0].size() - std::string("  event").size();
  for (std::size_t i = 1; i + 1 < lines.size(); ++i) {
    EXPECT_TRUE(lines[i].size() == numbers || lines[i].substr(numbers, 2) == "  ") << lines[i];
    EXPECT_NE(lines[i].back(), ' ') << lines[i];
  }
  EXPECT_EQ(lines[2].substr(numbers), "  activated:0");                // row 3
  EXPECT_EQ(lines[4].substr(numbers), "  deactivated:0;activated:1");  // row 7
  EXPECT_EQ(lines[3].size(), numbers);                                 // row 4: no event
}

TEST(SvgPlotWriter, MarksEverySwitchAcrossBothPanels) {
  std::ostringstream out;
  SvgPlotWriter plot(out, PlotOptions{});
  FeedPds(plot, SamplePds());
  const std::string svg = out.str();
  std::string why;
  EXPECT_TRUE(test::IsWellFormedXml(svg, &why)) << why;
  // Three switches: three groups of two dashed lines (one per panel) and a label each.
  std::size_t groups = 0;
  for (auto at = svg.find("<g class=\"switch\">"); at != std::string::npos;
       at = svg.find("<g class=\"switch\">", at + 1)) {
    ++groups;
  }
  EXPECT_EQ(groups, 3U);
  // ▲0, ▼0, ▲1 above the panels; the tooltip; the third residual in the lower legend.
  for (const char* part : {">\u25B20</text>", ">\u25BC0</text>", ">\u25B21</text>",
                           "<title>deactivated 0 at t = ", ">residual_inequality</text>"}) {
    EXPECT_THAT(svg, HasSubstr(part));
  }
}

TEST(SvgPlotWriter, NoEventsNoMarkers) {
  std::ostringstream out;
  SvgPlotWriter plot(out, PlotOptions{});
  Feed(plot, kColumns, SampleRows(20));
  EXPECT_THAT(out.str(), ::testing::Not(HasSubstr("switch")));
}

TEST(ProgressBar, LineShowsFractionTimeSamplesAndRate) {
  std::ostringstream out;
  ProgressBar bar(out, false, 0.0, 50.0, 120);
  EXPECT_EQ(bar.Line(25, 2501, 0.5),
            "[###############...............]  50%  t = 25 / 50 s  2501 samples  5002 samples/s");
  bar.Update(25, 2501);
  bar.Finish();
  EXPECT_EQ(out.str(), "");  // disabled: silent
}

// Whatever the terminal's width, the line leaves its last column free (a wrapped line cannot be
// redrawn with "\r"): the bar narrows first, then the rate and the sample count go, then the bar.
TEST(ProgressBar, LineFitsTheTerminal) {
  std::ostringstream out;
  for (int columns = 1; columns <= 140; ++columns) {
    ProgressBar bar(out, false, 0.0, 50.0, columns);
    EXPECT_LE(bar.Line(25, 2501, 0.5).size(), static_cast<std::size_t>(std::max(columns - 1, 1)))
        << columns << " columns";
  }
  EXPECT_EQ(ProgressBar(out, false, 0.0, 50.0, 80).Line(25, 2501, 0.5),
            "[##############.............]  50%  t = 25 / 50 s  2501 samples  5002 samples/s");
  EXPECT_EQ(ProgressBar(out, false, 0.0, 50.0, 60).Line(25, 2501, 0.5),
            "[#####.....]  50%  t = 25 / 50 s  2501 samples");
  EXPECT_EQ(ProgressBar(out, false, 0.0, 50.0, 20).Line(25, 2501, 0.5), "[#####.....]  50%");
  EXPECT_EQ(ProgressBar(out, false, 0.0, 50.0, 12).Line(25, 2501, 0.5), "50%");
  EXPECT_EQ(ProgressBar(out, false, 0.0, INFINITY, 30).Line(25, 2501, 0.5), "t = 25 s  2501 samples");
}

TEST(TerminalColumns, ReadsColumnsWhenTheDescriptorIsNoTerminal) {
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  ::setenv("COLUMNS", "132", 1);
  EXPECT_EQ(TerminalColumns(ends[0]), 132);
  ::setenv("COLUMNS", "wide", 1);
  EXPECT_EQ(TerminalColumns(ends[0]), kDefaultTerminalColumns);
  ::unsetenv("COLUMNS");
  EXPECT_EQ(TerminalColumns(ends[0]), kDefaultTerminalColumns);
  ::close(ends[0]);
  ::close(ends[1]);
}

// On a narrow terminal the table keeps the columns that fit and names the others.
TEST(TableWriter, FitsTheTerminalAndNamesTheColumnsLeftOut) {
  std::ostringstream out;
  TableWriter table(out, 10, 20);
  table.Begin({"t", "x", "y", "lambda"}, false);
  const std::vector<double> row = {0.5, 1.25, -2.5, 19.625};
  table.Row(row, {});
  table.End();
  std::istringstream lines(out.str());
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "  t     x     y");
  std::getline(lines, line);
  EXPECT_EQ(line, "0.5  1.25  -2.5");
  std::getline(lines, line);
  EXPECT_EQ(line, "(1 columns wider than the terminal not shown: lambda; --columns picks columns, "
                  "--format csv shows all)");
}

}  // namespace
}  // namespace tether::cli
