// The implicit form's numeric half. The stage (φ, G, G_z, G_w, G_t) is the index1 stage of
// reduction.cc with f = φ and g = G, so every stage solves w by the index1 Newton; what is the
// implicit form's own are its invariants: the k levels H_0 … H_(k−1) of the structural analysis,
// stacked into the reduced model's two levels so that every projector applies:
//
//   "position" = H_0 on z[0, P), P = the states H_0 depends on (the model puts them first);
//   "velocity" = H_1 … H_(k−1) on z[P, N) at the projected positions (the sequential
//                projector's second block, as q then v for the mechanical form).
//
// When P = N, or a row of a higher level depends on z[0, P) only, the second block could not
// move it: then all levels form the first block (sequential is then the coupled projection).
// The residuals reported as position and velocity are ‖H_0‖∞ and max_(ℓ≥1) ‖H_ℓ‖∞ either way.
#include <string>
#include <vector>

#include "tether/reduce/reduced_model.h"

namespace tether::reduce {

std::vector<expr::Expr> ReducedModel::BuildImplicitInvariants(
    expr::Context& cx, const std::vector<expr::Expr>& inputs) {
  const model::Model& model = *model_;
  const model::ImplicitForm& form = *model.implicit;
  const std::size_t nz = n_;
  std::vector<expr::Expr> values;
  invariant_names_.clear();
  for (std::size_t level = 0; level < form.invariants.size(); ++level) {
    for (std::size_t i = 0; i < form.invariants[level].size(); ++i) {
      values.push_back(cx.Import(*model.context, form.invariants[level][i]));
      invariant_names_.push_back(form.invariant_names[level][i]);
    }
  }
  level0_size_ = form.invariants.empty() ? 0 : form.invariants.front().size();

  // P: one past the last state H_0 depends on.
  std::size_t p = 0;
  for (std::size_t i = 0; i < level0_size_; ++i) {
    for (std::size_t j = 0; j < nz; ++j) {
      if (cx.DependsOn(values[i], inputs[j])) p = std::max(p, j + 1);
    }
  }
  bool split = level0_size_ < values.size() && p < nz;
  for (std::size_t i = level0_size_; split && i < values.size(); ++i) {
    bool moves = false;
    for (std::size_t j = p; j < nz && !moves; ++j) moves = cx.DependsOn(values[i], inputs[j]);
    split = moves;
  }
  ode_size_ = nz;
  position_size_ = split ? p : nz;
  num_pos_inv_ = split ? level0_size_ : values.size();
  num_vel_inv_ = values.size() - num_pos_inv_;

  std::vector<expr::Expr> program = values;  // H, then H_z row-major
  for (expr::Expr h : values) {
    for (std::size_t j = 0; j < nz; ++j) program.push_back(cx.Diff(h, inputs[j]));
  }
  return program;
}

}  // namespace tether::reduce
