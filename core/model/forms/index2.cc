#include "model/forms/index2.h"

#include "model/spec_reading.h"

namespace tether::model {

std::unique_ptr<FormReader> Index2Spec::NewReader() const {
  return NewSemiExplicitReader(
      true, " (an index-2 constraint g(x,t) may not depend on the algebraic variables)");
}

}  // namespace tether::model
