// Work–precision of tether against SUNDIALS IDA on the seed pendulum and a double pendulum
// (comparison 1). Writes ida_pendulum.json and ida_pendulum.md.
//
// Error: ‖(q, v)(t_end) − reference‖∞ over all Cartesian coordinates and velocities. The
// reference integrates the minimal-coordinate ODE (chain.h) with RK4 in long double; its own
// error is estimated from a run with half the steps and reported beside the results.
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "common/arguments.h"
#include "common/chain.h"
#include "common/cpu_timer.h"
#include "common/report.h"
#include "common/work_precision.h"
#include "ida_pendulum/ida_chain.h"
#include "ida_pendulum/projected_rk4.h"
#ifdef TETHER_BENCH_WITH_SIMULATE
#include "ida_pendulum/tether_chain.h"
#endif

namespace tether::bench {
namespace {

struct Case {
  std::string name;
  Chain chain;
  AngleState start;
  double t_end = 50.0;
  int outputs = 1000;
  long reference_steps = 1'000'000;
  std::vector<double> ida_tolerances;
  std::vector<double> dp5_tolerances;
  std::vector<double> dop853_tolerances;
  std::vector<double> rk4_steps;  // must divide t_end / outputs
  bool quick = false;
};

struct Curve {
  std::string method;
  std::vector<WorkPoint> points;
};

struct Reference {
  Eigen::VectorXd q, v;
  double error_estimate = 0.0;  // ‖ref(N) − ref(N/2)‖∞ / 15 (RK4: error ratio 2⁴ under halving)
};

Reference ComputeReference(const Case& c) {
  Reference fine, coarse;
  ToCartesian(c.chain, IntegrateAngles(c.chain, c.start, c.t_end, c.reference_steps), &fine.q, &fine.v);
  ToCartesian(c.chain, IntegrateAngles(c.chain, c.start, c.t_end, c.reference_steps / 2), &coarse.q,
              &coarse.v);
  fine.error_estimate = std::max((fine.q - coarse.q).lpNorm<Eigen::Infinity>(),
                                 (fine.v - coarse.v).lpNorm<Eigen::Infinity>()) / 15.0;
  return fine;
}

double EndError(const Reference& ref, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  return std::max((q - ref.q).lpNorm<Eigen::Infinity>(), (v - ref.v).lpNorm<Eigen::Infinity>());
}

// Times `run` (the minimum over repeats) and fills the point from its last result.
template <typename Run>
WorkPoint Measure(double setting, int repeats, const Reference& ref,
                  const std::function<Run()>& run) {
  Run last;
  WorkPoint point;
  point.setting = setting;
  point.cpu_seconds = MinCpuSeconds(repeats, [&] { last = run(); });
  point.ok = last.ok;
  point.note = last.message;
  point.steps = last.steps;
  if (last.ok) {
    point.end_error = EndError(ref, last.q_end, last.v_end);
    point.max_residual = last.max_residual;
  }
  return point;
}

std::vector<Curve> RunCurves(const Case& c, const Reference& ref, int repeats,
                             nlohmann::ordered_json* notes) {
  const ChainKinematics kinematics(c.chain);
  Eigen::VectorXd q0, v0;
  ToCartesian(c.chain, c.start, &q0, &v0);
  std::vector<Curve> curves;

  Curve ida{.method = "IDA (GGL, BDF 1-5)", .points = {}};
  for (double tol : c.ida_tolerances) {
    const IdaOptions options{.rtol = tol, .atol = tol, .t_end = c.t_end, .outputs = c.outputs};
    ida.points.push_back(Measure<IdaRun>(tol, repeats, ref, [&] {
      return RunIda(kinematics, q0, v0, options);
    }));
  }
  curves.push_back(ida);

  Curve hand{.method = "hand-written RK4 + coupled projection", .points = {}};
  for (double h : c.rk4_steps) {
    const ProjectedRk4Options options{.step = h, .t_end = c.t_end, .outputs = c.outputs};
    hand.points.push_back(Measure<ProjectedRk4Run>(h, repeats, ref, [&] {
      return RunProjectedRk4(kinematics, q0, v0, options);
    }));
  }
  curves.push_back(hand);

#ifdef TETHER_BENCH_WITH_SIMULATE
  std::string why;
  const auto model = ParseChainModel(ChainSpecJson(c.chain, c.start, "bench-" + c.name), &why);
  if (model == nullptr) {
    (*notes)["tether"] = "the chain spec did not parse: " + why;
    return curves;
  }
  struct Series {
    std::string method;
    const std::vector<double>* settings;
    bool fixed_step;
    double projection_tolerance;
  };
  // The end error follows the stepper's tolerance down to rtol = atol = 1e-14 (the tightest
  // rtol is 1e-15); the last series shows what a tighter Newton stop adds on top of it.
  const std::vector<double> tight = {1e-10, 1e-11, 1e-12, 1e-13, 1e-14};
  double create_cpu = 0.0;
  for (const Series& series : {Series{"dp5", &c.dp5_tolerances, false, 1e-12},
                               Series{"dop853", &c.dop853_tolerances, false, 1e-12},
                               Series{"rk4", &c.rk4_steps, true, 1e-12},
                               Series{"dop853", c.quick ? &c.dop853_tolerances : &tight, false,
                                      1e-14}}) {
    Curve curve{.method = "tether " + series.method + " + coupled projection", .points = {}};
    if (series.projection_tolerance != 1e-12) curve.method += " (projection_tolerance 1e-14)";
    for (double setting : *series.settings) {
      TetherRunOptions options{.method = series.method,
                               .tolerance = series.fixed_step ? 1e-8 : setting,
                               .step = series.fixed_step ? setting : 0.0,
                               .t_end = c.t_end,
                               .outputs = c.outputs,
                               .projection_tolerance = series.projection_tolerance};
      curve.points.push_back(Measure<TetherRun>(setting, repeats, ref, [&] {
        TetherRun run = RunTether(model, options);
        create_cpu = run.create_cpu_seconds;
        return run;
      }));
    }
    curves.push_back(curve);
  }
  (*notes)["tether_create_cpu_seconds"] = create_cpu;
#else
  (*notes)["tether"] = "not built: core/simulate was not available when this benchmark was configured";
#endif
  return curves;
}

nlohmann::ordered_json CurveJson(const Curve& curve) {
  nlohmann::ordered_json points = nlohmann::ordered_json::array();
  for (const WorkPoint& p : curve.points) {
    points.push_back({{"setting", p.setting}, {"ok", p.ok}, {"cpu_seconds", p.cpu_seconds},
                      {"end_error", p.end_error}, {"max_residual", p.max_residual},
                      {"steps", p.steps}, {"note", p.note}});
  }
  return {{"method", curve.method}, {"points", points}};
}

void ReportCase(const Case& c, const Reference& ref, const std::vector<Curve>& curves,
                const nlohmann::ordered_json& notes, Report* report) {
  Table points(c.name + ": work–precision (t ∈ [0, " + Format(c.t_end) + "] s, " +
                   std::to_string(c.outputs) + " outputs)",
               {"method", "tol / step", "CPU ms", "end error", "max ‖Φ‖∞", "steps"});
  for (const Curve& curve : curves) {
    for (const WorkPoint& p : curve.points) {
      points.AddRow({curve.method, Format(p.setting, 2), Format(1e3 * p.cpu_seconds),
                     p.ok ? Format(p.end_error, 2) : "failed: " + p.note,
                     p.ok ? Format(p.max_residual, 2) : "-", std::to_string(p.steps)});
    }
  }
  // IDA's tightest tolerance that succeeds, and the error it reaches there.
  const Curve& ida = curves.front();
  std::optional<WorkPoint> ida_tightest;
  for (const WorkPoint& p : ida.points) {
    if (p.ok && (!ida_tightest || p.setting < ida_tightest->setting)) ida_tightest = p;
  }
  Table summary(c.name + ": CPU time at IDA's error at its tightest successful tolerance",
                {"method", "best end error", "CPU ms at IDA's error", "IDA CPU / method CPU"});
  nlohmann::ordered_json comparisons = nlohmann::ordered_json::array();
  for (const Curve& curve : curves) {
    std::optional<CpuEstimate> cpu;
    if (ida_tightest) cpu = CpuAtError(curve.points, ida_tightest->end_error);
    const double ratio = cpu ? ida_tightest->cpu_seconds / cpu->cpu_seconds : std::nan("");
    const std::string bound = cpu && cpu->upper_bound ? "≤ " : "";
    summary.AddRow({curve.method, Format(BestError(curve.points), 2),
                    cpu ? bound + Format(1e3 * cpu->cpu_seconds) : "not reached",
                    cpu ? (cpu->upper_bound ? "≥ " : "") + Format(ratio) : "-"});
    comparisons.push_back({{"method", curve.method}, {"best_error", BestError(curve.points)},
                           {"cpu_seconds_at_ida_error", cpu ? cpu->cpu_seconds : -1.0},
                           {"cpu_is_upper_bound", cpu ? cpu->upper_bound : false},
                           {"speedup_vs_ida", cpu ? ratio : -1.0}});
  }
  nlohmann::ordered_json curves_json = nlohmann::ordered_json::array();
  for (const Curve& curve : curves) curves_json.push_back(CurveJson(curve));
  report->json()[c.name] = {
      {"t_end", c.t_end},
      {"outputs", c.outputs},
      {"reference", "minimal-coordinate ODE, RK4 in long double, " +
                        std::to_string(c.reference_steps) + " steps"},
      {"reference_error_estimate", ref.error_estimate},
      {"ida_tightest_tolerance", ida_tightest ? ida_tightest->setting : -1.0},
      {"ida_error_at_tightest", ida_tightest ? ida_tightest->end_error : -1.0},
      {"comparisons", comparisons},
      {"curves", curves_json},
      {"notes", notes}};
  report->AddTable(summary);
  report->AddTable(points);
  report->AddNote(c.name + ": \"≥\" marks a method whose loosest setting is already more "
                  "accurate than IDA's best, so the ratio is a lower bound.");
  report->AddNote(c.name + ": reference error estimate " + Format(ref.error_estimate, 2) +
                  " (RK4 in long double, " + std::to_string(c.reference_steps) + " steps, vs half).");
}

std::vector<Case> Cases(bool quick) {
  Case pendulum{.name = "pendulum",
                .chain = SeedPendulum(),
                .start = SeedPendulumStart(),
                .ida_tolerances = {1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10},
                .dp5_tolerances = {1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12},
                .dop853_tolerances = {1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12, 1e-13,
                                      1e-14},
                .rk4_steps = {5e-2, 2.5e-2, 1e-2, 5e-3, 2.5e-3, 1e-3, 5e-4}};
  // Double pendulum: unit masses and rods, released from rest at moderate angles, where the
  // motion is regular (errors grow polynomially, not exponentially, so end errors compare).
  Case twin = pendulum;
  twin.name = "double_pendulum";
  twin.chain = Chain{.masses = {1.0, 1.0}, .lengths = {1.0, 1.0}, .gravity = 9.81};
  twin.start = AngleState{.angle = {0.5L, 0.8L}, .rate = {0.0L, 0.0L}};
  if (quick) {
    for (Case* c : {&pendulum, &twin}) {
      c->quick = true;
      c->t_end = 2.0;
      c->outputs = 40;
      c->reference_steps = 20'000;
      c->ida_tolerances = {1e-4, 1e-6};
      c->dp5_tolerances = {1e-6};
      c->dop853_tolerances = {1e-8};
      c->rk4_steps = {1e-2};
    }
  }
  return {pendulum, twin};
}

int Run(int argc, char** argv) {
  Arguments arguments;
  std::string why;
  if (!ParseArguments(argc, argv, TETHER_BENCH_RESULTS_DIR, &arguments, &why)) {
    std::fprintf(stderr, "ida_pendulum: %s\n", why.c_str());
    return 2;
  }
  Report report("ida_pendulum", arguments.command);
  report.json()["repeats"] = arguments.repeats;
  for (const Case& c : Cases(arguments.quick)) {
    const Reference ref = ComputeReference(c);
    nlohmann::ordered_json notes = nlohmann::ordered_json::object();
    const std::vector<Curve> curves = RunCurves(c, ref, arguments.repeats, &notes);
    ReportCase(c, ref, curves, notes, &report);
  }
  if (!report.Write(arguments.results, &why)) {
    std::fprintf(stderr, "ida_pendulum: %s\n", why.c_str());
    return 1;
  }
  std::printf("ida_pendulum: wrote %s/ida_pendulum.{json,md}\n", arguments.results.c_str());
  return 0;
}

}  // namespace
}  // namespace tether::bench

int main(int argc, char** argv) { return tether::bench::Run(argc, argv); }
