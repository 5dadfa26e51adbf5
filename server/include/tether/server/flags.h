// The command-line flags of the server, defined once for tether-server and `tether serve`:
// every ServerConfig field as a flag, each also read from its TETHER_* environment variable.
//
//   CLI::App app{"..."};
//   tether::server::ServerFlags flags;
//   tether::server::AddServerFlags(&app, &flags);
//   try { app.parse(argc, argv); } catch (const CLI::ParseError& e) {
//     return tether::server::ReportFlagError(app, e, argc, argv, "tether-server");
//   }
//   tether::server::ServerConfig config;
//   if (std::string why; !flags.Resolve(&config, &why)) { ...; return 2; }
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tether/server/server.h"

namespace CLI {
class App;
class ParseError;
}  // namespace CLI

namespace tether::server {

// The flags' values. Durations are in the flags' units (seconds, milliseconds) until Resolve.
struct ServerFlags {
  ServerConfig config;
  std::int64_t session_ttl_s = 3600;  // --session-ttl [s]
  std::int64_t drain_grace_ms = 5000;  // --drain-grace [ms]
  std::int64_t tls_refresh_s = 60;     // --tls-refresh [s]
  bool quiet = false;                  // --quiet: no per-RPC log lines
  std::string log_level = "info";      // --log-level: debug, info, warn, error

  // The ServerConfig the flags describe; false and *why ("ServerConfig::max_sessions = 0; …")
  // if it is invalid.
  bool Resolve(ServerConfig* out, std::string* why) const;
};

// Adds every server flag (with its environment variable and default) to `app`.
void AddServerFlags(CLI::App* app, ServerFlags* flags);

// The spec-size limits among those flags (--max-spec-bytes, --max-spec-variables, …): their
// names, environment variables, ServerConfig fields and help, defined here once.
struct SpecLimitFlag {
  std::string_view flag;  // "--max-spec-variables"
  std::string_view env;   // "TETHER_MAX_SPEC_VARIABLES"
  std::size_t ServerConfig::*field;
  std::string_view help;
};
std::span<const SpecLimitFlag> SpecLimitFlags();

// Sets the fields of SpecLimitFlags() from those of their environment variables that are set:
// the CLI's embedded server reads these (and no other server variable), so that a local run can
// take a model larger than the defaults. False, naming the variable, if a value is not an
// integer >= 1. A null `config` only checks the values.
bool ApplySpecLimitEnvironment(ServerConfig* config, std::string* why);

// CLI11 names the option of a bad value, not the environment variable it came from: one line
// per option of `app` that `error` names, that is not on the command line and whose variable is
// set, "--max-sessions came from the environment variable TETHER_MAX_SESSIONS='abc'".
std::vector<std::string> EnvironmentSources(const CLI::App& app, const CLI::ParseError& error,
                                            int argc, const char* const* argv);
// Prints a parse error as CLI11 does, then EnvironmentSources; returns the exit code: 2 for a
// bad command line (CLI11's own codes, 105 for a bad value, 109 for an unknown flag, … are
// not a contract), 0 for --help.
int ReportFlagError(const CLI::App& app, const CLI::ParseError& error, int argc,
                    const char* const* argv, std::string_view program);

// `tether-server hash-token --tenant NAME`: reads a token from the first line of `in` (not from
// the command line, where other users' `ps` would see it) and writes its token file line
// TENANT:SALT:HASH to `out`; returns 0, or 2 with the reason on `err`.
int HashTokenCommand(const std::string& tenant, std::istream& in, std::ostream& out,
                     std::ostream& err);

// "tether 0.1.0 (commit abc1234, Release, GNU 12.2.0)": the build this binary came from.
std::string VersionText(std::string_view program);

}  // namespace tether::server
