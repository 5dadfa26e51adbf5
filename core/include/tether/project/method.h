// The projection's vocabulary, read by every layer from here: which method projects, in which
// metric, with which Newton, and their names on the wire and the command line. The simulation's
// options (tether/simulate/simulation.h) take these enums as they are.
#pragma once

#include <string_view>

namespace tether::project {

enum class Method {
  kNone,        // nothing is projected: shows the drift of chapter 11
  // Nothing is projected; the reduced model stabilizes the acceleration level,
  // a + 2α h + β² Φ (chapter 11; ReducedModel::SetBaumgarte).
  kBaumgarte,
  // One Newton on the KKT system for all invariants in all of z (§20.2/§20.3, full). The
  // velocity rows' gradient in q, ∂h/∂q = Φ_qq v, lets it correct a velocity residual by
  // moving positions; on an oscillating mechanism a step's velocity error is the frequency
  // times its position error, so positions lose 1–2 digits (car axis, rtol = atol = 1e-7:
  // 2.4 digits, sequential 4.2).
  kCoupled,
  // Position invariants in the position block, then velocity invariants in the velocity block
  // at the projected positions (§20.3, approximate): a velocity error never moves a position.
  // The service's default: never less accurate than kCoupled on the catalog's mechanisms and
  // the car axis (tests/core/simulate/projection_accuracy_test.cc).
  kSequential,
};

enum class Metric {
  kEuclidean,  // W = I (the source documents)
  kMass,       // W = diag(M, M) on z = (q, v), M evaluated at x̃ (mechanical only; MEXX, Simbody)
  // W = diag(w)², w_j = 1 / (atol_j + rtol·|x̃_j|): the step's own error weights (MEXX,
  // Simbody). The correction lands where the stepper's error is allowed to be, in units of
  // that allowance. Consistent initialization uses the Euclidean metric instead: the given
  // initial values are not a step's result. It does not recover what kCoupled loses on
  // oscillating mechanisms: the lost digits come from the coupling, not from the scales
  // (tolerance weights follow |x|, the step's error follows the frequency).
  kWeighted,
};

enum class NewtonVariant {
  kFull,        // H_z re-evaluated and S refactored every iteration: quadratic convergence
  kSimplified,  // H_z frozen at x̃: one factorization per projection, linear convergence
};

// The words of the wire's enum values (PROJECTION_METHOD_COUPLED → "coupled"), which the
// server maps to these enums in server/convert.cc.
std::string_view ProjectionName(Method method);  // "none", "baumgarte", "coupled", "sequential"
std::string_view MetricName(Metric metric);      // "euclidean", "mass", "weighted"

}  // namespace tether::project
