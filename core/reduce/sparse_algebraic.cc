#include "tether/reduce/sparse_algebraic.h"

#include <algorithm>
#include <cmath>

#include "tether/reduce/rank.h"

namespace tether::reduce {

SparseAlgebraic::SparseAlgebraic(const expr::Context& cx, const Matrix& c_x, const Matrix& c_y,
                                 std::size_t n)
    : c_x_(Pattern::Where(c_y.size(), n,
                          [&](std::size_t i, std::size_t j) {
                            return !cx.is_constant(c_x[i][j], 0.0);
                          })),
      c_y_columns_(Pattern::Where(c_y.size(), c_y.size(),
                                  [&](std::size_t j, std::size_t i) {
                                    return !cx.is_constant(c_y[i][j], 0.0);
                                  })),
      n_(n),
      scale_(c_y.size(), 0.0) {
  const std::size_t m = c_y.size();
  c_x_offset_ = n + m;
  c_y_offset_ = c_x_offset_ + c_x_.col.size();
}

bool SparseAlgebraic::Pays() const { return Pays(rows(), c_y_nonzeros()); }

bool SparseAlgebraic::Pays(std::size_t size, std::size_t nonzeros) {
  return size >= kFromRows &&
         static_cast<double>(nonzeros) <= kMaxDensity * static_cast<double>(size * size);
}

std::vector<expr::Expr> SparseAlgebraic::StageOutputs(const std::vector<expr::Expr>& f,
                                                      const std::vector<expr::Expr>& c,
                                                      const Matrix& c_x, const Matrix& c_y,
                                                      const std::vector<expr::Expr>& c_t) const {
  std::vector<expr::Expr> outputs = f;
  outputs.insert(outputs.end(), c.begin(), c.end());
  for (std::size_t i = 0; i < c_x_.rows; ++i) {
    for (int p = c_x_.row_start[i]; p < c_x_.row_start[i + 1]; ++p) {
      outputs.push_back(c_x[i][static_cast<std::size_t>(c_x_.col[static_cast<std::size_t>(p)])]);
    }
  }
  for (std::size_t j = 0; j < c_y_columns_.rows; ++j) {
    for (int p = c_y_columns_.row_start[j]; p < c_y_columns_.row_start[j + 1]; ++p) {
      const auto i = static_cast<std::size_t>(c_y_columns_.col[static_cast<std::size_t>(p)]);
      outputs.push_back(c_y[i][j]);
    }
  }
  outputs.insert(outputs.end(), c_t.begin(), c_t.end());
  return outputs;
}

double SparseAlgebraic::ScaledResidual(const double* stage, std::span<const double> x,
                                       std::span<const double> y) {
  const std::size_t m = rows();
  const double* c = stage + n_;
  const double* c_x = stage + c_x_offset_;
  const double* c_y = stage + c_y_offset_;
  for (std::size_t i = 0; i < m; ++i) {
    double sum = 0.0;
    for (int p = c_x_.row_start[i]; p < c_x_.row_start[i + 1]; ++p) {
      const auto k = static_cast<std::size_t>(p);
      sum += std::abs(c_x[k] * x[static_cast<std::size_t>(c_x_.col[k])]);
    }
    scale_[i] = sum;
  }
  for (std::size_t j = 0; j < m; ++j) {
    for (int p = c_y_columns_.row_start[j]; p < c_y_columns_.row_start[j + 1]; ++p) {
      const auto k = static_cast<std::size_t>(p);
      scale_[static_cast<std::size_t>(c_y_columns_.col[k])] += std::abs(c_y[k] * y[j]);
    }
  }
  double residual = 0.0;
  for (std::size_t i = 0; i < m; ++i) {
    residual = std::max(residual, std::abs(c[i]) / std::max(1.0, 0.5 * scale_[i]));
  }
  return residual;
}

void SparseAlgebraic::MultiplyCx(const double* stage, const double* v, double* out) const {
  const double* c_x = stage + c_x_offset_;
  for (std::size_t i = 0; i < c_x_.rows; ++i) {
    double sum = 0.0;
    for (int p = c_x_.row_start[i]; p < c_x_.row_start[i + 1]; ++p) {
      const auto k = static_cast<std::size_t>(p);
      sum += c_x[k] * v[c_x_.col[k]];
    }
    out[i] = sum;
  }
}

bool SparseAlgebraic::Factor(double* stage) {
  const std::span<double> values(stage + c_y_offset_, c_y_nonzeros());
  return klu_.FactorRegular(c_y_columns_.row_start, c_y_columns_.col, values,
                            RelativePivotThreshold(rows()));
}

Eigen::MatrixXd SparseAlgebraic::DenseCy(const double* stage) const {
  const auto m = static_cast<Eigen::Index>(rows());
  Eigen::MatrixXd c_y = Eigen::MatrixXd::Zero(m, m);
  const double* values = stage + c_y_offset_;
  for (std::size_t j = 0; j < rows(); ++j) {
    for (int p = c_y_columns_.row_start[j]; p < c_y_columns_.row_start[j + 1]; ++p) {
      const auto k = static_cast<std::size_t>(p);
      c_y(c_y_columns_.col[k], static_cast<Eigen::Index>(j)) = values[k];
    }
  }
  return c_y;
}

}  // namespace tether::reduce
