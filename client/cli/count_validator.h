// A CLI option that takes a count, checked on its text. CLI11 converts "-5" to 2⁶⁴ − 5 for an
// unsigned option, so a negative count would otherwise run as a huge one.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <limits>

namespace tether::cli {

// Accepts the decimal whole numbers least..most; refuses anything else with
// "must be a whole number from 1 to 18446744073709551615, not -5".
CLI::Validator WholeNumberIn(std::uint64_t least,
                             std::uint64_t most = std::numeric_limits<std::uint64_t>::max());

}  // namespace tether::cli
