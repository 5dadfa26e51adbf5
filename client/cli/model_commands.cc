#include "cli/model_commands.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "cli/exit_codes.h"
#include "cli/exit_status.h"
#include "cli/number_format.h"

namespace tether::cli {
namespace {

std::string BareName(const std::string& name) {
  const auto slash = name.find('/');
  return slash == std::string::npos ? name : name.substr(slash + 1);
}

std::string FormText(v1::ModelForm form) {
  switch (form) {
    case v1::MODEL_FORM_MECHANICAL: return "mechanical";
    case v1::MODEL_FORM_INDEX1: return "index1";
    case v1::MODEL_FORM_INDEX2: return "index2";
    case v1::MODEL_FORM_IMPLICIT: return "implicit";
    default: return "unspecified";
  }
}

std::string RoleText(v1::VariableRole role) {
  switch (role) {
    case v1::VARIABLE_ROLE_COORDINATE: return "coordinate";
    case v1::VARIABLE_ROLE_VELOCITY: return "velocity";
    case v1::VARIABLE_ROLE_DIFFERENTIAL: return "differential";
    case v1::VARIABLE_ROLE_ALGEBRAIC: return "algebraic";
    default: return "unspecified";
  }
}

std::string KindText(v1::ColumnKind kind) {
  switch (kind) {
    case v1::COLUMN_KIND_STATE: return "state";
    case v1::COLUMN_KIND_MULTIPLIER: return "multiplier";
    case v1::COLUMN_KIND_ALGEBRAIC: return "algebraic";
    case v1::COLUMN_KIND_OUTPUT: return "output";
    default: return "unspecified";
  }
}

std::string Unit(const std::string& unit) { return unit.empty() ? std::string() : " [" + unit + "]"; }

std::string Pad(std::string text, std::size_t width) {
  if (text.size() < width) text.resize(width, ' ');
  return text;
}

// The structural analysis of an implicit model: index, what is differentiated, what is solved.
void PrintAnalysis(const v1::ImplicitAnalysis& analysis, std::ostream& out) {
  out << "  analysis: structural index " << analysis.structural_index() << ", "
      << analysis.degrees_of_freedom() << " degrees of freedom\n";
  for (const v1::AnalyzedEquation& e : analysis.equations()) {
    out << "    " << Pad(e.name(), 20) << " differentiated " << e.differentiations()
        << (e.differentiations() == 1 ? " time" : " times");
    if (!e.assigned_variable().empty()) out << ", determines " << e.assigned_variable();
    if (!e.defines_derivative_of().empty()) out << ", defines der(" << e.defines_derivative_of() << ")";
    if (e.derivatives_eliminated()) out << ", dependent derivatives eliminated";
    out << '\n';
  }
  out << "    states:";
  for (const std::string& name : analysis.states()) out << " " << name;
  out << "\n    solved in every stage:";
  for (const std::string& name : analysis.algebraics()) out << " " << name;
  out << '\n';
  for (int level = 0; level < analysis.invariant_levels_size(); ++level) {
    out << "    invariants, level " << level << ":";
    for (const std::string& name : analysis.invariant_levels(level).invariants()) out << " " << name;
    out << '\n';
  }
}

void PrintModel(const v1::Model& model, std::ostream& out) {
  out << BareName(model.name()) << " — " << model.title() << '\n'
      << "  form: " << FormText(model.form()) << (model.builtin() ? " (catalog)" : " (registered)")
      << '\n';
  if (!model.description().empty()) out << "  " << model.description() << '\n';
  out << "  variables:\n";
  for (const v1::Variable& v : model.variables()) {
    out << "    " << Pad(v.name() + Unit(v.unit()), 20) << " " << Pad(RoleText(v.role()), 12)
        << " initial " << FormatShort(v.initial_value(), 10) << '\n';
  }
  out << "  parameters:\n";
  if (model.parameters().empty()) out << "    (none)\n";
  for (const v1::Parameter& p : model.parameters()) {
    out << "    " << Pad(p.name() + Unit(p.unit()), 20) << " default "
        << FormatShort(p.default_value(), 10) << '\n';
  }
  out << "  invariants:";
  for (const std::string& invariant : model.invariants()) out << " " << invariant;
  out << '\n';
  if (model.has_implicit_analysis()) PrintAnalysis(model.implicit_analysis(), out);
  out << "  columns:";
  for (const v1::Column& column : model.columns()) {
    out << " " << column.name() << "(" << KindText(column.kind()) << ")";
  }
  out << "\n  suggested: t_end "
      << (model.has_suggested_t_end() ? FormatShort(model.suggested_t_end(), 10) + " s" : "10 s (default)")
      << ", output interval "
      << (model.has_suggested_output_interval()
              ? FormatShort(model.suggested_output_interval(), 10) + " s"
              : "0.01 s (default)")
      << '\n';
}

}  // namespace

int ModelsCommand(Connection& connection, std::ostream& out, std::ostream& err) {
  auto models = connection.client().ListAllModels();
  if (!models.ok()) return ReportError(err, "models (" + connection.description() + ")", models.error());
  std::size_t width = 4;
  for (const v1::Model& m : *models) width = std::max(width, BareName(m.name()).size());
  out << Pad("NAME", width) << "  " << Pad("FORM", 10) << "  " << Pad("ORIGIN", 10) << "  TITLE\n";
  for (const v1::Model& m : *models) {
    out << Pad(BareName(m.name()), width) << "  " << Pad(FormText(m.form()), 10) << "  "
        << Pad(m.builtin() ? "catalog" : "registered", 10) << "  " << m.title() << '\n';
  }
  return kExitOk;
}

int DescribeCommand(Connection& connection, const std::string& model, std::ostream& out,
                    std::ostream& err) {
  auto result = connection.client().GetModel(model);
  if (!result.ok()) return ReportError(err, "describe " + model, result.error());
  PrintModel(*result, out);
  return kExitOk;
}

int RegisterCommand(Connection& connection, const std::string& file, std::ostream& out,
                    std::ostream& err) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    err << "tether: register: cannot read '" << file << "': " << std::strerror(errno) << '\n';
    return kExitUsageError;
  }
  std::ostringstream text;
  text << in.rdbuf();
  auto result = connection.client().RegisterModel(text.str());
  if (!result.ok()) return ReportError(err, "register " + file, result.error());
  out << "registered " << result->name() << " (" << FormText(result->form()) << ", "
      << result->variables_size() << " variables)\n";
  if (connection.embedded()) {
    err << "tether: the spec is valid; an embedded server does not keep it — use --server "
           "HOST:PORT to register it with a running server\n";
  }
  return kExitOk;
}

}  // namespace tether::cli
