#include "expr_vs_hand/reduced_step.h"

#include <array>

namespace tether::bench {

ReducedStep::ReducedStep(reduce::ReducedModel& reduced, double tolerance, int max_iterations)
    : reduced_(reduced), k_(4 * reduced.ode_size(), 0.0), stage_(reduced.ode_size(), 0.0) {
  project::ProjectorOptions options;
  options.tolerance = tolerance;
  options.max_iterations = max_iterations;
  options.polish = false;
  projection_.Resize(reduced, {.col_begin = 0, .col_end = reduced.ode_size(), .row_begin = 0,
                               .row_end = reduced.num_invariants()},
                     options);
}

int ReducedStep::Project(std::span<double> z) {
  return projection_.Project(reduced_, 0.0, z, &report_) ? report_.iterations : -1;
}

int ReducedStep::Step(double h, std::span<double> z) {
  return Advance(h, z) ? Project(z) : -1;
}

bool ReducedStep::Advance(double h, std::span<double> z) {
  // k1 = F(z); k_{s+1} = F(z + c_{s+1} h k_s), c = (1/2, 1/2, 1);
  // z ← z + h (k1 + 2k2 + 2k3 + k4)/6.
  constexpr std::array<double, 3> kC = {0.5, 0.5, 1.0};
  const std::size_t n = z.size();
  const std::span<double> k(k_);
  if (!reduced_.Rhs(0.0, z, k.first(n))) return false;
  for (std::size_t s = 0; s < 3; ++s) {
    const std::span<const double> previous = k.subspan(s * n, n);
    for (std::size_t i = 0; i < n; ++i) stage_[i] = z[i] + kC[s] * h * previous[i];
    if (!reduced_.Rhs(0.0, stage_, k.subspan((s + 1) * n, n))) return false;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const double sum = k_[i] + 2.0 * (k_[n + i] + k_[2 * n + i]) + k_[3 * n + i];
    z[i] += h * sum / 6.0;
  }
  return true;
}

}  // namespace tether::bench
