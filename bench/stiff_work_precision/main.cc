// Work–precision of tether's methods on stiff problems against SUNDIALS IDA driven directly
// with an analytic Jacobian (bench/bdf_overhead/raw_sundials.h), all in one process:
//   Robertson's kinetics as an index-1 DAE to t = 4e10 (tether: models/robertson.json's
//     equations; IDA: M = diag(1, 1, 0)),
//   van der Pol with μ = 1e6 to t = 3.5, two relaxation periods (IDA: M = diag(1, 1/μ)),
//   a stiff chain of n = 100 (a discretized heat equation with a cubic sink, k = n²) to t = 1,
//   the seed pendulum (mechanical, index 3; shared/seeds/002, example 11.1) to t = 10 (tether:
//     its reduced ODE with projection; IDA: the stabilized index-2 GGL form of
//     bench/ida_pendulum/ida_chain.h, the peer of bench/ida_pendulum).
// tether runs through core/simulate (the reduced model, its compiled Jacobian, the stepper,
// the sampler at t_end only), so the numbers include everything a session does per step.
// Errors: the largest relative error at t_end against references computed independently at
// higher precision (the first two: tests/core/integrate/stiff_problems.h, SciPy at rtol 1e-13;
// the chain: IDA at rtol 1e-12, checked against radau5 at rtol 1e-12; the pendulum: its
// minimal-coordinate ODE by RK4 in long double, bench/common/chain.h). The pendulum's errors are
// relative to max(|reference_i|, 1) (positions of 2.5 m, velocities through 0).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "bdf_overhead/raw_sundials.h"
#include "common/arguments.h"
#include "common/chain.h"
#include "common/cpu_timer.h"
#include "common/report.h"
#include "common/work_precision.h"
#include "core/integrate/stiff_problems.h"
#include "core/simulate/pendulum_spec.h"
#include "ida_pendulum/ida_chain.h"
#include "tether/model/model.h"
#include "tether/reduce/build_cache.h"
#include "tether/simulate/simulation.h"

namespace tether::bench {
namespace {

using integrate::testing::Robertson;
using integrate::testing::RobertsonDae;
using integrate::testing::StiffChain;
using integrate::testing::VanDerPol;
using integrate::testing::VanDerPolMass;

struct Problem {
  std::string name;
  std::string spec;  // tether's model
  double t_end = 1.0;
  std::vector<double> reference;  // at t_end, over the model's states
  // IDA on the same problem from its initial state.
  std::function<RawRun(const RawOptions&)> ida;
  std::vector<double> atol_scale;  // per component, atol = rtol · scale (tiny species)
  double error_floor = 0.0;  // errors relative to max(|reference_i|, error_floor); 0: |ref_i|
};

std::string ChainSpec(std::size_t n) {
  std::string variables;
  std::string rhs;
  std::string initial;
  const std::string k = std::to_string(n * n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::string x = "x" + std::to_string(i);
    const std::string left = i == 0 ? "1" : "x" + std::to_string(i - 1);
    const std::string right = i + 1 == n ? "0" : "x" + std::to_string(i + 1);
    variables += (i ? ", \"" : "\"") + x + "\"";
    rhs += (i ? ", \"" : "\"") + k + "*(" + left + " - 2*" + x + " + " + right + ") - " + x +
           "^3\"";
    initial += (i ? ", \"" : "\"") + x + "\": 0";
  }
  return R"json({"name": "chain", "form": "index1", "differential": [)json" + variables +
         R"json(], "algebraic": [], "constraints": [], "rhs": [)json" + rhs +
         R"json(], "initial": {)json" +
         initial + "}}";
}

double RelativeError(std::span<const double> x, const std::vector<double>& reference,
                     double floor) {
  double worst = 0.0;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    const double magnitude = std::max(std::abs(reference[i]), floor);
    const double scale = magnitude > 0.0 ? magnitude : 1.0;
    worst = std::max(worst, std::abs(x[i] - reference[i]) / scale);
  }
  return std::isfinite(worst) ? worst : std::numeric_limits<double>::infinity();
}

WorkPoint RunTether(const Problem& problem, const std::shared_ptr<const model::Model>& model,
                    const std::string& method, double rtol, int repeats) {
  WorkPoint point;
  point.setting = rtol;
  simulate::Setup setup;
  setup.model = model;
  setup.options.method = method;
  setup.options.rtol = rtol;
  setup.options.atol = rtol;
  const auto states = model->states();
  // The stepper's components only: algebraic variables are solved inside the stages.
  const std::size_t differential = std::min(problem.atol_scale.size(), model->differential.size());
  for (std::size_t i = 0; i < differential; ++i) {
    setup.options.atol_by_variable[states[i]->name] = rtol * problem.atol_scale[i];
  }
  setup.options.t_end = problem.t_end;
  setup.options.output_interval = problem.t_end;  // samples at 0 and t_end only
  setup.options.max_steps = 2'000'000;
  std::vector<double> last;
  simulate::Status status;
  point.cpu_seconds = MinCpuSeconds(repeats, [&] {
    simulate::CreateResult created = simulate::Simulation::Create(setup);
    if (!created.simulation) {
      status.reason = simulate::Termination::kNonFinite;
      status.message = created.problems.empty() ? created.status.message
                                                : created.problems[0].message;
      return;
    }
    status = created.simulation->Advance(std::size_t{1} << 30, [&](const simulate::Sample& s) {
      last.assign(s.values.begin(), s.values.end());
    });
    point.steps = static_cast<long>(created.simulation->statistics().steps);
  });
  point.ok = status.reason == simulate::Termination::kReachedEnd;
  point.note = point.ok ? "" : status.message;
  point.end_error = point.ok ? RelativeError(last, problem.reference, problem.error_floor)
                             : std::numeric_limits<double>::infinity();
  return point;
}

// CPU of Simulation::Create (radau5) with an empty build cache, then of a second one that
// copies the cached build, as a service's later sessions of the model do.
std::pair<double, double> CreateCost(const std::shared_ptr<const model::Model>& model) {
  simulate::Setup setup;
  setup.model = model;
  setup.options.method = "radau5";
  auto create = [&setup] {
    const double start = ProcessCpuSeconds();
    const simulate::CreateResult created = simulate::Simulation::Create(setup);
    const double seconds = ProcessCpuSeconds() - start;
    return created.simulation != nullptr ? seconds : std::numeric_limits<double>::quiet_NaN();
  };
  reduce::BuildCache::Shared().Clear();
  const double cold = create();
  return {cold, create()};
}

WorkPoint RunIda(const Problem& problem, double rtol, int repeats) {
  WorkPoint point;
  point.setting = rtol;
  RawOptions options;
  options.rtol = rtol;
  options.atol = rtol;
  for (double scale : problem.atol_scale) options.atol_per_component.push_back(rtol * scale);
  RawRun run;
  point.cpu_seconds = MinCpuSeconds(repeats, [&] { run = problem.ida(options); });
  point.ok = run.error.empty();
  point.note = run.error;
  point.steps = run.steps;
  point.end_error = point.ok ? RelativeError(run.x, problem.reference, problem.error_floor)
                             : std::numeric_limits<double>::infinity();
  return point;
}

double Digits(double error) { return error > 0.0 ? -std::log10(error) : 16.0; }

std::vector<Problem> Problems(bool quick) {
  std::vector<Problem> problems;
  {
    Problem p;
    p.name = "Robertson (index 1, t = 4e10)";
    p.spec = R"json({"name": "robertson", "form": "index1", "differential": ["y1", "y2"],
        "algebraic": ["y3"], "rhs": ["-0.04*y1 + 1e4*y2*y3", "0.04*y1 - 1e4*y2*y3 - 3e7*y2^2"],
        "constraints": ["y1 + y2 + y3 - 1"], "initial": {"y1": 1, "y2": 0, "y3": 0}})json";
    p.t_end = quick ? 40.0 : Robertson::kEnd;
    p.reference.assign(Robertson::kReference.begin(), Robertson::kReference.end());
    p.atol_scale = {1e-6, 1e-12, 1e-6};  // y2 ≈ 2e-13 at the end
    const double t_end = p.t_end;
    p.ida = [t_end](const RawOptions& o) {
      RobertsonDae system;
      return RunRawIda(system, Robertson::kInitial, t_end, o);
    };
    problems.push_back(std::move(p));
  }
  {
    Problem p;
    p.name = "van der Pol, μ = 1e6 (t = 3.5)";
    p.spec = R"json({"name": "vdp", "form": "index1", "differential": ["y1", "y2"],
        "algebraic": [], "constraints": [], "rhs": ["y2", "1e6*((1 - y1^2)*y2 - y1)"],
        "initial": {"y1": 2, "y2": 0}})json";
    p.t_end = quick ? 0.1 : VanDerPol::kEnd;
    p.reference.assign(VanDerPol::kReference.begin(), VanDerPol::kReference.end());
    p.ida = [t_end = p.t_end](const RawOptions& o) {
      VanDerPolMass system;
      return RunRawIda(system, VanDerPol::kInitial, t_end, o);
    };
    problems.push_back(std::move(p));
  }
  {
    const std::size_t n = quick ? 10 : 100;
    Problem p;
    p.name = "stiff chain, n = " + std::to_string(n) + " (t = 1)";
    p.spec = ChainSpec(n);
    p.t_end = 1.0;
    p.ida = [n](const RawOptions& o) {
      StiffChain system(n, true, 2.0);  // M = 2 I: IDA with the same solution
      const std::vector<double> x0(n, 0.0);
      return RunRawIda(system, x0, 1.0, o);
    };
    RawOptions tight;
    tight.rtol = 1e-12;
    tight.atol = 1e-12;
    p.reference = p.ida(tight).x;
    problems.push_back(std::move(p));
  }
  {
    Problem p;
    p.name = "seed pendulum (index 3, t = 10)";
    p.spec = testing::kPendulumSpec;  // (0.86, 2.35) is projected onto the circle radially
    p.t_end = quick ? 1.0 : 10.0;
    const Chain chain = SeedPendulum();
    const AngleState start = SeedPendulumStart();  // the same radial projection, at rest
    Eigen::VectorXd q, v;
    // RK4 in long double with h = 1e-5 (1e-6 quick): error ≈ C h⁴ far below 1e-14.
    ToCartesian(chain, IntegrateAngles(chain, start, p.t_end, quick ? 100'000 : 1'000'000), &q, &v);
    p.reference = {q[0], q[1], v[0], v[1]};
    p.error_floor = 1.0;
    p.ida = [chain, start, t_end = p.t_end](const RawOptions& o) {
      Eigen::VectorXd q0, v0;
      ToCartesian(chain, start, &q0, &v0);
      IdaOptions options;
      options.rtol = o.rtol;
      options.atol = o.atol;
      options.t_end = t_end;
      options.outputs = 1;
      const IdaRun ida = RunIda(ChainKinematics(chain), q0, v0, options);
      RawRun run;
      run.error = ida.ok ? "" : ida.message;
      if (ida.ok) run.x = {ida.q_end[0], ida.q_end[1], ida.v_end[0], ida.v_end[1]};
      run.steps = ida.steps;
      run.evaluations = ida.residual_evaluations;
      return run;
    };
    problems.push_back(std::move(p));
  }
  return problems;
}

// At every accuracy IDA reaches: IDA's CPU and tether's best implicit method's CPU there.
void CompareAtIdaAccuracy(const Problem& problem, const std::vector<WorkPoint>& ida,
                          const std::vector<std::pair<std::string, std::vector<WorkPoint>>>& curves,
                          Table* table, nlohmann::ordered_json* json) {
  for (const WorkPoint& point : ida) {
    if (!point.ok) continue;
    std::string best_method;
    std::optional<CpuEstimate> best;
    for (const auto& [method, curve] : curves) {
      if (method == "dop853") continue;
      const std::optional<CpuEstimate> at = CpuAtError(curve, point.end_error);
      if (at && (!best || at->cpu_seconds < best->cpu_seconds)) {
        best = at;
        best_method = method;
      }
    }
    const std::string ratio =
        best ? Format(best->cpu_seconds / point.cpu_seconds) + (best->upper_bound ? " (≤)" : "")
             : "not reached";
    table->AddRow({problem.name, Format(Digits(point.end_error), 3),
                   Format(1e3 * point.cpu_seconds), best ? best_method : "-",
                   best ? Format(1e3 * best->cpu_seconds) : "-", ratio});
    json->push_back({{"problem", problem.name},
                     {"digits", Digits(point.end_error)},
                     {"ida_cpu_s", point.cpu_seconds},
                     {"best_method", best_method},
                     {"best_cpu_s", best ? best->cpu_seconds : -1.0}});
  }
}

int Run(int argc, char** argv) {
  Arguments arguments;
  std::string why;
  if (!ParseArguments(argc, argv, TETHER_BENCH_RESULTS_DIR, &arguments, &why)) {
    std::fprintf(stderr, "stiff_work_precision: %s\n", why.c_str());
    return 2;
  }
  Report report("stiff_work_precision", arguments.command);
  const std::vector<double> tolerances =
      arguments.quick ? std::vector<double>{1e-4}
                      : std::vector<double>{1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10};
  const std::vector<std::string> methods = {"radau5", "bdf", "auto", "dop853"};
  Table curves_table("Work–precision: CPU per run [ms] and correct digits (−log10 of the "
                     "largest relative error at t_end)",
                     {"problem", "method", "rtol", "steps", "CPU [ms]", "digits"});
  Table ratio_table("At each accuracy IDA reaches: CPU of tether's best implicit method / IDA's",
                    {"problem", "IDA digits", "IDA CPU [ms]", "tether's best", "its CPU [ms]",
                     "ratio"});
  Table build_table("Once per model and options (BuildCache): index reduction, compiled programs "
                    "and the symbolic Jacobian, CPU of the first Simulation::Create",
                    {"problem", "first Create, cold [ms]", "a later Create, cached [ms]"});
  nlohmann::ordered_json ratios = nlohmann::ordered_json::array();
  bool failed = false;
  for (const Problem& problem : Problems(arguments.quick)) {
    const model::ModelResult parsed = model::ParseModel(problem.spec);
    if (!parsed.ok()) {
      std::fprintf(stderr, "stiff_work_precision: %s\n", parsed.ErrorText().c_str());
      return 1;
    }
    const auto [cold, cached] = CreateCost(parsed.model);
    build_table.AddRow({problem.name, Format(1e3 * cold), Format(1e3 * cached)});
    report.json()["build"].push_back(
        {{"problem", problem.name}, {"cold_cpu_s", cold}, {"cached_cpu_s", cached}});
    std::vector<std::pair<std::string, std::vector<WorkPoint>>> curves;
    for (const std::string& method : methods) {
      std::vector<WorkPoint> curve;
      for (double rtol : tolerances) {
        // dop853 on these problems needs 1e5 to 1e7 stability-bound steps per run; two
        // tolerances show it.
        if (method == "dop853" && rtol < 1e-6 && !arguments.quick) continue;
        curve.push_back(RunTether(problem, parsed.model, method, rtol,
                                  method == "dop853" ? 1 : arguments.repeats));
      }
      curves.emplace_back(method, std::move(curve));
    }
    std::vector<WorkPoint> ida;
    for (double rtol : tolerances) ida.push_back(RunIda(problem, rtol, arguments.repeats));
    curves.emplace_back("IDA", ida);
    for (const auto& [method, curve] : curves) {
      for (const WorkPoint& p : curve) {
        curves_table.AddRow({problem.name, method, Format(p.setting, 2), std::to_string(p.steps),
                             p.ok ? Format(1e3 * p.cpu_seconds) : "failed: " + p.note.substr(0, 60),
                             p.ok ? Format(Digits(p.end_error), 3) : "-"});
        report.json()["curves"].push_back({{"problem", problem.name},
                                           {"method", method},
                                           {"rtol", p.setting},
                                           {"ok", p.ok},
                                           {"steps", p.steps},
                                           {"cpu_s", p.cpu_seconds},
                                           {"error", p.end_error}});
        if (!p.ok && method != "dop853") failed = true;
      }
    }
    curves.pop_back();
    CompareAtIdaAccuracy(problem, ida, curves, &ratio_table, &ratios);
  }
  report.json()["ratios"] = ratios;
  report.AddTable(ratio_table);
  report.AddTable(build_table);
  report.AddTable(curves_table);
  report.AddNote(
      "tether runs each problem through core/simulate as a session would: Simulation::Create "
      "copies the model's cached build (the second table shows the one-time build apart; a "
      "service builds once per model and options, its sessions copy), and the run uses the "
      "symbolic Jacobian of the reduced model, dense Newton matrices at these sizes below the sparse threshold "
      "except the chain, one sample at t_end); IDA is driven directly (raw_sundials.h) with a "
      "hand-written analytic Jacobian and dense linear algebra. atol = rtol, except "
      "Robertson's atol = rtol·(1e-6, 1e-12, 1e-6) for both. The seed pendulum: tether's "
      "mechanical form (reduced ODE, coupled projection) against IDA on the GGL index-2 form "
      "(bench/ida_pendulum), errors relative to max(|reference|, 1). CPU: minimum over the "
      "repeats; '(≤)': tether's curve is already more accurate than IDA at its cheapest point. The "
      "ratio interpolates tether's curve in log–log at IDA's error (work_precision.h).");
  if (!report.Write(arguments.results, &why)) {
    std::fprintf(stderr, "stiff_work_precision: %s\n", why.c_str());
    return 1;
  }
  std::printf("stiff_work_precision: wrote %s/stiff_work_precision.{json,md}\n",
              arguments.results.c_str());
  return failed ? 1 : 0;
}

}  // namespace
}  // namespace tether::bench

int main(int argc, char** argv) { return tether::bench::Run(argc, argv); }
