#include "tether/expr/suggest.h"

#include <algorithm>
#include <vector>

namespace tether::expr {

std::size_t EditDistance(std::string_view a, std::string_view b) {
  // Three rows of the dynamic-programming table: i−2, i−1 and i.
  const std::size_t n = b.size();
  std::vector<std::size_t> before(n + 1), previous(n + 1), current(n + 1);
  for (std::size_t j = 0; j <= n; ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= n; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        current[j] = std::min(current[j], before[j - 2] + 1);
      }
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[n];
}

namespace {

bool EqualIgnoringCase(std::string_view a, std::string_view b) {
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [&](char x, char y) {
           return lower(x) == lower(y);
         });
}

}  // namespace

std::string ClosestName(std::string_view name, std::span<const std::string> candidates) {
  for (const std::string& candidate : candidates) {
    if (candidate != name && EqualIgnoringCase(candidate, name)) return candidate;
  }
  constexpr std::size_t kMaxDistance = 2;
  std::string best;
  std::size_t best_distance = kMaxDistance + 1;
  for (const std::string& candidate : candidates) {
    const std::size_t distance = EditDistance(name, candidate);
    const std::size_t longer = std::max(name.size(), candidate.size());
    if (distance < best_distance && distance < longer && distance > 0) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::string DidYouMean(std::string_view name, std::span<const std::string> candidates) {
  const std::string best = ClosestName(name, candidates);
  return best.empty() ? std::string() : " (did you mean '" + best + "'?)";
}

}  // namespace tether::expr
