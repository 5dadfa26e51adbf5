// Fuzz target: the model spec reader for every form (JSON text → validated model) and the
// symbolic index reduction of what it accepts (hidden constraints, Jacobians, compiled
// programs). Seeds: the catalog (every form) and the test suites' specs.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tether/model/model.h"
#include "tether/reduce/reduced_model.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  tether::model::ModelResult result = tether::model::ParseModel(text);
  if (!result.ok()) {
    (void)result.ErrorText();
    return 0;
  }
  tether::reduce::ReduceResult reduced =
      tether::reduce::ReducedModel::Build(result.model, tether::reduce::ReduceOptions{});
  return 0;
}
