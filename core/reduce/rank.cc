#include "tether/reduce/rank.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tether::reduce {

double RelativePivotThreshold(std::size_t k) {
  return 1000.0 * static_cast<double>(std::max<std::size_t>(k, 1)) *
         std::numeric_limits<double>::epsilon();
}

bool LdltIsRankDeficient(const Eigen::LDLT<Eigen::MatrixXd>& ldlt, double threshold) {
  const auto d = ldlt.vectorD();
  if (d.size() == 0) return false;
  const double largest = d.cwiseAbs().maxCoeff();
  if (!(largest > 0.0)) return true;  // zero or NaN
  return d.cwiseAbs().minCoeff() <= threshold * largest;
}

bool LuIsRankDeficient(const Eigen::PartialPivLU<Eigen::MatrixXd>& lu, double threshold) {
  const auto u = lu.matrixLU().diagonal();
  if (u.size() == 0) return false;
  const double largest = u.cwiseAbs().maxCoeff();
  if (!(largest > 0.0)) return true;
  return u.cwiseAbs().minCoeff() <= threshold * largest;
}

std::vector<std::size_t> DependentRows(const Eigen::MatrixXd& a) {
  std::vector<std::size_t> rows;
  if (a.rows() == 0) return rows;
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(a, Eigen::ComputeFullU);
  // Singular values are sorted decreasingly; with fewer columns than rows the last columns
  // of U span the left null space, the last one is as good as any.
  const Eigen::VectorXd u = svd.matrixU().col(a.rows() - 1);
  const double largest = u.cwiseAbs().maxCoeff();
  for (Eigen::Index i = 0; i < u.size(); ++i) {
    if (std::abs(u(i)) >= 0.1 * largest) rows.push_back(static_cast<std::size_t>(i));
  }
  return rows;
}

std::string NameList(const std::vector<std::size_t>& rows, const std::vector<std::string>& names) {
  std::vector<std::string> seen;
  std::string text;
  for (std::size_t row : rows) {
    const std::string name = row < names.size() ? names[row] : "row " + std::to_string(row);
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) continue;
    seen.push_back(name);
    if (!text.empty()) text += ", ";
    text += "'" + name + "'";
  }
  return text;
}

}  // namespace tether::reduce
