#include "expr_vs_hand/algebraic_scaling.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/cpu_timer.h"
#include "tether/model/model.h"
#include "tether/reduce/reduced_model.h"
#include "tether/reduce/sparse_algebraic.h"

namespace tether::bench {
namespace {

std::string LadderSpec(int m) {
  std::string differential, algebraic, rhs, constraints, initial;
  for (int i = 0; i < m; ++i) {
    const std::string k = std::to_string(i);
    const std::string sep = i == 0 ? "" : ", ";
    differential += sep + "\"x" + k + "\"";
    algebraic += sep + "\"y" + k + "\"";
    rhs += sep + "\"-x" + k + " + y" + k + (i + 1 < m ? " - 0.5*y" + std::to_string(i + 1) : "") +
           "\"";
    constraints += sep + "\"y" + k + " + 0.1*y" + k + "^3 - x" + k +
                   (i > 0 ? " + 0.5*y" + std::to_string(i - 1) : "") + "\"";
    initial += sep + "\"x" + k + "\": 1, \"y" + k + "\": 0";
  }
  return "{\"name\": \"bench-ladder\", \"form\": \"index1\", \"differential\": [" + differential +
         "], \"algebraic\": [" + algebraic + "], \"rhs\": [" + rhs + "], \"constraints\": [" +
         constraints + "], \"initial\": {" + initial + "}}";
}

std::unique_ptr<reduce::ReducedModel> Reduce(std::shared_ptr<const model::Model> model,
                                             reduce::LinearAlgebra linear_algebra) {
  reduce::ReduceOptions options;
  options.linear_algebra = linear_algebra;
  options.jacobian = true;
  return std::move(reduce::ReducedModel::Build(std::move(model), options).reduced);
}

// CPU seconds of one Rhs at x = 1 whose Newton starts from y = 0 (so it factors c_y a few
// times: the iterations of a stage after a large step).
double SecondsPerRhs(reduce::ReducedModel& model, double min_seconds, int repeats) {
  const std::vector<double> z(model.ode_size(), 1.0);
  const std::vector<double> y0(model.num_auxiliary(), 0.0);
  std::vector<double> zdot(z.size());
  return SecondsPerCall(
      [&] {
        model.SetAuxiliary(y0);
        model.Rhs(0.0, z, zdot);
      },
      min_seconds, repeats);
}

// CPU seconds of one ∂F/∂x (ReducedModel::Jacobian, with its Rhs) at x = 1.
double SecondsPerJacobian(reduce::ReducedModel& model, double min_seconds, int repeats) {
  const std::vector<double> z(model.ode_size(), 1.0);
  std::vector<double> values(model.jacobian_pattern().size());
  return SecondsPerCall([&] { model.Jacobian(0.0, z, values); }, min_seconds, repeats);
}

// Newton iterations of that Rhs.
int NewtonIterations(reduce::ReducedModel& model) {
  const std::vector<double> z(model.ode_size(), 1.0);
  model.SetAuxiliary(std::vector<double>(model.num_auxiliary(), 0.0));
  std::vector<double> zdot(z.size());
  const std::uint64_t before = model.stage_evaluations();
  model.Rhs(0.0, z, zdot);
  return static_cast<int>(model.stage_evaluations() - before) - 1;
}

}  // namespace

void AlgebraicScaling(const Arguments& args, Report* report) {
  const std::vector<int> sizes = args.quick ? std::vector<int>{1, 8, 32}
                                            : std::vector<int>{1, 2, 4, 8, 16, 32, 64, 128, 256};
  const double min_seconds = args.quick ? 0.001 : 0.05;
  Table table("Index-1 ladder network (m differential + m algebraic variables, c_y bidiagonal): "
              "the reduced rhs (kSolve, its Newton from y = 0) with c_y dense vs sparse",
              {"m", "Newton iterations", "dense [ns]", "sparse [ns]", "dense / sparse",
               "automatic choice", "∂F/∂x dense [µs]", "∂F/∂x sparse [µs]",
               "∂F/∂x dense / sparse"});
  model::SpecLimits limits;
  limits.max_variables = 2 * 256;
  limits.max_constraints = 256;
  limits.max_document_bytes = 16 << 20;
  int crossover = 0;  // the smallest m from which sparse beats dense
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  std::vector<double> ms, dense_times, sparse_times;
  for (int m : sizes) {
    model::ModelResult parsed = model::ParseModel(LadderSpec(m), limits);
    if (!parsed.ok()) {
      report->AddNote("ladder m = " + std::to_string(m) + " not run: " + parsed.ErrorText());
      continue;
    }
    auto dense = Reduce(parsed.model, reduce::LinearAlgebra::kDense);
    auto sparse = Reduce(parsed.model, reduce::LinearAlgebra::kSparse);
    auto automatic = Reduce(parsed.model, reduce::LinearAlgebra::kAuto);
    if (!dense || !sparse || !automatic) continue;
    const double dense_seconds = SecondsPerRhs(*dense, min_seconds, args.repeats);
    const double sparse_seconds = SecondsPerRhs(*sparse, min_seconds, args.repeats);
    const double dense_jacobian = SecondsPerJacobian(*dense, min_seconds, args.repeats);
    const double sparse_jacobian = SecondsPerJacobian(*sparse, min_seconds, args.repeats);
    const char* chosen = automatic->sparse_algebraic() ? "sparse" : "dense";
    const int iterations = NewtonIterations(*sparse);
    table.AddRow({std::to_string(m), std::to_string(iterations), Format(1e9 * dense_seconds),
                  Format(1e9 * sparse_seconds), Format(dense_seconds / sparse_seconds), chosen,
                  Format(1e6 * dense_jacobian), Format(1e6 * sparse_jacobian),
                  Format(dense_jacobian / sparse_jacobian)});
    rows.push_back({{"m", m}, {"newton_iterations", iterations},
                    {"rhs_dense_seconds", dense_seconds},
                    {"rhs_sparse_seconds", sparse_seconds}, {"auto", chosen},
                    {"jacobian_dense_seconds", dense_jacobian},
                    {"jacobian_sparse_seconds", sparse_jacobian}});
    if (sparse_seconds < dense_seconds && crossover == 0) crossover = m;
    if (sparse_seconds >= dense_seconds) crossover = 0;  // crossed back: not yet for good
    ms.push_back(m);
    dense_times.push_back(dense_seconds);
    sparse_times.push_back(sparse_seconds);
  }
  report->AddTable(table);
  const auto fit = [&](const std::vector<double>& times) {
    const nlohmann::ordered_json exponents = Fit(ms, times);
    return exponents.is_null() ? std::string("n/a")
                               : Format(exponents["largest_4"].get<double>());
  };
  report->AddNote(
      "Index-1 ladder: time ∝ m^p over the 4 largest m, dense p = " + fit(dense_times) +
      ", sparse p = " + fit(sparse_times) +
      " (dense: Eigen's LU of the m × m c_y and the m·(n + m) entries of c_x and c_y; sparse: "
      "KLU refactoring with the kept pivots, over the non-zeros). Sparse is faster from m = " +
      (crossover > 0 ? std::to_string(crossover) : std::string("(never, in these sizes)")) +
      " on; the automatic choice takes it from " +
      std::to_string(reduce::SparseAlgebraic::kFromRows) + " algebraic variables up to " +
      Format(100 * reduce::SparseAlgebraic::kMaxDensity) +
      " % density. ∂F/∂x = f_x − f_y c_y⁻¹ c_x (the Jacobian implicit steppers and auto's "
      "return check take in kSolve; dense in its pattern here) forms c_y⁻¹ c_x by one LU of "
      "c_y: Eigen's dense LU, or KLU one column of c_x at a time, chosen by the same "
      "crossover.");
  report->json()["algebraic_scaling"] = {{"rows", rows}, {"crossover_m", crossover}};
}

}  // namespace tether::bench
