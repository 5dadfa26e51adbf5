#include "structure/derivative_elimination.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "structure/row_dependencies.h"

namespace tether::structure {
namespace {

using expr::Context;
using expr::Expr;

constexpr std::size_t kNoColumn = static_cast<std::size_t>(-1);

// F_i = Σ_j A_ij x_j′ + b_i over the derivative columns it contains.
struct AffineRow {
  std::size_t equation = 0;
  std::vector<std::size_t> columns;  // variables j whose x_j′ occurs
  std::vector<Expr> coefficients;    // A_ij, same order
  Expr constant;                     // b_i
};

bool HasDerivative(const Context& cx, Expr e, const JetIndex& jets) {
  for (Expr symbol : cx.FreeSymbols(e)) {
    std::optional<JetRef> jet = jets.Find(symbol);
    if (jet && jet->order >= 1) return true;
  }
  return false;
}

// The affine decomposition of F_i, or nothing if it has no derivative or is not affine in
// them with derivative-free coefficients.
std::optional<AffineRow> Affine(Context& cx, std::size_t i, Expr f, const JetIndex& jets,
                                std::span<const Expr> first_derivatives) {
  AffineRow row;
  row.equation = i;
  std::vector<std::pair<Expr, Expr>> to_zero;
  for (Expr symbol : cx.FreeSymbols(f)) {
    std::optional<JetRef> jet = jets.Find(symbol);
    if (!jet || jet->order == 0) continue;
    if (jet->order > 1) return std::nullopt;
    const Expr a = cx.Diff(f, symbol);
    if (HasDerivative(cx, a, jets)) return std::nullopt;
    row.columns.push_back(jet->variable);
    row.coefficients.push_back(a);
    to_zero.emplace_back(first_derivatives[jet->variable], cx.Constant(0.0));
  }
  if (row.columns.empty()) return std::nullopt;
  row.constant = cx.Substitute(f, to_zero);
  return row;
}

// Numeric A at one point (rows × columns, row-major), or nothing if an entry is unreliable.
std::optional<std::vector<double>> NumericMatrix(const std::vector<AffineRow>& rows,
                                                 const std::vector<std::size_t>& column_of,
                                                 std::size_t num_columns, Prober& prober,
                                                 int point) {
  std::vector<double> a(rows.size() * num_columns, 0.0);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    for (std::size_t k = 0; k < rows[r].columns.size(); ++k) {
      const ProbeValue v = prober.Evaluate(rows[r].coefficients[k], point);
      if (!v.reliable) return std::nullopt;
      a[r * num_columns + column_of[rows[r].columns[k]]] = v.value;
    }
  }
  return a;
}

// Ranks pivot candidates: lower is better (see the header).
struct PivotRank {
  int kind = 4;  // 0 constant, 1 parameters only, 2 definite non-zero, 3 undecided
  std::size_t nodes = 0;
  friend bool operator<(const PivotRank& a, const PivotRank& b) {
    return a.kind != b.kind ? a.kind < b.kind : a.nodes < b.nodes;
  }
};

std::optional<PivotRank> RankPivot(const Context& cx, Expr e, const JetIndex& jets, Expr time,
                                   Prober& prober) {
  const ZeroVerdict verdict = prober.IsZero(e);
  if (verdict == ZeroVerdict::kZero) return std::nullopt;
  PivotRank rank;
  rank.nodes = cx.NodeCount(e);
  if (cx.op(e) == expr::Op::kConstant) {
    rank.kind = 0;
  } else if (verdict == ZeroVerdict::kUnknown) {
    rank.kind = 3;
  } else {
    bool parameters_only = true;
    for (Expr symbol : cx.FreeSymbols(e)) {
      if (symbol == time || jets.Find(symbol)) parameters_only = false;
    }
    rank.kind = parameters_only ? 1 : 2;
  }
  return rank;
}

// The cluster S of rows taking part in a dependency at the point of highest rank, or nothing
// when A has full row rank at some point (or no point gives a reliable A).
std::optional<std::vector<std::size_t>> DependentCluster(const std::vector<AffineRow>& rows,
                                                         const std::vector<std::size_t>& column_of,
                                                         std::size_t num_columns, Prober& prober) {
  std::optional<RowDependencies> best;
  for (int point = 0; point < prober.points(); ++point) {
    std::optional<std::vector<double>> a =
        NumericMatrix(rows, column_of, num_columns, prober, point);
    if (!a) continue;
    RowDependencies found = FindRowDependencies(rows.size(), num_columns, *a);
    if (found.rank == rows.size()) return std::nullopt;
    if (!best || found.rank > best->rank) best = std::move(found);
  }
  if (!best) return std::nullopt;
  return best->DependentRows();
}

// The cluster split into its connected components: rows sharing a derivative column belong
// together. Components are independent (no row combination across them can cancel a column),
// so each is eliminated on its own and a block-diagonal cluster costs the sum of its blocks,
// not the cube of its size.
std::vector<std::vector<std::size_t>> Components(const std::vector<AffineRow>& rows,
                                                 const std::vector<std::size_t>& cluster,
                                                 std::size_t num_variables) {
  std::vector<std::size_t> parent(cluster.size());
  for (std::size_t s = 0; s < parent.size(); ++s) parent[s] = s;
  auto root = [&parent](std::size_t s) {
    while (parent[s] != s) s = parent[s] = parent[parent[s]];
    return s;
  };
  std::vector<std::size_t> first_row_of(num_variables, kNoColumn);
  for (std::size_t s = 0; s < cluster.size(); ++s) {
    for (std::size_t j : rows[cluster[s]].columns) {
      if (first_row_of[j] == kNoColumn) {
        first_row_of[j] = s;
      } else {
        parent[root(s)] = root(first_row_of[j]);
      }
    }
  }
  std::vector<std::vector<std::size_t>> components;
  std::vector<std::size_t> component_of(cluster.size(), kNoColumn);
  for (std::size_t s = 0; s < cluster.size(); ++s) {
    std::size_t& c = component_of[root(s)];
    if (c == kNoColumn) {
      c = components.size();
      components.emplace_back();
    }
    components[c].push_back(cluster[s]);
  }
  return components;
}

// Bareiss on [A | b] over `component` (indices into `rows`); fills the replacements of its
// dependent rows. False when the context outgrew `node_limit`.
bool EliminateComponent(Context& cx, const std::vector<AffineRow>& rows,
                        const std::vector<std::size_t>& component, Expr time, const JetIndex& jets,
                        Prober& prober, std::size_t node_limit, DerivativeElimination* result) {
  // Local dense columns: the component's derivative columns, then b.
  std::vector<std::size_t> variables;
  for (std::size_t r : component) {
    variables.insert(variables.end(), rows[r].columns.begin(), rows[r].columns.end());
  }
  std::sort(variables.begin(), variables.end());
  variables.erase(std::unique(variables.begin(), variables.end()), variables.end());
  const std::size_t b = variables.size();
  const Expr zero = cx.Constant(0.0);
  std::vector<std::vector<Expr>> m(component.size(), std::vector<Expr>(b + 1, zero));
  for (std::size_t s = 0; s < component.size(); ++s) {
    const AffineRow& row = rows[component[s]];
    for (std::size_t k = 0; k < row.columns.size(); ++k) {
      const auto at = std::lower_bound(variables.begin(), variables.end(), row.columns[k]);
      m[s][static_cast<std::size_t>(at - variables.begin())] = row.coefficients[k];
    }
    m[s][b] = row.constant;
  }
  std::vector<char> row_active(component.size(), 1);
  std::vector<char> column_active(b, 1);
  std::vector<std::size_t> pivot_rows;
  Expr previous = cx.Constant(1.0);
  // Structural zeros stay zeros: 0·e and 0/p are not simplified for a non-total e or any p
  // (expr.h), but here e is an entry the equations themselves evaluate, and p a pivot.
  auto product = [&](Expr u, Expr w) {
    return cx.is_constant(u, 0.0) || cx.is_constant(w, 0.0) ? zero : cx.Mul(u, w);
  };
  auto over_pivot = [&](Expr u, Expr p) { return cx.is_constant(u, 0.0) ? zero : cx.Div(u, p); };
  while (true) {
    std::optional<PivotRank> best;
    std::size_t pr = 0, pc = 0;
    for (std::size_t s = 0; s < m.size(); ++s) {
      if (!row_active[s]) continue;
      for (std::size_t c = 0; c < b; ++c) {
        if (!column_active[c]) continue;
        std::optional<PivotRank> rank = RankPivot(cx, m[s][c], jets, time, prober);
        if (rank && (!best || *rank < *best)) {
          best = rank;
          pr = s;
          pc = c;
        }
      }
    }
    if (!best) break;
    row_active[pr] = 0;
    column_active[pc] = 0;
    pivot_rows.push_back(rows[component[pr]].equation);
    const Expr pivot = m[pr][pc];
    for (std::size_t s = 0; s < m.size(); ++s) {
      if (!row_active[s]) continue;
      const Expr factor = m[s][pc];
      for (std::size_t c = 0; c <= b; ++c) {
        if (c != b && !column_active[c]) continue;
        // M_sc ← (p·M_sc − M_s,pc·M_pr,c) / p_prev
        const Expr numerator = cx.Sub(product(pivot, m[s][c]), product(factor, m[pr][c]));
        m[s][c] = over_pivot(numerator, previous);
      }
      m[s][pc] = zero;
      if (cx.size() > node_limit) return false;
    }
    previous = pivot;
  }
  std::sort(pivot_rows.begin(), pivot_rows.end());
  for (std::size_t s = 0; s < m.size(); ++s) {
    if (!row_active[s]) continue;
    const std::size_t i = rows[component[s]].equation;
    Expr g = over_pivot(m[s][b], previous);  // g_i = M_ib^(r) / det A_PP
    if (prober.IsZero(g) == ZeroVerdict::kZero) g = zero;
    result->replacement[i] = g;
    result->combined_with[i] = pivot_rows;
  }
  return true;
}

}  // namespace

DerivativeElimination EliminateDependentDerivatives(Context& cx, std::span<const Expr> equations,
                                                    Expr time, const JetIndex& jets,
                                                    std::span<const Expr> first_derivatives,
                                                    Prober& prober, std::size_t node_limit) {
  DerivativeElimination result;
  result.replacement.assign(equations.size(), Expr{});
  result.combined_with.resize(equations.size());

  std::vector<AffineRow> rows;
  for (std::size_t i = 0; i < equations.size(); ++i) {
    if (auto row = Affine(cx, i, equations[i], jets, first_derivatives)) rows.push_back(*row);
  }
  if (rows.empty()) return result;
  // Columns: the variables whose derivative occurs in some affine row, numbered densely.
  std::vector<std::size_t> column_of(first_derivatives.size(), kNoColumn);
  std::size_t num_columns = 0;
  for (const AffineRow& row : rows) {
    for (std::size_t j : row.columns) {
      if (column_of[j] == kNoColumn) column_of[j] = num_columns++;
    }
  }
  std::optional<std::vector<std::size_t>> cluster =
      DependentCluster(rows, column_of, num_columns, prober);
  if (!cluster || cluster->empty()) return result;
  for (const auto& component : Components(rows, *cluster, first_derivatives.size())) {
    if (!EliminateComponent(cx, rows, component, time, jets, prober, node_limit, &result)) {
      result.budget_exceeded = true;
      return result;
    }
  }
  return result;
}

}  // namespace tether::structure
