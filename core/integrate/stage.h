// Helpers shared by the Runge–Kutta steppers: one checked evaluation of the right-hand side,
// finiteness tests and the step-size floor. Private to core/integrate.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "tether/integrate/stepper.h"

namespace tether::integrate {

// dxdt ← F(t, x), counted in *evaluations. kRhsFailed if OdeSystem::Evaluate returns false,
// kNonFinite if dxdt holds NaN or ±∞, kAccepted otherwise.
StepStatus EvaluateStage(OdeSystem& system, double t, std::span<const double> x,
                         std::span<double> dxdt, int* evaluations);

// The AttemptFailure of a failed stage evaluation (kRhsFailed or kNonFinite).
AttemptFailure FailureOf(StepStatus status);

// A fixed-step method's failed step (status kRhsFailed or kNonFinite, which it cannot retry):
// sets result.failure to match and result.h_failed = h.
StepResult Failed(StepResult result, double h);

// True iff every element is finite.
bool AllFinite(std::span<const double> values);

// The smallest step allowed at t: min_step_relative · max(1, |t|) (StepperOptions).
double MinStep(const StepperOptions& options, double t);

// True iff h is usable as a step at t: finite and ≥ MinStep. Written so that NaN fails.
bool StepIsAboveFloor(const StepperOptions& options, double t, double h);

// Aborts with a message naming `stepper` if options.atol_per_component is neither empty nor
// of size n: an internal invariant (the caller validates the option against the system).
void CheckTolerances(std::string_view stepper, const StepperOptions& options, std::size_t n);

// Internal invariant (always on): Step's arrays have the size given to Resize. A mismatch
// is a programming error of the caller, so it aborts with a message naming the stepper.
void CheckSizes(std::string_view stepper, std::size_t n, std::size_t x_size,
                std::size_t x_new_size);

}  // namespace tether::integrate
