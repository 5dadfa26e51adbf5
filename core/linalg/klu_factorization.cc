#include "tether/linalg/klu_factorization.h"

#include <klu.h>

namespace tether::linalg {

struct KluFactorization::Klu {
  explicit Klu(bool is_complex) : complex(is_complex) { klu_defaults(&common); }
  ~Klu() {
    FreeNumeric();
    if (symbolic != nullptr) klu_free_symbolic(&symbolic, &common);
  }
  Klu(const Klu&) = delete;
  Klu& operator=(const Klu&) = delete;

  // The numeric object must be freed by the variant (real or complex) that made it.
  void FreeNumeric() {
    if (numeric == nullptr) return;
    if (complex) {
      klu_z_free_numeric(&numeric, &common);
    } else {
      klu_free_numeric(&numeric, &common);
    }
  }

  bool complex;
  klu_common common{};
  klu_symbolic* symbolic = nullptr;
  klu_numeric* numeric = nullptr;
  int n = 0;
};

KluFactorization::KluFactorization(Values values)
    : values_(values), klu_(std::make_unique<Klu>(values == Values::kComplex)) {}

KluFactorization::~KluFactorization() = default;

KluFactorization::KluFactorization(const KluFactorization& other)
    : values_(other.values_), klu_(std::make_unique<Klu>(other.values_ == Values::kComplex)) {}

KluFactorization& KluFactorization::operator=(const KluFactorization& other) {
  if (this != &other) {
    values_ = other.values_;
    klu_ = std::make_unique<Klu>(values_ == Values::kComplex);
  }
  return *this;
}

void KluFactorization::Reset() { klu_ = std::make_unique<Klu>(values_ == Values::kComplex); }

bool KluFactorization::factored() const { return klu_->numeric != nullptr; }

bool KluFactorization::FactorAfresh(std::span<int> column_pointers, std::span<int> row_indices,
                                    std::span<double> values) {
  Klu& k = *klu_;
  const bool complex = k.complex;
  k.FreeNumeric();
  if (k.symbolic == nullptr) {
    k.n = static_cast<int>(column_pointers.size()) - 1;
    k.symbolic = klu_analyze(k.n, column_pointers.data(), row_indices.data(), &k.common);
    if (k.symbolic == nullptr) return false;
  }
  ++full_factorizations_;
  k.numeric = complex ? klu_z_factor(column_pointers.data(), row_indices.data(), values.data(),
                                     k.symbolic, &k.common)
                      : klu_factor(column_pointers.data(), row_indices.data(), values.data(),
                                   k.symbolic, &k.common);
  // halt_if_singular (KLU's default) frees the object and returns null on a zero pivot.
  if (k.numeric == nullptr || k.common.status != KLU_OK) return false;
  UpdatePivotRatio();
  return true;
}

bool KluFactorization::Factor(std::span<int> column_pointers, std::span<int> row_indices,
                              std::span<double> values) {
  Klu& k = *klu_;
  if (k.numeric == nullptr) return FactorAfresh(column_pointers, row_indices, values);
  const bool complex = k.complex;
  const int refactored =
      complex ? klu_z_refactor(column_pointers.data(), row_indices.data(), values.data(),
                               k.symbolic, k.numeric, &k.common)
              : klu_refactor(column_pointers.data(), row_indices.data(), values.data(),
                             k.symbolic, k.numeric, &k.common);
  if (refactored != 0) {
    UpdatePivotRatio();
    // NaN-safe this way round: a NaN ratio also renews the pivots.
    if (pivot_ratio_ >= kRefactorRcond) return true;
  }
  return FactorAfresh(column_pointers, row_indices, values);
}

bool KluFactorization::FactorRegular(std::span<int> column_pointers, std::span<int> row_indices,
                                     std::span<double> values, double min_pivot_ratio) {
  const auto passes = [&] {
    return Factor(column_pointers, row_indices, values) && pivot_ratio_ > min_pivot_ratio;
  };
  if (passes()) return true;
  Reset();
  return passes();
}

void KluFactorization::UpdatePivotRatio() {
  Klu& k = *klu_;
  if (k.complex) {
    klu_z_rcond(k.symbolic, k.numeric, &k.common);
  } else {
    klu_rcond(k.symbolic, k.numeric, &k.common);
  }
  pivot_ratio_ = k.common.rcond;
}

void KluFactorization::Solve(std::span<double> b) {
  Klu& k = *klu_;
  if (k.complex) {
    klu_z_solve(k.symbolic, k.numeric, k.n, 1, b.data(), &k.common);
  } else {
    klu_solve(k.symbolic, k.numeric, k.n, 1, b.data(), &k.common);
  }
}

}  // namespace tether::linalg
