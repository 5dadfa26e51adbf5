// Where dense LU stops paying in radau5 (StepperOptions::sparse_min_size and
// sparse_max_density): the same run of radau5 with its Newton matrices factored dense (Eigen,
// partial pivoting) and sparse (KLU), over the size n and the density of stiff
// reaction–diffusion problems with symbolic Jacobians,
//   x_i' = (k/b) (Σ_{j ~ i} x_j − 2b x_i) − x_i³,   k = (n + 1)² (chain and band) or (m + 1)²,
//   chain: j ~ i iff |i − j| = 1 (tridiagonal J, b = 1);
//   band:  j ~ i iff 0 < |i − j| ≤ b (bandwidth b, density ≈ (2b + 1)/n; b = n − 1 is full);
//   grid:  the 5-point neighbours on an m × m grid, n = m², b = 2 (bandwidth m).
// Both runs take identical steps (the numerics differ only by rounding), so the CPU ratio
// dense/sparse is the ratio of the linear algebra plus the shared rest. Writes
// radau5_linear_algebra.{json,md}.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "common/arguments.h"
#include "common/cpu_timer.h"
#include "common/report.h"
#include "tether/integrate/stepper.h"

namespace tether::bench {
namespace {

using integrate::MatrixEntry;

struct Shape {
  bool grid = false;      // m × m grid (n = m²), else a band over n = m components
  std::size_t m = 0;
  std::size_t band = 1;   // band: the bandwidth b
  [[nodiscard]] std::size_t n() const { return grid ? m * m : m; }
};

// x' = (k/b)(Σ_{j~i} x_j − 2b x_i) − x³ with its Jacobian pattern (rows: neighbours, then the
// diagonal). Gershgorin puts J's eigenvalues in [−4k − 3x², 0]: stiff for large k.
class Diffusion final : public integrate::OdeSystem {
 public:
  explicit Diffusion(const Shape& shape)
      : shape_(shape), n_(shape.n()),
        coupling_(static_cast<double>((shape.m + 1) * (shape.m + 1)) /
                  static_cast<double>(shape.grid ? 2 : shape.band)),
        degree_(2.0 * static_cast<double>(shape.grid ? 2 : shape.band)) {
    first_.push_back(0);
    for (std::size_t i = 0; i < n_; ++i) {
      for (std::size_t j : Neighbours(i)) {
        pattern_.push_back({Index(i), Index(j)});
        neighbours_.push_back(j);
      }
      pattern_.push_back({Index(i), Index(i)});
      first_.push_back(neighbours_.size());
    }
  }
  [[nodiscard]] std::size_t size() const override { return n_; }
  [[nodiscard]] std::span<const MatrixEntry> jacobian_pattern() const override {
    return pattern_;
  }
  bool Evaluate(double /*t*/, std::span<const double> x, std::span<double> f) override {
    for (std::size_t i = 0; i < n_; ++i) {
      double sum = -degree_ * x[i];
      for (std::size_t e = first_[i]; e < first_[i + 1]; ++e) sum += x[neighbours_[e]];
      f[i] = coupling_ * sum - x[i] * x[i] * x[i];
    }
    return true;
  }
  bool Jacobian(double /*t*/, std::span<const double> x, std::span<double> values) override {
    std::size_t e = 0;
    for (std::size_t i = 0; i < n_; ++i) {
      for (std::size_t count = first_[i + 1] - first_[i]; count > 0; --count) {
        values[e++] = coupling_;
      }
      values[e++] = -coupling_ * degree_ - 3.0 * x[i] * x[i];
    }
    return true;
  }
  // The smooth first mode, sin(π i/(m + 1)) in each direction.
  [[nodiscard]] std::vector<double> Initial() const {
    std::vector<double> x(n_);
    const std::size_t m = shape_.m;
    const auto mode = [&](std::size_t i) {
      return std::sin(std::numbers::pi * static_cast<double>(i + 1) / static_cast<double>(m + 1));
    };
    for (std::size_t i = 0; i < n_; ++i) x[i] = shape_.grid ? mode(i / m) * mode(i % m) : mode(i);
    return x;
  }
  // Entries of J's pattern over n²: the density of the Newton matrices.
  [[nodiscard]] double density() const {
    return static_cast<double>(pattern_.size()) / (static_cast<double>(n_) * static_cast<double>(n_));
  }

 private:
  static std::uint32_t Index(std::size_t i) { return static_cast<std::uint32_t>(i); }
  [[nodiscard]] std::vector<std::size_t> Neighbours(std::size_t i) const {
    std::vector<std::size_t> out;
    if (shape_.grid) {
      const std::size_t m = shape_.m;
      const std::size_t row = i / m;
      const std::size_t col = i % m;
      if (col > 0) out.push_back(i - 1);
      if (col + 1 < m) out.push_back(i + 1);
      if (row > 0) out.push_back(i - m);
      if (row + 1 < m) out.push_back(i + m);
      return out;
    }
    const std::size_t first = i >= shape_.band ? i - shape_.band : 0;
    const std::size_t last = std::min(n_ - 1, i + shape_.band);
    for (std::size_t j = first; j <= last; ++j) {
      if (j != i) out.push_back(j);
    }
    return out;
  }

  Shape shape_;
  std::size_t n_;
  double coupling_;  // k/b
  double degree_;    // 2b
  std::vector<MatrixEntry> pattern_;
  std::vector<std::size_t> neighbours_, first_;  // neighbours of i: [first_[i], first_[i+1])
};

struct Measurement {
  double cpu_seconds = 0.0;
  int steps = 0;
  int factorizations = 0;
  bool ok = false;
  double x_mid = 0.0;  // a component of the result, to compare the two runs
};

// One radau5 run over [0, 0.05] at rtol = 1e-6 (≈ 20 steps: the first mode decays like
// e^(−dπ²t), the stiff modes are damped at once).
Measurement Measure(const Shape& shape, bool sparse, int repeats) {
  Diffusion system(shape);
  integrate::StepperOptions options;
  options.rtol = 1e-6;
  options.atol = 1e-8;
  options.sparse_min_size = sparse ? 1 : std::numeric_limits<std::size_t>::max();
  options.sparse_max_density = 1.0;
  Measurement measurement;
  measurement.cpu_seconds = MinCpuSeconds(repeats, [&] {
    const std::unique_ptr<integrate::Stepper> stepper = integrate::MakeStepper("radau5", options);
    std::vector<double> x = system.Initial();
    stepper->Resize(x.size());
    measurement = Measurement{};
    double t = 0.0;
    constexpr double kEnd = 0.05;
    while (t < kEnd) {
      const integrate::StepResult r = stepper->Step(system, t, x, kEnd - t, x);
      if (r.status != integrate::StepStatus::kAccepted) return;
      measurement.factorizations += r.factorizations;
      ++measurement.steps;
      t = r.h_taken == kEnd - t ? kEnd : t + r.h_taken;
    }
    measurement.ok = true;
    measurement.x_mid = x[x.size() / 2];
  });
  return measurement;
}

int Run(int argc, char** argv) {
  Arguments arguments;
  std::string why;
  if (!ParseArguments(argc, argv, TETHER_BENCH_RESULTS_DIR, &arguments, &why)) {
    std::fprintf(stderr, "radau5_linear_algebra: %s\n", why.c_str());
    return 2;
  }
  Report report("radau5_linear_algebra", arguments.command);
  report.json()["repeats"] = arguments.repeats;
  struct Problem {
    const char* name;
    std::vector<Shape> shapes;
  };
  const auto chain = [](std::vector<std::size_t> sizes) {
    std::vector<Shape> shapes;
    for (std::size_t n : sizes) shapes.push_back({false, n, 1});
    return shapes;
  };
  const auto grid = [](std::vector<std::size_t> sides) {
    std::vector<Shape> shapes;
    for (std::size_t m : sides) shapes.push_back({true, m, 2});
    return shapes;
  };
  const auto band = [](std::size_t n, std::vector<std::size_t> widths) {
    std::vector<Shape> shapes;
    for (std::size_t b : widths) shapes.push_back({false, n, std::min(b, n - 1)});
    return shapes;
  };
  std::vector<Problem> problems;
  if (arguments.quick) {
    problems = {{"chain", chain({16, 64})}, {"grid", grid({4, 8})}, {"band, n = 32", band(32, {4, 31})}};
  } else {
    problems = {{"chain", chain({8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512})},
                {"grid", grid({3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20})},
                {"band, n = 16", band(16, {1, 2, 3, 4, 6, 8, 15})},
                {"band, n = 32", band(32, {2, 4, 6, 8, 12, 16, 31})},
                {"band, n = 64", band(64, {4, 8, 12, 16, 24, 32, 63})},
                {"band, n = 128", band(128, {8, 16, 24, 32, 48, 64, 127})},
                {"band, n = 256", band(256, {16, 32, 48, 64, 96, 128, 255})}};
  }
  for (const Problem& problem : problems) {
    Table table(std::string(problem.name) + ": one radau5 run, dense against sparse LU",
                {"n", "J density", "steps", "factorizations", "dense CPU [ms]",
                 "sparse CPU [ms]", "dense / sparse", "|Δx|"});
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const Shape& shape : problem.shapes) {
      const double density = Diffusion(shape).density();
      const Measurement dense = Measure(shape, false, arguments.repeats);
      const Measurement sparse = Measure(shape, true, arguments.repeats);
      const double ratio = dense.cpu_seconds / sparse.cpu_seconds;
      const double difference = std::abs(dense.x_mid - sparse.x_mid);
      table.AddRow({std::to_string(shape.n()), Format(density, 2), std::to_string(dense.steps),
                    std::to_string(dense.factorizations), Format(1e3 * dense.cpu_seconds),
                    Format(1e3 * sparse.cpu_seconds), Format(ratio), Format(difference, 2)});
      rows.push_back({{"n", shape.n()},
                      {"density", density},
                      {"ok", dense.ok && sparse.ok},
                      {"steps", dense.steps},
                      {"factorizations", dense.factorizations},
                      {"dense_cpu_seconds", dense.cpu_seconds},
                      {"sparse_cpu_seconds", sparse.cpu_seconds},
                      {"dense_over_sparse", ratio},
                      {"result_difference", difference}});
      std::printf("%s n=%zu density %.3f dense %.3g ms sparse %.3g ms ratio %.3g\n", problem.name,
                  shape.n(), density, 1e3 * dense.cpu_seconds, 1e3 * sparse.cpu_seconds, ratio);
    }
    report.AddTable(table);
    report.json()[problem.name] = rows;
  }
  report.AddNote(
      "radau5 at rtol = 1e-6, atol = 1e-8 over [0, 0.05]; dense: Eigen's LU with partial "
      "pivoting of the real and the complex n x n Newton matrix; sparse: KLU (analysis once, "
      "then refactorization). Minimum CPU time over the repeats. |Δx| compares one component "
      "of both results (rounding only). StepperOptions::sparse_min_size is set from the "
      "crossover (radau5.h).");
  if (!report.Write(arguments.results, &why)) {
    std::fprintf(stderr, "radau5_linear_algebra: %s\n", why.c_str());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace tether::bench

int main(int argc, char** argv) { return tether::bench::Run(argc, argv); }
