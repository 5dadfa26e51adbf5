// A standalone driver for first-order projected dynamical systems (shared/seeds 003)
//   x' ∈ f(x, t) − N_C(x),   C = {x : c(x) ≥ 0},
// equivalently the dynamic complementarity system x' = f + c_xᵀ μ, 0 ≤ c(x) ⟂ μ ≥ 0.
//
// kSwitchDetection (FESD-style): on the current active set A the dynamics are smooth,
//   x' = f + J_Aᵀ μ_A,   μ_A = −(J_A J_Aᵀ)⁻¹ J_A f   (so d/dt c_A = J_A x' = 0),
// and any integrate::Stepper advances them. After each step the indicators c_i (i ∉ A) and
// μ_i (i ∈ A) are searched for a sign change on the dense output (switch_detection.h); the
// step is then retaken to end exactly at the switch, A is updated, and stepping continues.
// Since no step straddles a switch, the stepper keeps its order. After each step the state
// is projected onto c_A = 0 (the drift is of the local error's order, so this keeps it).
//
// kProjectedSteps (the baseline): each step integrates the free flow f and projects onto C,
//   x_{k+1} = P_C(Φ_h(x_k)),  which with "euler" is Moreau's catching-up scheme. The
// multipliers reported are the projection's μ/h. First order at switches whatever Φ_h.
//
// Not yet wired into simulate::Simulation, the proto or the CLI.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "project/inequality_projection.h"
#include "simulate/switch_detection.h"
#include "tether/expr/program.h"
#include "tether/model/model.h"

namespace tether::simulate {

// The free flow f(x, t) and the feasible set, compiled from an index1 model without
// algebraic variables or equality constraints; parameters take their spec values.
struct PdsProblem {
  std::size_t n = 0;
  expr::Program rhs;  // inputs [x | t], outputs f
  std::unique_ptr<project::InequalityProjection> feasible_set;
};

// nullptr with the reason in `why` if the model is not a first-order PDS.
std::unique_ptr<PdsProblem> CreatePdsProblem(const model::Model& model, std::string* why);

enum class PdsMode { kSwitchDetection, kProjectedSteps };

struct PdsOptions {
  std::string method = "rk4";  // an integrate::StepperNames() entry
  double step = 1e-2;          // fixed step h [s] (error control off), > 0
  double t_end = 1.0;          // end time [s], > 0; runs start at t = 0
  PdsMode mode = PdsMode::kSwitchDetection;
  SwitchOptions switches;
  project::InequalityProjectionOptions projection;
  // Chattering guard: more than max_switches within chattering_window [s] ends the run.
  double chattering_window = 1e-6;
  int max_switches = 20;

  bool IsValid(std::string* why) const;
};

struct PdsSample {
  double t = 0.0;
  std::vector<double> x;
  std::vector<double> mu;     // multipliers (constraint force per unit time)
  std::vector<bool> active;   // active set A
  double residual_inequality = 0.0;  // max(0, −min c(x))
};

enum class PdsTermination {
  kReachedEnd,
  kInvalidOptions,
  kStepFailed,        // the stepper failed (non-finite, rhs failure: LICQ violated)
  kProjectionFailed,
  kChattering,        // the chattering guard tripped
};

struct PdsRun {
  PdsTermination termination = PdsTermination::kReachedEnd;
  std::string message;
  std::vector<PdsSample> samples;  // t = 0 and every step end
  std::vector<SwitchEvent> events;
};

// Runs from x0 (which must lie in C to within the projection tolerance).
PdsRun RunPds(PdsProblem& problem, const std::vector<double>& x0, const PdsOptions& options);

}  // namespace tether::simulate
