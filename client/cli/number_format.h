// Text forms of doubles shared by the CSV, JSONL and table writers.
#pragma once

#include <string>

namespace tether::cli {

// The shortest decimal text that parses back to exactly `value` (std::to_chars without a
// precision), so CSV and JSONL round-trip bit for bit. Non-finite values: "nan", "inf", "-inf".
std::string FormatExact(double value);

// JSON has no NaN or infinity: those become `null`; finite values as FormatExact.
std::string FormatJson(double value);

// `significant` significant digits (%.*g), for human-readable tables and axis labels.
std::string FormatShort(double value, int significant);

}  // namespace tether::cli
