// The exit codes of the `tether` CLI, documented in `tether --help` (kExitCodeHelp).
#pragma once

namespace tether::cli {

inline constexpr int kExitOk = 0;                 // the command completed (a run reached t_end, a stream paused)
inline constexpr int kExitSimulationFailed = 1;   // a run ended early, or the server refused the request
inline constexpr int kExitUsageError = 2;         // bad option, bad spec or bad request: every problem listed
inline constexpr int kExitServerUnreachable = 3;  // no server at --server / TETHER_SERVER, or not serving

// The footer of `tether --help`.
inline constexpr const char* kExitCodeHelp =
    "Exit codes:\n"
    "  0  done (a run reached t_end; stream: the horizon or a pause; view: a stop condition or\n"
    "     the session's deletion; health: the server is SERVING)\n"
    "  1  the simulation failed (the message names t and the cause) or the server refused the\n"
    "     request (an unknown model or session, a taken name, a limit reached)\n"
    "  2  usage or spec error (every problem is listed with its path)\n"
    "  3  server unreachable (or, for `health`, not SERVING)\n";

}  // namespace tether::cli
