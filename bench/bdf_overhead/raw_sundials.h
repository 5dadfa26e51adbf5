// CVODE and IDA driven directly, as a SUNDIALS user would, with the same settings the bdf
// stepper uses (core/integrate/bdf.h): BDF up to order 5, the tolerances, 60 error-test and
// convergence failures per step, a dense Newton matrix from the system's analytic Jacobian,
// IDA's linear solution scaling off, a stop time at t_end. Only the loop around SUNDIALS
// differs (CV_NORMAL / IDA_NORMAL to t_end instead of one Step per internal step), so the CPU
// ratio bdf / raw is the wrapper's overhead.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "tether/integrate/stepper.h"

namespace tether::bench {

struct RawOptions {
  double rtol = 1e-6;
  double atol = 1e-6;
  std::vector<double> atol_per_component;  // replaces atol when non-empty
  int max_failures = 60;                   // StepperOptions::max_rejections' default
  // bdf's minimum step near t = 0 (StepperOptions::min_step_relative·max(1, |t|)); IDA
  // raises its first step to it, so it matters for the path taken.
  double min_step = 1e-14;
};

struct RawRun {
  std::string error;  // empty on success
  std::vector<double> x;  // at t_end
  long steps = 0;
  long evaluations = 0;
};

// x' = F(t, x) (the system's M must be empty) from (0, x0) to t_end with CVODE.
RawRun RunRawCvode(integrate::OdeSystem& system, std::span<const double> x0, double t_end,
                   const RawOptions& options);

// M x' = F(t, x), M diagonal (the system's mass pattern), from (0, x0) to t_end with IDA,
// started with x'_i = F_i/M_ii (0 where M_ii = 0), as bdf starts it.
RawRun RunRawIda(integrate::OdeSystem& system, std::span<const double> x0, double t_end,
                 const RawOptions& options);

}  // namespace tether::bench
