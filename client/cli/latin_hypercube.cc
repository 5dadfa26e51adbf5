#include "cli/latin_hypercube.h"

#include <algorithm>
#include <numeric>
#include <utility>

namespace tether::cli {

std::uint64_t SplitMix64::Next() {
  state_ += 0x9E3779B97F4A7C15ULL;
  std::uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

double SplitMix64::Uniform() {
  constexpr double kTwoToMinus53 =
      1.0 / 9007199254740992.0;  // 2⁻⁵³: 53 bits fill a double's mantissa
  return static_cast<double>(Next() >> 11) * kTwoToMinus53;
}

std::vector<std::vector<double>> LatinHypercube(const std::vector<LatinRange>& ranges,
                                                std::size_t samples, std::uint64_t seed) {
  if (samples == 0) return {};
  SplitMix64 rng(seed);
  std::vector<std::vector<double>> rows(samples, std::vector<double>(ranges.size()));
  std::vector<std::size_t> strata(samples);
  const double n = static_cast<double>(samples);
  for (std::size_t d = 0; d < ranges.size(); ++d) {
    std::iota(strata.begin(), strata.end(), std::size_t{0});
    for (std::size_t i = samples - 1; i > 0; --i) {
      // u·(i+1) < i+1 for u < 1; the min guards the rounding of a u within 2⁻⁵³ of 1.
      const auto j =
          std::min(static_cast<std::size_t>(rng.Uniform() * static_cast<double>(i + 1)), i);
      std::swap(strata[i], strata[j]);
    }
    const LatinRange& range = ranges[d];
    for (std::size_t k = 0; k < samples; ++k) {
      rows[k][d] =
          range.lo + (range.hi - range.lo) * ((static_cast<double>(strata[k]) + rng.Uniform()) / n);
    }
  }
  return rows;
}

}  // namespace tether::cli
