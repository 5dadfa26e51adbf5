// What the CLI's terminal output needs to know of the terminal: its width, and lines and bars
// that fit it (a line wider than the terminal wraps, and "\r" then redraws only its last part).
#pragma once

#include <string>
#include <vector>

namespace tether::cli {

// Used when the width cannot be read (not a terminal, no $COLUMNS).
inline constexpr int kDefaultTerminalColumns = 80;

// Columns of the terminal on file descriptor `fd` (TIOCGWINSZ); else $COLUMNS if it is a
// positive integer; else kDefaultTerminalColumns.
int TerminalColumns(int fd);

// `parts` joined by two blanks, fitting in `columns` − 1 characters (the last column stays free,
// so the cursor never wraps): trailing parts are dropped while the line is too long, and a first
// part too long alone is cut. Widths count bytes: the parts are ASCII.
std::string FitLine(const std::vector<std::string>& parts, int columns);

// "[####......]" with `inner` characters between the brackets, `fraction` ∈ [0, 1] of them '#'.
std::string DrawBar(double fraction, int inner);

// Widths between a progress bar's brackets: as wide as the text leaves, within these bounds.
inline constexpr int kMaxBarWidth = 30;
inline constexpr int kMinBarWidth = 10;

// A progress line of `columns`: a bar of `fraction`, then `parts` (most important first), as
// FitLine joins them. The bar shrinks first (to kMinBarWidth), then trailing parts are dropped,
// and on a terminal too narrow for the bar and the first part the bar goes too.
std::string ProgressLine(double fraction, const std::vector<std::string>& parts, int columns);

}  // namespace tether::cli
