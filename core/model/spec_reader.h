// Reads and validates one JSON model spec (docs/models.md) into a `Model`, collecting every
// problem with its JSON path and, inside an expression, its column.
//
// Passes, in order: the JSON text; the document's fields; the names of every namespace
// (parameters, variables, definitions, outputs, constraint names); the count limits (a spec
// over a limit is refused before any expression is parsed); the definitions, their order and
// cycles; every other expression, with the names each position may use; initial values,
// units and suggested settings. Only a spec without problems is built: definitions are then
// substituted into every expression.
#pragma once

#include <string_view>

#include "tether/model/model.h"

namespace tether::model {

ModelResult ReadSpec(std::string_view json_text, const SpecLimits& limits);

}  // namespace tether::model
