// How a multiplier solve of the mechanical stage kernel ended (dense_multipliers.h,
// sparse_multipliers.h); the caller turns a failure into its message.
#pragma once

namespace tether::reduce {

enum class MultiplierStatus {
  kOk,
  kMassNotPositive,  // M is not symmetric positive definite
  kSingular,         // S = Φ_q M⁻¹ Φ_qᵀ is rank-deficient
};

}  // namespace tether::reduce
