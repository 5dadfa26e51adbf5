// `tether sessions list|show|delete` and `tether health`: commands about a running server.
#pragma once

#include <ostream>
#include <string>

#include "cli/connection.h"

namespace tether::cli {

int SessionsListCommand(Connection& connection, std::ostream& out, std::ostream& err);
int SessionsShowCommand(Connection& connection, const std::string& session, std::ostream& out,
                        std::ostream& err);
int SessionsDeleteCommand(Connection& connection, const std::string& session, std::ostream& out,
                          std::ostream& err);
// Prints the serving status; kExitOk iff SERVING, kExitServerUnreachable otherwise (the
// Docker HEALTHCHECK's contract: zero means healthy).
int HealthCommand(Connection& connection, const std::string& service, std::ostream& out,
                  std::ostream& err);

}  // namespace tether::cli
