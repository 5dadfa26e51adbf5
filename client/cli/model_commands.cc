#include "cli/model_commands.h"

#include <algorithm>

#include "cli/enum_text.h"
#include "cli/exit_codes.h"
#include "cli/exit_status.h"
#include "cli/number_format.h"
#include "cli/proto_json.h"
#include "cli/spec_text.h"

namespace tether::cli {
namespace {

std::string BareName(const std::string& name) {
  const auto slash = name.find('/');
  return slash == std::string::npos ? name : name.substr(slash + 1);
}

std::string Unit(const std::string& unit) { return unit.empty() ? std::string() : " [" + unit + "]"; }

std::string Pad(std::string text, std::size_t width) {
  if (text.size() < width) text.resize(width, ' ');
  return text;
}

// The values a session may give the parameter: "[0.01, 10]", ">= 0", "<= 5"; "" when any.
std::string RangeText(const v1::Parameter& p) {
  if (p.has_minimum() && p.has_maximum()) {
    return "[" + FormatShort(p.minimum(), 10) + ", " + FormatShort(p.maximum(), 10) + "]";
  }
  if (p.has_minimum()) return ">= " + FormatShort(p.minimum(), 10);
  if (p.has_maximum()) return "<= " + FormatShort(p.maximum(), 10);
  return "";
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
    std::string line = "    " + Pad(p.name() + Unit(p.unit()), 20) + " default " +
                       Pad(FormatShort(p.default_value(), 10), 10);
    const std::string range = RangeText(p);
    line += range.empty() ? Pad("", 24) : " range " + Pad(range, 17);
    if (!p.description().empty()) line += "  " + p.description();
    line.erase(line.find_last_not_of(' ') + 1);
    out << line << '\n';
  }
  out << "  invariants:";
  for (const std::string& invariant : model.invariants()) out << " " << invariant;
  if (model.invariants().empty()) out << " (none)";
  out << '\n';
  if (!model.inequalities().empty()) {
    out << "  inequalities:\n";
    for (int i = 0; i < model.inequalities_size(); ++i) {
      out << "    mu_" << (i + 1) << ": " << model.inequalities(i) << " >= 0\n";
    }
  }
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

int ModelsCommand(Connection& connection, bool json, std::ostream& out, std::ostream& err) {
  auto models = connection.client().ListAllModels();
  if (!models.ok()) return ReportError(err, "models (" + connection.description() + ")", models.error());
  if (json) {
    v1::ListModelsResponse all;
    for (const v1::Model& m : *models) *all.add_models() = m;
    out << ProtoJson(all);
    return kExitOk;
  }
  std::size_t width = 4;
  for (const v1::Model& m : *models) width = std::max(width, BareName(m.name()).size());
  out << Pad("NAME", width) << "  " << Pad("FORM", 10) << "  " << Pad("ORIGIN", 10) << "  TITLE\n";
  for (const v1::Model& m : *models) {
    out << Pad(BareName(m.name()), width) << "  " << Pad(FormText(m.form()), 10) << "  "
        << Pad(m.builtin() ? "catalog" : "registered", 10) << "  " << m.title() << '\n';
  }
  return kExitOk;
}

int DescribeCommand(Connection& connection, const std::string& model, bool json,
                    std::ostream& out, std::ostream& err) {
  auto result = connection.client().GetModel(model);
  if (!result.ok()) return ReportError(err, "describe " + model, result.error());
  if (json) {
    out << ProtoJson(*result);
  } else {
    PrintModel(*result, out);
  }
  return kExitOk;
}

int RegisterCommand(Connection& connection, const std::string& file, bool replace,
                    std::ostream& out, std::ostream& err) {
  std::string text;
  if (std::string why; !ReadSpecText(file, &text, &why)) {
    err << "tether: register: " << why << '\n';
    return kExitUsageError;
  }
  auto result = connection.client().RegisterModel(std::move(text), replace);
  if (!result.ok()) return ReportError(err, "register " + file, result.error());
  out << (replace ? "registered (replacing any earlier) " : "registered ") << result->name()
      << " (" << FormText(result->form()) << ", " << result->variables_size() << " variables)\n";
  if (connection.embedded()) {
    err << "tether: the spec is valid; an embedded server does not keep it — use --server "
           "HOST:PORT to register it with a running server\n";
  }
  return kExitOk;
}

int ModelsDeleteCommand(Connection& connection, const std::string& model, std::ostream& out,
                        std::ostream& err) {
  auto result = connection.client().DeleteModel(model);
  if (!result.ok()) return ReportError(err, "models delete " + model, result.error());
  out << "deleted " << client::ModelName(model) << '\n';
  return kExitOk;
}

int ValidateCommand(Connection& embedded, const std::string& file, std::ostream& out,
                    std::ostream& err) {
  std::string text;
  if (std::string why; !ReadSpecText(file, &text, &why)) {
    err << "tether: validate: " << why << '\n';
    return kExitUsageError;
  }
  auto result = embedded.client().RegisterModel(std::move(text));
  if (result.error().code == grpc::StatusCode::ALREADY_EXISTS) {  // every rule passed first
    out << "valid; " << result.error().message
        << ": `register` would be refused (rename it), `run --spec` works\n";
    return kExitOk;
  }
  if (!result.ok()) return ReportError(err, "validate " + file, result.error());
  out << "valid: " << BareName(result->name()) << " (" << FormText(result->form()) << ", "
      << result->variables_size() << " variables, " << result->invariants_size()
      << " invariants";
  if (result->inequalities_size() > 0) out << ", " << result->inequalities_size() << " inequalities";
  if (result->has_implicit_analysis()) {
    out << ", structural index " << result->implicit_analysis().structural_index();
  }
  out << ")\n";
  return kExitOk;
}

}  // namespace tether::cli
