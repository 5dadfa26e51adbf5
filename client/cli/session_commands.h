// `tether sessions list|show|delete|control` and `tether health`: commands about a running server.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "cli/connection.h"

namespace tether::cli {

// `json`: the session resources as the API returns them ({"sessions": [...]}, one Session).
int SessionsListCommand(Connection& connection, bool json, std::ostream& out, std::ostream& err);
int SessionsShowCommand(Connection& connection, const std::string& session, bool json,
                        std::ostream& out, std::ostream& err);
int SessionsDeleteCommand(Connection& connection, const std::string& session, std::ostream& out,
                          std::ostream& err);
// ControlSession: `pause` ends the session's open stream at its next frame boundary; `set`
// (parameters) and `values` (state values), NAME=VALUE each, change it while it streams (or,
// without a stream, as an update). Prints the session's state and next sample index.
int SessionsControlCommand(Connection& connection, const std::string& session, bool pause,
                           const std::vector<std::string>& set,
                           const std::vector<std::string>& values, std::ostream& out,
                           std::ostream& err);
// Prints the serving status; kExitOk iff SERVING, kExitServerUnreachable otherwise (the
// Docker HEALTHCHECK's contract: zero means healthy).
int HealthCommand(Connection& connection, const std::string& service, std::ostream& out,
                  std::ostream& err);
// This binary's version and build, and with a server (`connection` not null) the server's
// version, build, methods and limits (GetServerInfo). `json`: {"client": {...}, "server": ServerInfo}.
int VersionCommand(Connection* connection, bool json, std::ostream& out, std::ostream& err);

}  // namespace tether::cli
