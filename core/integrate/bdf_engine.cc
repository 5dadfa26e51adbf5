#include "integrate/bdf_engine.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "integrate/stage.h"

namespace tether::integrate {

namespace {

template <typename T>
bool SameElements(std::span<const T> a, const std::vector<T>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

bool SameEntries(std::span<const MatrixEntry> a, const std::vector<MatrixEntry>& b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](const MatrixEntry& x, const MatrixEntry& y) {
           return x.row == y.row && x.col == y.col;
         });
}

}  // namespace

BdfEngine::BdfEngine(const OdeSystem& system, const StepperOptions& options)
    : n_(system.size()),
      options_(options),
      mass_pattern_(system.mass_pattern().begin(), system.mass_pattern().end()),
      mass_values_(system.mass_values().begin(), system.mass_values().end()),
      jacobian_pattern_(system.jacobian_pattern().begin(), system.jacobian_pattern().end()),
      variable_index_(system.variable_index().begin(), system.variable_index().end()),
      projection_(system.has_projection()) {
  SUNContext context = nullptr;
  if (SUNContext_Create(nullptr, &context) == 0) context_.reset(context);
}

bool BdfEngine::Fits(const OdeSystem& system) const {
  // Bitwise on purpose for M's values: IDA's residual and Newton matrix use them as stored.
  return system.size() == n_ && system.has_projection() == projection_ &&
         SameEntries(system.mass_pattern(), mass_pattern_) &&
         SameElements(system.mass_values(), mass_values_) &&
         SameEntries(system.jacobian_pattern(), jacobian_pattern_) &&
         SameElements(system.variable_index(), variable_index_);
}

void BdfEngine::Bind(OdeSystem& system) {
  system_ = &system;
  failure_ = CallbackFailure{};
  message_[0] = '\0';
}

bool BdfEngine::MakeAbsoluteTolerances(sundials::Vector* atol, std::string* why) const {
  const std::vector<double>& per_component = options_.atol_per_component;
  if (per_component.empty()) return true;
  if (per_component.size() != n_) {
    *why = "StepperOptions::atol_per_component has " + std::to_string(per_component.size()) +
           " elements; must have one per component (" + std::to_string(n_) + ")";
    return false;
  }
  atol->reset(N_VNew_Serial(static_cast<sunindextype>(n_), context()));
  if (!*atol) {
    *why = "SUNDIALS could not create the tolerance vector";
    return false;
  }
  std::copy(per_component.begin(), per_component.end(), sundials::Elements(atol->get()).begin());
  return true;
}

int BdfEngine::Record(CallbackFailure::Kind kind, const char* callback, double t) {
  failure_ = CallbackFailure{kind, callback, t};
  return 1;  // recoverable: SUNDIALS retries with a smaller step
}

int BdfEngine::EvaluateF(double t, std::span<const double> x, std::span<double> f) {
  if (!system_->Evaluate(t, x, f)) {
    return Record(CallbackFailure::Kind::kReturnedFalse, "Evaluate", t);
  }
  if (!AllFinite(f)) return Record(CallbackFailure::Kind::kNonFinite, "Evaluate", t);
  return 0;
}

int BdfEngine::EvaluateJacobian(double t, std::span<const double> x, std::span<double> values) {
  if (!system_->Jacobian(t, x, values)) {
    return Record(CallbackFailure::Kind::kReturnedFalse, "Jacobian", t);
  }
  if (!AllFinite(values)) return Record(CallbackFailure::Kind::kNonFinite, "Jacobian", t);
  return 0;
}

int BdfEngine::Project(double t, std::span<double> x, std::span<double> error) {
  if (!system_->Project(t, x, error)) {
    return Record(CallbackFailure::Kind::kReturnedFalse, "Project", t);
  }
  if (!AllFinite(x) || !AllFinite(error)) {
    return Record(CallbackFailure::Kind::kNonFinite, "Project", t);
  }
  return 0;
}

void BdfEngine::OnError(int code, const char* /*module*/, const char* function, char* message,
                        void* engine) {
  if (code == kWarning) return;
  auto& self = *static_cast<BdfEngine*>(engine);
  std::snprintf(self.message_.data(), self.message_.size(), "%s: %s", function, message);
}

}  // namespace tether::integrate
