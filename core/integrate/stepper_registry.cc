// The one place that knows every method: adding a stepper is one file pair and one line in
// kMethods below.
#include <array>

#include "integrate/bdf.h"
#include "integrate/dop853.h"
#include "integrate/dormand_prince.h"
#include "integrate/explicit_euler.h"
#include "integrate/radau5.h"
#include "integrate/rk4.h"
#include "tether/integrate/stepper.h"

namespace tether::integrate {

namespace {

template <typename Method>
std::unique_ptr<Stepper> Make(const StepperOptions& options) {
  return std::make_unique<Method>(options);
}

struct Method {
  std::string_view name;
  std::unique_ptr<Stepper> (*make)(const StepperOptions&);
};

// Sized by its entries (a fixed size would pad a forgotten line with a null factory).
constexpr auto kMethods = std::to_array<Method>({
    {"euler", &Make<ExplicitEuler>},
    {"rk4", &Make<Rk4>},
    {"dp5", &Make<DormandPrince>},
    {"dop853", &Make<Dop853>},
    {"bdf", &Make<Bdf>},
    {"radau5", &Make<Radau5>},
});

constexpr std::array<std::string_view, kMethods.size()> kNames = [] {
  std::array<std::string_view, kMethods.size()> names{};
  for (std::size_t i = 0; i < kMethods.size(); ++i) names[i] = kMethods[i].name;
  return names;
}();

}  // namespace

std::unique_ptr<Stepper> MakeStepper(std::string_view name, const StepperOptions& options) {
  for (const Method& method : kMethods) {
    if (method.name == name) return method.make(options);
  }
  return nullptr;
}

std::span<const std::string_view> StepperNames() { return kNames; }

}  // namespace tether::integrate
