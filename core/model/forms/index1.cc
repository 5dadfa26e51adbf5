#include "model/forms/index1.h"

#include "model/spec_reading.h"

namespace tether::model {

std::unique_ptr<FormReader> Index1Spec::NewReader() const {
  return NewSemiExplicitReader(false, "");
}

}  // namespace tether::model
