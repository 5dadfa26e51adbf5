// "Did you mean" suggestions for misspelt names, fields and options: the one edit distance
// of the code base (the expression parser, the spec reader and the session setup all use it).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace tether::expr {

// Optimal-string-alignment distance: insertions, deletions, substitutions and transpositions
// of adjacent characters each cost 1, so "lenght" is 1 from "length".
std::size_t EditDistance(std::string_view a, std::string_view b);

// The first candidate that differs from `name` only in letter case ("L1" → "l1", not "m1");
// else the candidate closest to `name` if it is at most 2 edits away and fewer edits than the
// longer name has characters (so "x" never suggests "y", but "mm" suggests "m"); ties go to
// the earlier candidate.
// Returns "" when nothing is close.
std::string ClosestName(std::string_view name, std::span<const std::string> candidates);

// " (did you mean 'length'?)" or "" when `ClosestName` finds nothing.
std::string DidYouMean(std::string_view name, std::span<const std::string> candidates);

}  // namespace tether::expr
