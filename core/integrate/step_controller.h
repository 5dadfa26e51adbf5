// Step-size control shared by the embedded Runge–Kutta pairs (Hairer–Nørsett–Wanner,
// Solving ODE I, 2nd ed., II.4 "Automatic step size control" and "Starting step size").
// Private to core/integrate.
#pragma once

#include <span>

#include "tether/integrate/stepper.h"

namespace tether::integrate {

// The elementary (I-)controller of HNW I, II.4, eq. (4.13):
//   factor = clamp(safety · err^(−1/(q+1)), min_factor, max_factor),   h_new = h · factor,
// where err is the WRMS norm of the local error estimate (accept iff err ≤ 1) and q the order
// of the embedded estimate (the error behaves like C·h^(q+1)). err = 0 gives max_factor.
// After a rejection within the same step the caller additionally caps the factor at 1 (no
// growth right after a rejection, HNW I, II.4, following (4.13)).
double StepFactor(double err, int q, const StepperOptions& options);

// The trial step of Hairer's starting-step heuristic (below), with ‖·‖ the WRMS weights
// sc_i = atol + rtol·|x0_i|:
//   d0 = ‖x0‖, d1 = ‖f0‖;  h0 = 0.01·d0/d1 (1e-6 if d0 or d1 < 1e-5);  h0 ← min(h0, h_max)
//   x1 = x0 + h0·f0, f1 = F(t0 + h0, x1);  d2 = ‖f1 − f0‖ / h0  (≈ ‖x''‖)
// One evaluation of F; x1 and f1 are work arrays of size n (f1 ends as f1 − f0). False (h0 and
// d1 set) if that evaluation fails or is not finite.
struct TrialStep {
  double h0 = 0.0;
  double d1 = 0.0;
  double d2 = 0.0;
};
bool TakeTrialStep(OdeSystem& system, double t0, std::span<const double> x0,
                   std::span<const double> f0, double h_max, const StepperOptions& options,
                   std::span<double> x1, std::span<double> f1, TrialStep* trial,
                   int* evaluations);

// Hairer's starting-step heuristic (HNW I, II.4, "Starting Step Size"; routine HINIT of
// dopri5.f / dop853.f), from TakeTrialStep's h0, d1 and d2:
//   h1 = (0.01 / max(d1, d2))^(1/p)  (max(1e-6, 1e-3·h0) if max(d1, d2) ≤ 1e-15)
//   h  = min(100·h0, h1, h_max)
// p is the order of the method. One evaluation of F; x1 and f1 are work arrays of size n.
// If that evaluation fails or is not finite, h = 1e-3·h0 and the rejection loop takes over.
void InitialStep(OdeSystem& system, double t0, std::span<const double> x0,
                 std::span<const double> f0, int p, double h_max, const StepperOptions& options,
                 std::span<double> x1, std::span<double> f1, double* h, int* evaluations);

}  // namespace tether::integrate
