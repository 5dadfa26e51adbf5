// `tether models`, `tether describe MODEL`, `tether register FILE`: the model catalog as text.
#pragma once

#include <ostream>
#include <string>

#include "cli/connection.h"

namespace tether::cli {

// One line per model: name, form, origin (catalog or registered), title.
int ModelsCommand(Connection& connection, std::ostream& out, std::ostream& err);
// Variables with roles, units and initial values; parameters with defaults; invariants; the
// streamed columns; suggested run settings.
int DescribeCommand(Connection& connection, const std::string& model, std::ostream& out,
                    std::ostream& err);
// Validates and registers the spec in `file`. On an embedded server the model is validated but
// not kept (the server ends with the command), which the message says.
int RegisterCommand(Connection& connection, const std::string& file, std::ostream& out,
                    std::ostream& err);

}  // namespace tether::cli
