#include "model/forms/mechanical.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>

#include "model/spec_reading.h"

namespace tether::model {
namespace {

constexpr std::array<std::string_view, 4> kFields = {"coordinates", "velocities", "mass",
                                                     "forces"};
constexpr std::array<std::string_view, 3> kAliases = {"index3", "index-3", "index_3"};

constexpr unsigned kPositionBits = Bit(NameKind::kParameter) | Bit(NameKind::kCoordinate);
constexpr unsigned kMechanicalBits = kPositionBits | Bit(NameKind::kVelocity);

class MechanicalReader final : public FormReader {
 public:
  void ReadVariables(SpecReading& reader, const Json& document) override {
    Model& model = reader.model();
    reader.ReadVariables(document, "coordinates", NameKind::kCoordinate, true, model.coordinates);
    reader.ReadVariables(document, "velocities", NameKind::kVelocity, true, model.velocities);
    if (reader.refused()) return;
    const std::size_t n = model.coordinates.size();
    if (Field(document, "coordinates") != nullptr && n == 0) {
      reader.Problem("coordinates", "must name at least one coordinate");
    }
    if (Field(document, "velocities") != nullptr && Field(document, "coordinates") != nullptr &&
        model.velocities.size() != n) {
      reader.Problem("velocities", "has " + std::to_string(model.velocities.size()) +
                                       " names but there are " + std::to_string(n) +
                                       " coordinates; each coordinate needs one velocity");
    }
  }

  void ReadEquations(SpecReading& reader, const Json& document) override {
    Model& model = reader.model();
    const std::size_t n = model.coordinates.size();
    const Site dynamics{"the mass matrix or a force", kMechanicalBits, ""};
    ReadMass(reader, document, n, dynamics);
    reader.ReadExpressionList(document, "forces", dynamics, true, n, "coordinates", model.forces);
    const Site position{"a constraint", kPositionBits,
                        " (Φ(q,t) depends on coordinates, parameters and t only)"};
    reader.ReadConstraints(document, position);
    if (model.constraints.size() > n) {
      reader.Problem("constraints", "has " + std::to_string(model.constraints.size()) +
                                        " constraints but only " + std::to_string(n) +
                                        " coordinates; a mechanical model has at most as many "
                                        "constraints as coordinates");
    }
    const Site inequality{"an inequality", kPositionBits,
                          " (c(q,t) depends on coordinates, parameters and t only)"};
    reader.ReadExpressionList(document, "inequalities", inequality, false, std::nullopt, "",
                              model.inequalities);
  }

  void CheckStructure(SpecReading& reader) override {
    CheckMassSymmetry(reader);
    CheckConstraintsUseCoordinates(reader);
  }

 private:
  // `mass` is a full n×n matrix of expressions or a diagonal list of n.
  static void ReadMass(SpecReading& reader, const Json& document, std::size_t n,
                       const Site& site) {
    Model& model = reader.model();
    const Json* mass = reader.TypedField(document, "", "mass", Json::value_t::array, true);
    if (mass == nullptr) return;
    const bool full = !mass->empty() && (*mass)[0].is_array();
    if (mass->size() != n) {
      reader.Problem("mass", "has " + std::to_string(mass->size()) +
                                 (full ? " rows" : " entries") + " but there are " +
                                 std::to_string(n) +
                                 " coordinates; give an n×n matrix or a diagonal list of n "
                                 "entries");
      return;
    }
    model.mass.assign(n * n, reader.context().Constant(0.0));
    for (std::size_t i = 0; i < n; ++i) {
      const Json& row = (*mass)[i];
      const std::string path = Index("mass", i);
      if (!full) {
        model.mass[i * n + i] = reader.ReadExpression(row, path, site);
      } else if (!row.is_array() || row.size() != n) {
        reader.Problem(path, "must be a row of " + std::to_string(n) + " expressions, not " +
                                 (row.is_array() ? std::to_string(row.size()) + " entries" : TypeName(row)));
      } else {
        for (std::size_t j = 0; j < n; ++j) {
          model.mass[i * n + j] = reader.ReadExpression(row[j], Index(path, j), site);
        }
      }
    }
  }

  // M = Mᵀ. Entries that are different expressions are compared at three points (every symbol
  // at a value fixed by its name and the point, in [0.5, 2]), so entries written differently
  // but equal (cos(a−b) and cos(b−a)) pass; a difference above 1e-9·max(1, |Mᵢⱼ|, |Mⱼᵢ|) — far
  // above the rounding of one entry, far below any intended asymmetry — refuses the spec.
  static void CheckMassSymmetry(SpecReading& reader) {
    const Model& model = reader.model();
    const expr::Context& cx = reader.context();
    const std::size_t n = model.coordinates.size();
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = i + 1; j < n; ++j) {
        const expr::Expr upper = model.mass[i * n + j];
        const expr::Expr lower = model.mass[j * n + i];
        if (upper == lower || !Asymmetric(cx, upper, lower)) continue;
        constexpr std::size_t kQuoted = 60;
        const std::string upper_path = Index(Index("mass", i), j);
        const std::string lower_path = Index(Index("mass", j), i);
        reader.Problem(upper_path, "the mass matrix must be symmetric, but " + upper_path +
                                       " is '" + cx.ToString(upper, kQuoted) + "' and " +
                                       lower_path + " is '" + cx.ToString(lower, kQuoted) + "'");
      }
    }
  }

  static bool Asymmetric(const expr::Context& cx, expr::Expr a, expr::Expr b) {
    constexpr int kPoints = 3;
    for (int point = 0; point < kPoints; ++point) {
      auto value_of = [&](expr::Expr symbol) {
        // FNV-1a of the name and the point, mapped to [0.5, 2].
        constexpr std::uint64_t kOffset = UINT64_C(1469598103934665603);
        constexpr std::uint64_t kPrime = UINT64_C(1099511628211);
        std::uint64_t h = kOffset + static_cast<std::uint64_t>(point);
        for (char ch : cx.symbol_name(symbol)) {
          h = (h ^ static_cast<std::uint64_t>(static_cast<unsigned char>(ch))) * kPrime;
        }
        return 0.5 + 1.5 * static_cast<double>(h >> 11) * 0x1.0p-53;
      };
      const double x = cx.Evaluate(a, value_of);
      const double y = cx.Evaluate(b, value_of);
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      constexpr double kRelative = 1e-9;
      if (std::fabs(x - y) > kRelative * std::max({1.0, std::fabs(x), std::fabs(y)})) return true;
    }
    return false;
  }

  // Φ(q, t) = 0 with no coordinate in it cannot be satisfied by moving the mechanism.
  static void CheckConstraintsUseCoordinates(SpecReading& reader) {
    const Model& model = reader.model();
    const expr::Context& cx = reader.context();
    for (std::size_t i = 0; i < model.constraints.size(); ++i) {
      const expr::Expr phi = model.constraints[i];
      bool uses_coordinate = false;
      for (const Variable& q : model.coordinates) {
        uses_coordinate = uses_coordinate || cx.DependsOn(phi, q.symbol);
      }
      if (uses_coordinate) continue;
      reader.Problem(Index("constraints", i),
                     "a constraint of a mechanical model must depend on the coordinates, but '" +
                         cx.ToString(phi, 60) + "' depends on none (Φ(q,t) = 0 constrains q)");
    }
  }
};

}  // namespace

std::span<const std::string_view> MechanicalSpec::aliases() const { return kAliases; }

std::span<const std::string_view> MechanicalSpec::fields() const { return kFields; }

void MechanicalSpec::States(const Model& model, std::vector<const Variable*>& states,
                            std::vector<StateRole>* roles) const {
  AppendStates(model.coordinates, StateRole::kCoordinate, states, roles);
  AppendStates(model.velocities, StateRole::kVelocity, states, roles);
}

std::vector<std::string> MechanicalSpec::MultiplierColumns(const Model& model) const {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < model.constraints.size(); ++i) {
    names.push_back("lambda_" + std::to_string(i + 1));
  }
  return names;
}

std::unique_ptr<FormReader> MechanicalSpec::NewReader() const {
  return std::make_unique<MechanicalReader>();
}

}  // namespace tether::model
