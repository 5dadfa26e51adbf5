// Compiled expressions against hand-written C++ (comparison 2). Writes
// expr_vs_hand.json and expr_vs_hand.md.
//
//  (a) One RK4 + coupled-projection step of the seed pendulum (h = 1e-3 s) through tether's
//      compiled programs (reduce::ReducedModel) and its project::NewtonProjection vs the same
//      step written by hand.
//  (b) Raw evaluation of f, Φ, Φ_q (its structural non-zeros), h, a in one expr::Program per
//      call, and of the reduced right-hand side (program + Schur solve, dense and sparse), for
//      chains of n = 1 … 256 pendulums, with the size from which sparse pays; the exponent p of
//      time ∝ n^p is fitted by least squares in log-log.
//  (c) The same for the index forms' algebraic kernel: an index-1 ladder network's reduced
//      right-hand side with c_y dense and sparse, m = 1 … 256 (algebraic_scaling.h).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "common/arguments.h"
#include "common/chain.h"
#include "common/cpu_timer.h"
#include "common/hand_pendulum.h"
#include "common/report.h"
#include "expr_vs_hand/algebraic_scaling.h"
#include "expr_vs_hand/reduced_step.h"
#include "tether/expr/program.h"
#include "tether/model/model.h"
#include "tether/project/newton_projection.h"
#include "tether/reduce/closed_form_multipliers.h"
#include "tether/reduce/reduced_model.h"

namespace tether::bench {
namespace {

// f, Φ, Φ_q, h = Φ_q v + Φ_t, a = h_q v + h_t of a mechanical model compiled into one program
// over [q, v, t, parameters], in a context of its own (the model's is shared read-only). Φ_q's
// structural zeros are left out, as the service's stage and invariants programs leave them
// (written out, a 64-body chain's 8k zeros would be most of what is timed, for both engines).
struct RawProgram {
  expr::Program program;
  std::vector<double> in, out;
};

RawProgram CompileRaw(const model::Model& m) {
  expr::Context context;
  std::vector<expr::Expr> inputs, q, v, outputs;
  auto symbol = [&](const std::string& name) { return context.Symbol(name); };
  for (const auto& c : m.coordinates) q.push_back(symbol(c.name));
  for (const auto& c : m.velocities) v.push_back(symbol(c.name));
  inputs.insert(inputs.end(), q.begin(), q.end());
  inputs.insert(inputs.end(), v.begin(), v.end());
  const expr::Expr t = symbol("t");
  inputs.push_back(t);
  for (const auto& p : m.parameters) inputs.push_back(symbol(p.name));
  for (expr::Expr f : m.forces) outputs.push_back(context.Import(*m.context, f));
  for (expr::Expr c : m.constraints) {
    const expr::Expr phi = context.Import(*m.context, c);
    outputs.push_back(phi);
    expr::Expr h = context.Diff(phi, t);
    for (std::size_t j = 0; j < q.size(); ++j) {
      const expr::Expr phi_q = context.Diff(phi, q[j]);
      if (!context.is_constant(phi_q, 0.0)) outputs.push_back(phi_q);
      h = context.Add(h, context.Mul(phi_q, v[j]));
    }
    outputs.push_back(h);
    expr::Expr a = context.Diff(h, t);
    for (std::size_t j = 0; j < q.size(); ++j) a = context.Add(a, context.Mul(context.Diff(h, q[j]), v[j]));
    outputs.push_back(a);
  }
  RawProgram raw;
  raw.program = expr::Compile(context, outputs, inputs);
  raw.in.assign(inputs.size(), 0.0);
  raw.out.assign(outputs.size(), 0.0);
  return raw;
}

// The seed pendulum's spec, the initial state z0 = (q0, v0) and its reduced model.
struct Reduced {
  std::shared_ptr<const model::Model> model;
  std::unique_ptr<reduce::ReducedModel> reduced;
  std::vector<double> z0;
  std::string error;
};

Reduced ReduceChain(const Chain& chain, const AngleState& start, const std::string& name) {
  Reduced r;
  // The service's limits stop at 512 states (128 planar bodies); the scaling runs to 256.
  model::SpecLimits limits;
  limits.max_variables = 4 * 256;
  limits.max_document_bytes = 16 << 20;
  model::ModelResult parsed = model::ParseModel(ChainSpecJson(chain, start, name), limits);
  if (!parsed.ok()) {
    r.error = parsed.ErrorText();
    return r;
  }
  r.model = parsed.model;
  reduce::ReduceResult reduced = reduce::ReducedModel::Build(r.model, {});
  if (reduced.reduced == nullptr) {
    r.error = reduced.error;
    return r;
  }
  r.reduced = std::move(reduced.reduced);
  Eigen::VectorXd q, v;
  ToCartesian(chain, start, &q, &v);
  r.z0.assign(q.data(), q.data() + q.size());
  r.z0.insert(r.z0.end(), v.data(), v.data() + v.size());
  return r;
}

// The step of the compiled programs at most this many times the hand-written one.
constexpr double kStepTarget = 1.2;

// The hand-written and the compiled step are each timed with the stack at this many offsets
// within its page (cpu_timer.h: one layout can make either 1.1–1.7× slower), in this many
// rounds spread over the run; each layout keeps its fastest round (a round slowed by the
// machine's other work only adds time) and the step its median layout.
constexpr int kStackLayouts = 8;
constexpr int kRounds = 3;

void StepComparison(const Arguments& args, Report* report) {
  const double h = 1e-3;
  const long steps = args.quick ? 100 : 2000;
  const double min_seconds = args.quick ? 0.001 : 0.2;
  const int layouts = args.quick ? 1 : kStackLayouts;
  const int rounds = args.quick ? 1 : kRounds;
  Reduced pendulum = ReduceChain(SeedPendulum(), SeedPendulumStart(), "bench-pendulum");
  if (pendulum.reduced == nullptr) {
    report->json()["step"] = {{"error", pendulum.error}};
    report->AddNote("step comparison not run: " + pendulum.error);
    return;
  }
  const HandPendulum hand;
  HandPendulum::State hand_z{};
  long hand_iterations = 0;
  const auto hand_batch = [&] {
    std::copy(pendulum.z0.begin(), pendulum.z0.end(), hand_z.begin());
    for (long s = 0; s < steps; ++s) hand_iterations += hand.Step(h, &hand_z);
  };
  ReducedStep generic(*pendulum.reduced);
  std::vector<double> z(pendulum.z0.size());
  long generic_iterations = 0;
  const auto generic_batch = [&] {
    z = pendulum.z0;
    for (long s = 0; s < steps; ++s) generic_iterations += generic.Step(h, z);
  };
  const double infinity = std::numeric_limits<double>::infinity();
  std::vector<double> hand_layouts(static_cast<std::size_t>(layouts), infinity);
  std::vector<double> generic_layouts = hand_layouts;
  for (int round = 0; round < rounds; ++round) {
    for (int k = 0; k < layouts; ++k) {
      const auto at = static_cast<std::size_t>(k);
      hand_layouts[at] = std::min(
          hand_layouts[at], SecondsPerCallAtStackLayout(k, hand_batch, min_seconds, args.repeats));
      generic_layouts[at] =
          std::min(generic_layouts[at],
                   SecondsPerCallAtStackLayout(k, generic_batch, min_seconds, args.repeats));
    }
  }
  const double per_step = 1.0 / static_cast<double>(steps);
  const double hand_seconds = Percentile(hand_layouts, 0.5) * per_step;
  const double generic_seconds = Percentile(generic_layouts, 0.5) * per_step;
  const auto [fastest, slowest] = std::minmax_element(generic_layouts.begin(),
                                                      generic_layouts.end());

  // The same step with every program in the interpreter (native code off for its build).
  const bool native = expr::NativeCodeEnabled();
  expr::SetNativeCodeEnabled(false);
  Reduced interpreted = ReduceChain(SeedPendulum(), SeedPendulumStart(), "bench-pendulum");
  expr::SetNativeCodeEnabled(native);
  ReducedStep interpreted_step(*interpreted.reduced);
  std::vector<double> z_interpreted(pendulum.z0.size());
  const double interpreted_seconds = SecondsPerCall([&] {
    z_interpreted = pendulum.z0;
    for (long s = 0; s < steps; ++s) interpreted_step.Step(h, z_interpreted);
  }, min_seconds, args.repeats) / static_cast<double>(steps);

  double difference = 0.0;  // the two paths must compute the same trajectory
  for (std::size_t i = 0; i < 4; ++i) difference = std::max(difference, std::abs(z[i] - hand_z[i]));
  const double ratio = generic_seconds / hand_seconds;
  Table table("Seed pendulum: one RK4 + coupled-projection step (h = 1e-3 s)",
              {"path", "ns per step", "ratio to hand-written"});
  table.AddRow({"hand-written C++ (scalars)", Format(1e9 * hand_seconds), "1"});
  table.AddRow({std::string("tether: ReducedModel + NewtonProjection, ") +
                    (native ? "native code" : "interpreter"),
                Format(1e9 * generic_seconds), Format(ratio)});
  table.AddRow({"tether: ReducedModel + NewtonProjection, interpreter",
                Format(1e9 * interpreted_seconds), Format(interpreted_seconds / hand_seconds)});
  report->AddTable(table);
  report->AddNote("Target ≤ " + Format(kStepTarget) + "×: " +
                  std::string(ratio <= kStepTarget ? "met" : "missed") + " (" +
                  Format(ratio) + "×). End states of the two paths after " +
                  std::to_string(steps) + " steps differ by " + Format(difference, 2) +
                  " (the service's projection stops on the scaled residual, the hand-written "
                  "one on max(|Φ|, |h|), both at 1e-12: they leave the manifold at different "
                  "round-off points). The seed pendulum's stage is one machine-code call: λ "
                  "in closed form (reduce::ClosedFormMultipliers). Each step is the median "
                  "over " + std::to_string(layouts) + " stack layouts (the stack moved by " +
                  std::to_string(kStackLayoutStride) + " bytes at a time across a page: some "
                  "layouts slow a step 1.1–1.7× through 4K aliasing of its loads with stack "
                  "stores) of the fastest of " + std::to_string(rounds) + " rounds; tether's "
                  "step ranged " + Format(1e9 * *fastest * per_step) + "–" +
                  Format(1e9 * *slowest * per_step) + " ns over the layouts.");
  report->json()["step"] = {{"h", h},
                            {"steps_per_batch", steps},
                            {"stack_layouts", layouts},
                            {"rounds", rounds},
                            {"hand_seconds_per_step", hand_seconds},
                            {"tether_seconds_per_step", generic_seconds},
                            {"native_code", native},
                            {"interpreter_seconds_per_step", interpreted_seconds},
                            {"ratio", ratio},
                            {"target", kStepTarget},
                            {"end_state_difference", difference}};
}

// The reduced model of `model` with the multipliers solved by `linear_algebra`; null when
// that cannot be built (the error is noted in the report).
std::unique_ptr<reduce::ReducedModel> ReduceWith(std::shared_ptr<const model::Model> model,
                                                 reduce::LinearAlgebra linear_algebra,
                                                 Report* report) {
  reduce::ReduceOptions options;
  options.linear_algebra = linear_algebra;
  reduce::ReduceResult result = reduce::ReducedModel::Build(std::move(model), options);
  if (result.reduced == nullptr) report->AddNote("not reduced: " + result.error);
  return std::move(result.reduced);
}

// CPU seconds of one coupled Newton projection (Euclidean, the defaults) of `model` from z0
// moved off the manifold by ±1e-6 per coordinate; every call starts from that same point.
double SecondsPerProjection(reduce::ReducedModel& model, const std::vector<double>& z0,
                            double min_seconds, const Arguments& args) {
  project::NewtonProjection projection;
  projection.Resize(model,
                    {.col_begin = 0, .col_end = model.ode_size(), .row_begin = 0,
                     .row_end = model.num_invariants()},
                    {});
  std::vector<double> start = z0;
  for (std::size_t j = 0; j < start.size(); ++j) start[j] += j % 2 == 0 ? 1e-6 : -1e-6;
  std::vector<double> z = start;
  project::ProjectionReport report;
  return SecondsPerCall(
      [&] {
        std::copy(start.begin(), start.end(), z.begin());
        projection.Project(model, 0.0, z, &report);
      },
      min_seconds, args.repeats);
}

std::string FitText(const nlohmann::ordered_json& fit) {
  if (fit.is_null()) return "n/a";
  return Format(fit["all"].get<double>()) + " over all n, " +
         Format(fit["largest_4"].get<double>()) + " over the 4 largest";
}

void Scaling(const Arguments& args, Report* report) {
  const std::vector<int> sizes = args.quick ? std::vector<int>{1, 2, 16}
                                            : std::vector<int>{1, 2, 4, 8, 16, 32, 64, 128, 256};
  const double min_seconds = args.quick ? 0.001 : 0.05;
  Table table("Raw evaluation per call vs chain length n (2n coordinates, n constraints; Φ_q's "
              "structural non-zeros only)",
              {"n", "instructions", "f, Φ, Φ_q, h, a [ns]", "ns per instruction",
               "same, interpreter [ns]", "interpreter / native"});
  Table linear_algebra(
      "Dense vs sparse linear algebra vs chain length n: the reduced rhs (program + multipliers) "
      "and one coupled projection from 1e-6 off the manifold (Euclidean, to 1e-12 and polished)",
      {"n", "reduced rhs, dense [ns]", "sparse [ns]", "dense / sparse",
       "projection, dense [ns]", "sparse [ns]", "dense / sparse", "automatic choice",
       "reduced rhs, automatic [ns]"});
  std::vector<double> ns, raw_times, dense_times, sparse_times, projection_dense_times,
      projection_sparse_times;
  double speedup_64 = 0.0;  // interpreter / native on the 64-body chain
  int crossover = 0;        // the smallest n from which sparse beats dense
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (int n : sizes) {
    Reduced chain = ReduceChain(UnitChain(n), ChainStart(n), "bench-chain-" + std::to_string(n));
    if (chain.reduced == nullptr) {
      report->AddNote("chain n = " + std::to_string(n) + " not run: " + chain.error);
      continue;
    }
    auto dense = ReduceWith(chain.model, reduce::LinearAlgebra::kDense, report);
    auto sparse = ReduceWith(chain.model, reduce::LinearAlgebra::kSparse, report);
    if (dense == nullptr || sparse == nullptr) continue;
    RawProgram raw = CompileRaw(*chain.model);
    std::copy(chain.z0.begin(), chain.z0.end(), raw.in.begin());
    for (std::size_t p = 0; p < chain.model->parameters.size(); ++p) {
      raw.in[chain.z0.size() + 1 + p] = chain.model->parameters[p].value;
    }
    const double raw_seconds =
        SecondsPerCall([&] { raw.program.Evaluate(raw.in, raw.out); }, min_seconds, args.repeats);
    const double interpreted_seconds = SecondsPerCall(
        [&] { raw.program.Interpret(raw.in, raw.out); }, min_seconds, args.repeats);
    std::vector<double> zdot(chain.z0.size());
    const double dense_seconds = SecondsPerCall(
        [&] { dense->Rhs(0.0, chain.z0, zdot); }, min_seconds, args.repeats);
    const double sparse_seconds = SecondsPerCall(
        [&] { sparse->Rhs(0.0, chain.z0, zdot); }, min_seconds, args.repeats);
    const double projection_dense = SecondsPerProjection(*dense, chain.z0, min_seconds, args);
    const double projection_sparse = SecondsPerProjection(*sparse, chain.z0, min_seconds, args);
    const char* chosen = chain.reduced->sparse_multipliers()       ? "sparse"
                         : chain.reduced->closed_form_multipliers() ? "closed form"
                                                                    : "dense";
    const double auto_seconds = SecondsPerCall(
        [&] { chain.reduced->Rhs(0.0, chain.z0, zdot); }, min_seconds, args.repeats);
    table.AddRow({std::to_string(n), std::to_string(raw.program.num_instructions()),
                  Format(1e9 * raw_seconds),
                  Format(1e9 * raw_seconds / static_cast<double>(raw.program.num_instructions())),
                  Format(1e9 * interpreted_seconds), Format(interpreted_seconds / raw_seconds)});
    linear_algebra.AddRow({std::to_string(n), Format(1e9 * dense_seconds),
                           Format(1e9 * sparse_seconds), Format(dense_seconds / sparse_seconds),
                           Format(1e9 * projection_dense), Format(1e9 * projection_sparse),
                           Format(projection_dense / projection_sparse), chosen,
                           Format(1e9 * auto_seconds)});
    rows.push_back({{"n", n}, {"instructions", raw.program.num_instructions()},
                    {"native_code", raw.program.has_native_code()},
                    {"raw_seconds", raw_seconds}, {"interpreted_seconds", interpreted_seconds},
                    {"rhs_dense_seconds", dense_seconds}, {"rhs_sparse_seconds", sparse_seconds},
                    {"projection_dense_seconds", projection_dense},
                    {"projection_sparse_seconds", projection_sparse}, {"auto", chosen},
                    {"rhs_auto_seconds", auto_seconds}});
    if (n == 64) speedup_64 = interpreted_seconds / raw_seconds;
    if (sparse_seconds < dense_seconds && crossover == 0) crossover = n;
    if (sparse_seconds >= dense_seconds) crossover = 0;  // crossed back: not yet for good
    ns.push_back(n);
    raw_times.push_back(raw_seconds);
    dense_times.push_back(dense_seconds);
    sparse_times.push_back(sparse_seconds);
    projection_dense_times.push_back(projection_dense);
    projection_sparse_times.push_back(projection_sparse);
  }
  report->AddTable(table);
  report->AddTable(linear_algebra);
  if (speedup_64 > 0.0) {
    report->AddNote("Native code vs the interpreter on the 64-body chain's raw program: " +
                    Format(speedup_64) + "× (target ≥ 4×: " +
                    (speedup_64 >= 4.0 ? "met" : "missed") + ").");
  }
  const nlohmann::ordered_json fit = {{"raw", Fit(ns, raw_times)},
                                      {"rhs_dense", Fit(ns, dense_times)},
                                      {"rhs_sparse", Fit(ns, sparse_times)},
                                      {"projection_dense", Fit(ns, projection_dense_times)},
                                      {"projection_sparse", Fit(ns, projection_sparse_times)}};
  report->AddNote(
      "Fitted exponent p of time ∝ n^p: raw program " + FitText(fit["raw"]) +
      "; reduced rhs, dense " + FitText(fit["rhs_dense"]) + "; reduced rhs, sparse " +
      FitText(fit["rhs_sparse"]) + " (target for the reduced rhs ≤ 1.2: " +
      (!fit["rhs_sparse"].is_null() && fit["rhs_sparse"]["largest_4"].get<double>() <= 1.2
           ? "met"
           : "missed") +
      "); coupled projection, dense " + FitText(fit["projection_dense"]) + "; sparse " +
      FitText(fit["projection_sparse"]) + ". Dense factors the 2n × 2n mass matrix's n² entries and the n × n Schur complement "
      "(O(n³)); sparse touches the structurally non-zero entries only (S is tridiagonal for a "
      "chain). Sparse is faster from n = " +
      (crossover > 0 ? std::to_string(crossover) : std::string("(never, in these sizes)")) +
      " on; ReduceOptions' automatic choice takes it from " +
      std::to_string(std::max(reduce::SparseMultipliers::kFromConstraints,
                              reduce::ClosedFormMultipliers::kMaxConstraints + 1)) +
      " constraints, and λ in closed form up to " +
      std::to_string(reduce::ClosedFormMultipliers::kMaxConstraints) + ".");
  report->json()["scaling"] = {{"rows", rows}, {"fit", fit}, {"crossover_n", crossover}};
}

int Run(int argc, char** argv) {
  Arguments arguments;
  std::string why;
  if (!ParseArguments(argc, argv, TETHER_BENCH_RESULTS_DIR, &arguments, &why)) {
    std::fprintf(stderr, "expr_vs_hand: %s\n", why.c_str());
    return 2;
  }
  Report report("expr_vs_hand", arguments.command);
  report.json()["repeats"] = arguments.repeats;
  StepComparison(arguments, &report);
  Scaling(arguments, &report);
  AlgebraicScaling(arguments, &report);
  if (!report.Write(arguments.results, &why)) {
    std::fprintf(stderr, "expr_vs_hand: %s\n", why.c_str());
    return 1;
  }
  std::printf("expr_vs_hand: wrote %s/expr_vs_hand.{json,md}\n", arguments.results.c_str());
  return 0;
}

}  // namespace
}  // namespace tether::bench

int main(int argc, char** argv) { return tether::bench::Run(argc, argv); }
