#include "common/hand_pendulum.h"

#include <algorithm>
#include <cmath>

namespace tether::bench {

void HandPendulum::Rhs(const State& z, State* dz) const {
  const double x = z[0], y = z[1], u = z[2], w = z[3];
  const double lambda = -mass * (u * u + w * w - gravity * y) / (2.0 * (x * x + y * y));
  (*dz)[0] = u;
  (*dz)[1] = w;
  (*dz)[2] = 2.0 * x * lambda / mass;
  (*dz)[3] = -gravity + 2.0 * y * lambda / mass;
}

int HandPendulum::Project(State* z) const {
  const State target = *z;
  for (int iteration = 0; iteration <= max_iterations; ++iteration) {
    const double x = (*z)[0], y = (*z)[1], u = (*z)[2], w = (*z)[3];
    const double phi = x * x + y * y - length * length;
    const double h = 2.0 * (x * u + y * w);
    if (std::max(std::abs(phi), std::abs(h)) <= tolerance) return iteration;
    if (iteration == max_iterations) break;
    // Rows of H_z: a = (2x, 2y, 0, 0), b = (2u, 2w, 2x, 2y); gap = z̃ − z.
    const State gap = {target[0] - x, target[1] - y, target[2] - u, target[3] - w};
    const double ax = 2.0 * x, ay = 2.0 * y, bx = 2.0 * u, by = 2.0 * w;
    const double aa = ax * ax + ay * ay;
    const double ab = ax * bx + ay * by;
    const double bb = bx * bx + by * by + ax * ax + ay * ay;
    const double ra = -phi - (ax * gap[0] + ay * gap[1]);
    const double rb = -h - (bx * gap[0] + by * gap[1] + ax * gap[2] + ay * gap[3]);
    const double det = aa * bb - ab * ab;
    const double mu_a = (bb * ra - ab * rb) / det;
    const double mu_b = (aa * rb - ab * ra) / det;
    // z ← z + δz, δz = gap + H_zᵀ μ
    (*z)[0] = x + gap[0] + ax * mu_a + bx * mu_b;
    (*z)[1] = y + gap[1] + ay * mu_a + by * mu_b;
    (*z)[2] = u + gap[2] + ax * mu_b;
    (*z)[3] = w + gap[3] + ay * mu_b;
  }
  return -1;
}

int HandPendulum::Step(double h, State* z) const {
  State k1, k2, k3, k4, stage;
  auto at = [&](const State& k, double c) {
    for (std::size_t i = 0; i < 4; ++i) stage[i] = (*z)[i] + c * h * k[i];
    return stage;
  };
  Rhs(*z, &k1);
  Rhs(at(k1, 0.5), &k2);
  Rhs(at(k2, 0.5), &k3);
  Rhs(at(k3, 1.0), &k4);
  for (std::size_t i = 0; i < 4; ++i) (*z)[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
  return Project(z);
}

}  // namespace tether::bench
