#include "simulate/sliding_flow.h"

#include <gtest/gtest.h>

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tether/expr/parse.h"

namespace tether::simulate {
namespace {

// x' = −x, y' = −2y with its symbolic Jacobian diag(−1, −2).
class Decay : public integrate::OdeSystem {
 public:
  [[nodiscard]] std::size_t size() const override { return 2; }
  bool Evaluate(double, std::span<const double> x, std::span<double> dxdt) override {
    dxdt[0] = -x[0];
    dxdt[1] = -2.0 * x[1];
    return true;
  }
  [[nodiscard]] std::span<const integrate::MatrixEntry> jacobian_pattern() const override {
    return pattern_;
  }
  bool Jacobian(double, std::span<const double>, std::span<double> values) override {
    values[0] = -1.0;
    values[1] = -2.0;
    return true;
  }

 private:
  std::vector<integrate::MatrixEntry> pattern_ = {{0, 0}, {1, 1}};
};

// The feasible set x + y ≥ 0 over the states (x, y).
std::unique_ptr<project::InequalityProjection> HalfPlane() {
  expr::Context context;
  const std::vector<expr::Expr> states = {context.Symbol("x"), context.Symbol("y")};
  const std::vector<expr::Expr> c = {expr::Parse(context, "x + y").expr};
  std::string why;
  auto set = project::InequalityProjection::Create(context, c, states, {}, &why);
  EXPECT_NE(set, nullptr) << why;
  return set;
}

TEST(SlidingOdeTest, WithNothingActiveItsJacobianIsTheFreeFlows) {
  const std::unique_ptr<project::InequalityProjection> set = HalfPlane();
  ASSERT_NE(set, nullptr);
  Decay free;
  SlidingFlow flow(2, 1);
  std::vector<double> mu(1);
  const std::vector<double> x = {1.0, 1.0};

  SlidingOde inactive(free, *set, flow, mu, {});
  ASSERT_EQ(inactive.jacobian_pattern().size(), 2u);
  EXPECT_EQ(inactive.jacobian_pattern()[1].row, 1u);
  std::vector<double> values(2);
  ASSERT_TRUE(inactive.Jacobian(0.0, x, values));
  EXPECT_EQ(values, (std::vector<double>{-1.0, -2.0}));

  // Sliding along x + y = 0 the field is the free one minus its normal part: not the free
  // Jacobian, which is left to the method's difference quotients.
  flow.set_active({true});
  SlidingOde sliding(free, *set, flow, mu, {});
  EXPECT_TRUE(sliding.jacobian_pattern().empty());
  EXPECT_FALSE(sliding.Jacobian(0.0, x, values));
}

TEST(SlidingOdeTest, SlidingItProjectsOntoTheActiveConstraints) {
  const std::unique_ptr<project::InequalityProjection> set = HalfPlane();
  ASSERT_NE(set, nullptr);
  Decay free;
  SlidingFlow flow(2, 1);
  std::vector<double> mu(1);

  SlidingOde inactive(free, *set, flow, mu, {});
  EXPECT_FALSE(inactive.has_projection());  // the free flow has none

  // Sliding along x + y = 0, a method projecting inside its steps lands its ends on it; the
  // error estimate is left as it is (see SlidingOde).
  flow.set_active({true});
  SlidingOde sliding(free, *set, flow, mu, {});
  ASSERT_TRUE(sliding.has_projection());
  std::vector<double> x = {1.0, 0.5};
  std::vector<double> error = {1e-6, 2e-6};
  ASSERT_TRUE(sliding.Project(0.0, x, error));
  EXPECT_NEAR(x[0], 0.25, 1e-15);  // the Euclidean projection of (1, 0.5) onto y = −x
  EXPECT_NEAR(x[1], -0.25, 1e-15);
  EXPECT_EQ(error, (std::vector<double>{1e-6, 2e-6}));
}

}  // namespace
}  // namespace tether::simulate
