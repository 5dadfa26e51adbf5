// Latin hypercube samples (McKay, Beckman & Conover, "A comparison of three methods for selecting
// values of input variables in the analysis of output from a computer code", Technometrics 21,
// 1979) for `tether sweep --latin`, reproducible from a seed in C++ and in the Python client
// (client/python/tether/design.py draws the same numbers).
//
// Each dimension's range [lo, hi] is cut into N equal strata; every stratum is used exactly once,
// in a random order, at a uniformly random point inside it:
//   for each dimension d, in order:
//     π_d = a Fisher–Yates shuffle of 0 … N−1 (for i = N−1 … 1: j = ⌊u·(i+1)⌋, swap π[i], π[j])
//     sample k: x_d,k = lo_d + (hi_d − lo_d) · (π_d(k) + u_k) / N
// with every u a fresh draw of SplitMix64::Uniform, in exactly this order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tether::cli {

// SplitMix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number generators", OOPSLA
// 2014): a 64-bit state advanced by the golden-ratio increment 0x9E3779B97F4A7C15, then mixed.
// Chosen over std::mt19937_64 because it is specified in a few lines, so the Python client
// reproduces it bit for bit.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t Next();
  // A double in [0, 1): the top 53 bits of Next() times 2⁻⁵³.
  double Uniform();

 private:
  std::uint64_t state_;
};

// One dimension of the hypercube.
struct LatinRange {
  std::string name;
  double lo = 0.0;
  double hi = 0.0;  // ≥ lo
};

// `samples` rows (≥ 1) over `ranges`, row k holding x_d,k for every d in order (header comment).
std::vector<std::vector<double>> LatinHypercube(const std::vector<LatinRange>& ranges,
                                                std::size_t samples, std::uint64_t seed);

}  // namespace tether::cli
