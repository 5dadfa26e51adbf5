#include "tether/reduce/mass_factor.h"

namespace tether::reduce {

void MassFactor::Resize(std::size_t n) {
  n_ = n;
  valid_ = false;
  diagonal_ = false;
  matrix_.assign(n * n, 0.0);
  factor_.assign(n * n, 0.0);
}

}  // namespace tether::reduce
