// `tether models [delete NAME]`, `tether describe MODEL`, `tether register FILE`,
// `tether validate FILE`: the model catalog as text, or as JSON (--json) for scripts.
#pragma once

#include <ostream>
#include <string>

#include "cli/connection.h"

namespace tether::cli {

// One line per model: name, form, origin (catalog or registered), title. `json`: every
// model resource, {"models": [...]}.
int ModelsCommand(Connection& connection, bool json, std::ostream& out, std::ostream& err);
// Variables with roles, units and initial values; parameters with defaults; invariants and
// inequalities; the streamed columns with their kinds; suggested run settings. `json`: the
// model resource.
int DescribeCommand(Connection& connection, const std::string& model, bool json,
                    std::ostream& out, std::ostream& err);
// Validates and registers the spec in `file` ("-" = standard input); `replace` swaps a
// registered model of the same name. On an embedded server the model is validated but not
// kept (the server ends with the command), which the message says.
int RegisterCommand(Connection& connection, const std::string& file, bool replace,
                    std::ostream& out, std::ostream& err);
// Removes a registered model.
int ModelsDeleteCommand(Connection& connection, const std::string& model, std::ostream& out,
                        std::ostream& err);
// Checks the spec in `file` ("-" = standard input) with every rule the server applies, on an
// embedded server (no running server needed): kExitOk and a one-line summary, or
// kExitUsageError with every problem by path.
int ValidateCommand(Connection& embedded, const std::string& file, std::ostream& out,
                    std::ostream& err);

}  // namespace tether::cli
