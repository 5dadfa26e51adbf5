#include "integrate/dormand_prince.h"

#include <array>
#include <cmath>

#include "integrate/stage.h"

namespace tether::integrate {

namespace {

// The tableau of dormand_prince.h (Dormand & Prince 1980; HNW I, Table 5.2). Row s holds
// a_{s+1, j} for j = 1…s; stage 7 uses the weights b.
constexpr std::array<double, 7> kC = {0.0, 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9, 1.0, 1.0};
constexpr std::array<std::array<double, 6>, 7> kA = {{
    {},
    {1.0 / 5},
    {3.0 / 40, 9.0 / 40},
    {44.0 / 45, -56.0 / 15, 32.0 / 9},
    {19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729},
    {9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656},
    {35.0 / 384, 0.0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84},
}};
// b − b̂ for k1…k7.
constexpr std::array<double, 7> kE = {71.0 / 57600, 0.0,         -71.0 / 16695,
                                      71.0 / 1920,  -17253.0 / 339200, 22.0 / 525,
                                      -1.0 / 40};
// Hairer's continuous extension (dopri5.f, CONTD5) for k1…k7.
constexpr std::array<double, 7> kD = {-12715105075.0 / 11282082432.0,
                                      0.0,
                                      87487479700.0 / 32700410799.0,
                                      -10690763975.0 / 1880347072.0,
                                      701980252875.0 / 199316789632.0,
                                      -1453857185.0 / 822651844.0,
                                      69997945.0 / 29380423.0};

}  // namespace

std::unique_ptr<Stepper> DormandPrince::Clone() const {
  return std::make_unique<DormandPrince>(*this);
}

void DormandPrince::ResizeStages(std::size_t n) {
  n_ = n;
  k_.assign(5 * n, 0.0);
  work_.assign(n, 0.0);
  dense_.assign(4 * n, 0.0);
}

std::array<const double*, 7> DormandPrince::Stages() const {
  std::array<const double*, 7> k{};
  k[0] = f0().data();
  for (std::size_t s = 1; s < 6; ++s) k[s] = k_.data() + (s - 1) * n_;
  k[6] = f_end().data();
  return k;
}

std::span<double> DormandPrince::StageOut(std::size_t s) {
  if (s == 6) return f_end();
  return std::span<double>(k_).subspan((s - 1) * n_, n_);
}

StepStatus DormandPrince::Attempt(OdeSystem& system, double t, double h,
                                  std::span<double> x_new, double* err, int* evaluations) {
  const std::span<const double> x = x0();
  const std::array<const double*, 7> k = Stages();
  for (std::size_t s = 1; s < 7; ++s) {
    // argument ← x + h Σ_{j<s} a_sj k_j; the last one (s = 6) is x_new itself.
    std::span<double> arg = s == 6 ? x_new : std::span<double>(work_);
    for (std::size_t i = 0; i < n_; ++i) {
      double sum = 0.0;
      for (std::size_t j = 0; j < s; ++j) sum += kA[s][j] * k[j][i];
      arg[i] = x[i] + h * sum;
    }
    const StepStatus status = EvaluateStage(system, t + kC[s] * h, arg, StageOut(s), evaluations);
    if (status != StepStatus::kAccepted) return status;
  }
  // Stages 6 and 7 share the abscissa t + h: x̃ = work_ (stage 6's argument), x̂ = x_new.
  double numerator = 0.0;
  double denominator = 0.0;
  for (std::size_t i = 0; i < n_; ++i) {
    numerator += (k[6][i] - k[5][i]) * (k[6][i] - k[5][i]);
    denominator += (x_new[i] - work_[i]) * (x_new[i] - work_[i]);
  }
  NoteStiffnessEstimate(denominator > 0.0 ? h * std::sqrt(numerator / denominator) : 0.0);
  if (err == nullptr) return StepStatus::kAccepted;
  for (std::size_t i = 0; i < n_; ++i) {  // e ← h Σ (b_i − b̂_i) k_i
    double sum = 0.0;
    for (std::size_t j = 0; j < 7; ++j) sum += kE[j] * k[j][i];
    work_[i] = h * sum;
  }
  *err = WrmsNorm(work_, x, x_new, options());
  return StepStatus::kAccepted;
}

StepStatus DormandPrince::Finish(OdeSystem& /*system*/, double /*t*/, double h,
                                 std::span<const double> x_new, int* /*evaluations*/) {
  // k7 = F(t + h, x_new) is already in f_end(); only the interpolant's coefficients remain.
  const std::span<const double> x = x0();
  const std::span<const double> f1 = f0();
  const std::span<const double> f7 = f_end();
  const std::array<const double*, 7> k = Stages();
  for (std::size_t i = 0; i < n_; ++i) {
    const double r2 = x_new[i] - x[i];
    const double r3 = h * f1[i] - r2;
    const double r4 = r2 - h * f7[i] - r3;
    double sum = 0.0;
    for (std::size_t j = 0; j < 7; ++j) sum += kD[j] * k[j][i];
    dense_[i] = r2;
    dense_[n_ + i] = r3;
    dense_[2 * n_ + i] = r4;
    dense_[3 * n_ + i] = h * sum;
  }
  return StepStatus::kAccepted;
}

void DormandPrince::Interpolate(double t_out, std::span<double> x_out) const {
  double theta = 0.0;
  if (!InterpolateEnds(t_out, x_out, &theta)) return;
  const double theta1 = 1.0 - theta;
  const std::span<const double> x = x0();
  for (std::size_t i = 0; i < n_; ++i) {
    // x(θ) = r1 + θ (r2 + θ' (r3 + θ (r4 + θ' r5)))
    const double inner = dense_[2 * n_ + i] + theta1 * dense_[3 * n_ + i];
    x_out[i] = x[i] + theta * (dense_[i] + theta1 * (dense_[n_ + i] + theta * inner));
  }
}

}  // namespace tether::integrate
