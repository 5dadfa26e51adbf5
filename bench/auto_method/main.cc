// Method "auto" on stiff index-1 networks: an RC ladder of m stages driven by sin t
// (tests/core/simulate/rc_ladder.h), r = 1, C = 1e-6 (eigenvalues down to −4/(r C) = −4e6:
// stiff throughout), to t = 1, for m = 16 … 256. auto starts with dp5, finds the problem stiff
// within a few steps and hands it to radau5; what it then costs against radau5 alone is the
// price of the automatic choice. Its radau5 takes the currents into its stage system
// (algebraic mode kStage, sparse Newton matrices) where the algebraic part is large and
// sparse, as radau5 alone does, and its return check forms ∂F/∂x of dp5's reduced ODE with KLU
// (reduce/reduced_jacobian.cc). Also the CPU of the first Simulation::Create of each (the
// build cache cleared): auto builds both reduced systems. Writes auto_method.{json,md}.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "common/arguments.h"
#include "common/cpu_timer.h"
#include "common/report.h"
#include "core/simulate/rc_ladder.h"
#include "tether/model/model.h"
#include "tether/reduce/build_cache.h"
#include "tether/simulate/simulation.h"

namespace tether::bench {
namespace {

struct MethodRun {
  bool ok = false;
  std::string note;
  double cpu_seconds = 0.0;  // least over the repeats, Create included
  std::uint64_t steps = 0;
  std::uint64_t switches = 0;
  std::vector<double> end;  // the sample at t = 1
};

simulate::Setup SetupOf(const std::shared_ptr<const model::Model>& model,
                        const std::string& method, double rtol) {
  simulate::Setup setup;
  setup.model = model;
  setup.options.method = method;
  setup.options.rtol = rtol;
  setup.options.atol = rtol * 1e-2;
  setup.options.t_end = 1.0;
  setup.options.output_interval = 1.0;  // samples at 0 and 1 only
  return setup;
}

MethodRun RunMethod(const std::shared_ptr<const model::Model>& model, const std::string& method,
              double rtol, int repeats) {
  MethodRun run;
  const simulate::Setup setup = SetupOf(model, method, rtol);
  run.cpu_seconds = MinCpuSeconds(repeats, [&] {
    simulate::CreateResult created = simulate::Simulation::Create(setup);
    if (!created.simulation) {
      run.ok = false;
      run.note = created.problems.empty() ? created.status.message : created.problems[0].message;
      return;
    }
    run.switches = 0;
    const simulate::Status status =
        created.simulation->Advance(std::size_t{1} << 30, [&](const simulate::Sample& s) {
          run.end.assign(s.values.begin(), s.values.end());
          run.switches += s.notices.size();
        });
    run.ok = status.reason == simulate::Termination::kReachedEnd;
    run.note = run.ok ? "" : status.message;
    run.steps = created.simulation->statistics().steps;
  });
  return run;
}

// CPU of a first Simulation::Create with the build cache cleared.
double ColdCreateSeconds(const std::shared_ptr<const model::Model>& model,
                         const std::string& method) {
  reduce::BuildCache::Shared().Clear();
  const double start = ProcessCpuSeconds();
  const simulate::CreateResult created = simulate::Simulation::Create(SetupOf(model, method, 1e-6));
  const double seconds = ProcessCpuSeconds() - start;
  return created.simulation ? seconds : std::numeric_limits<double>::quiet_NaN();
}

double MaxDifference(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.empty()) return std::numeric_limits<double>::infinity();
  double worst = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
  return worst;
}

int Run(int argc, char** argv) {
  Arguments arguments;
  std::string why;
  if (!ParseArguments(argc, argv, TETHER_BENCH_RESULTS_DIR, &arguments, &why)) {
    std::fprintf(stderr, "auto_method: %s\n", why.c_str());
    return 2;
  }
  const std::vector<int> sizes =
      arguments.quick ? std::vector<int>{16} : std::vector<int>{16, 32, 64, 128, 256};
  constexpr double kRtol = 1e-6;
  model::SpecLimits limits;
  limits.max_variables = 2 * 256;
  limits.max_constraints = 256;
  limits.max_document_bytes = 16 << 20;
  Report report("auto_method", arguments.command);
  Table table("RC ladder of m stages (2m variables, index 1, stiff throughout) to t = 1 at rtol "
              "1e-6, atol 1e-8: auto against radau5 and bdf alone (CPU of Create and the run, "
              "best of " + std::to_string(arguments.repeats) + ")",
              {"m", "method", "steps", "switches", "CPU [ms]", "CPU / radau5",
               "|x(1) − reference|∞", "first Create, cold [ms]"});
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  int code = 0;
  for (int m : sizes) {
    const model::ModelResult parsed = model::ParseModel(
        testing::RcLadderSpec(static_cast<std::size_t>(m), "c",
                              R"json({"r": {"value": 1}, "c": {"value": 1e-6}})json"),
        limits);
    if (!parsed.ok()) {
      std::fprintf(stderr, "auto_method: %s\n", parsed.ErrorText().c_str());
      return 1;
    }
    const MethodRun reference = RunMethod(parsed.model, "radau5", 1e-10, 1);
    const MethodRun radau5 = RunMethod(parsed.model, "radau5", kRtol, arguments.repeats);
    for (const std::string method : {"auto", "radau5", "bdf"}) {
      const MethodRun run = method == "radau5" ? radau5
                                         : RunMethod(parsed.model, method, kRtol,
                                                     arguments.repeats);
      const double cold = ColdCreateSeconds(parsed.model, method);
      if (!run.ok || !reference.ok) code = 1;
      const double error = MaxDifference(run.end, reference.end);
      table.AddRow({std::to_string(m), method + (run.ok ? "" : " (failed: " + run.note + ")"),
                    std::to_string(run.steps), std::to_string(run.switches),
                    Format(1e3 * run.cpu_seconds), Format(run.cpu_seconds / radau5.cpu_seconds),
                    Format(error), Format(1e3 * cold)});
      rows.push_back({{"m", m}, {"method", method}, {"ok", run.ok}, {"steps", run.steps},
                      {"switches", run.switches}, {"cpu_seconds", run.cpu_seconds},
                      {"over_radau5", run.cpu_seconds / radau5.cpu_seconds},
                      {"end_error", error}, {"cold_create_seconds", cold}});
    }
  }
  report.AddTable(table);
  report.AddNote("The reference is radau5 at rtol 1e-10. switches counts auto's notices (one "
                 "per change of method). CPU includes Simulation::Create, whose reduction is "
                 "cached after the first (the last column is that first one, cold).");
  report.json()["rows"] = rows;
  if (!report.Write(arguments.results, &why)) {
    std::fprintf(stderr, "auto_method: %s\n", why.c_str());
    return 1;
  }
  std::printf("auto_method: wrote %s/auto_method.{json,md}\n", arguments.results.c_str());
  return code;
}

}  // namespace
}  // namespace tether::bench

int main(int argc, char** argv) { return tether::bench::Run(argc, argv); }
