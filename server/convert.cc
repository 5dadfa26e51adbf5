#include "convert.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>

#include "tether/integrate/stepper.h"

namespace tether::server {
namespace {

v1::VariableRole RoleToProto(model::StateRole role) {
  switch (role) {
    case model::StateRole::kCoordinate: return v1::VARIABLE_ROLE_COORDINATE;
    case model::StateRole::kVelocity: return v1::VARIABLE_ROLE_VELOCITY;
    case model::StateRole::kDifferential: return v1::VARIABLE_ROLE_DIFFERENTIAL;
    case model::StateRole::kAlgebraic: return v1::VARIABLE_ROLE_ALGEBRAIC;
  }
  return v1::VARIABLE_ROLE_UNSPECIFIED;
}

// A form's wire value is named after it: "index1" is MODEL_FORM_INDEX1.
v1::ModelForm FormToProto(model::Form form) {
  std::string name = "MODEL_FORM_";
  for (char c : model::FormName(form)) {
    name += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  v1::ModelForm value = v1::MODEL_FORM_UNSPECIFIED;
  return v1::ModelForm_Parse(name, &value) ? value : v1::MODEL_FORM_UNSPECIFIED;
}

v1::ColumnKind KindToProto(simulate::ColumnKind kind) {
  switch (kind) {
    case simulate::ColumnKind::kState: return v1::COLUMN_KIND_STATE;
    case simulate::ColumnKind::kMultiplier: return v1::COLUMN_KIND_MULTIPLIER;
    case simulate::ColumnKind::kAlgebraic: return v1::COLUMN_KIND_ALGEBRAIC;
    case simulate::ColumnKind::kOutput: return v1::COLUMN_KIND_OUTPUT;
    case simulate::ColumnKind::kInequalityMultiplier: return v1::COLUMN_KIND_INEQUALITY_MULTIPLIER;
    case simulate::ColumnKind::kActive: return v1::COLUMN_KIND_ACTIVE;
  }
  return v1::COLUMN_KIND_UNSPECIFIED;
}

void AnalysisToProto(const model::Model& model, v1::ImplicitAnalysis* out) {
  const model::ImplicitForm& form = *model.implicit;
  const structure::StructureReport& report = form.report;
  out->set_structural_index(report.structural_index);
  out->set_degrees_of_freedom(static_cast<std::uint32_t>(report.degrees_of_freedom));
  auto variable_name = [&form](std::size_t j) {
    return j < form.variables.size() ? form.variables[j].name : std::string();
  };
  for (const structure::EquationReport& e : report.equations) {
    v1::AnalyzedEquation* equation = out->add_equations();
    equation->set_name(e.name);
    equation->set_differentiations(e.differentiations);
    equation->set_assigned_variable(variable_name(e.assigned_variable));
    equation->set_defines_derivative_of(variable_name(e.defines_derivative_of));
    equation->set_derivatives_eliminated(e.derivatives_eliminated);
  }
  for (const model::Variable& v : model.differential) out->add_states(v.name);
  for (const model::Variable& v : model.algebraic) out->add_algebraics(v.name);
  for (const std::vector<std::string>& names : form.invariant_names) {
    v1::InvariantLevel* level = out->add_invariant_levels();
    for (const std::string& name : names) level->add_invariants(name);
  }
}

void Violation(std::vector<FieldViolation>* violations, std::string field, int value) {
  violations->push_back({std::move(field), "unknown enum value " + std::to_string(value)});
}

}  // namespace

std::string_view StripPrefix(std::string_view name, std::string_view prefix) {
  if (name.substr(0, prefix.size()) == prefix) name.remove_prefix(prefix.size());
  return name;
}

v1::Model ModelToProto(const model::Model& model, bool builtin,
                       const std::vector<simulate::Column>& columns) {
  v1::Model out;
  out.set_name(std::string(kModelPrefix) + model.name);
  out.set_title(model.title);
  out.set_description(model.description);
  out.set_form(FormToProto(model.form));
  out.set_builtin(builtin);
  const std::vector<const model::Variable*> states = model.states();
  const std::vector<model::StateRole> roles = model.state_roles();
  for (std::size_t i = 0; i < states.size(); ++i) {
    const model::Variable* v = states[i];
    v1::Variable* variable = out.add_variables();
    variable->set_name(v->name);
    variable->set_unit(v->unit);
    variable->set_role(RoleToProto(roles[i]));
    const auto initial = model.initial.find(v->name);
    variable->set_initial_value(initial == model.initial.end() ? 0.0 : initial->second);
  }
  for (const model::Parameter& p : model.parameters) {
    v1::Parameter* parameter = out.add_parameters();
    parameter->set_name(p.name);
    parameter->set_unit(p.unit);
    parameter->set_default_value(p.value);
    parameter->set_description(p.description);
    if (p.minimum) parameter->set_minimum(*p.minimum);
    if (p.maximum) parameter->set_maximum(*p.maximum);
  }
  for (const std::string& name : model::SpecOf(model.form).DescribedInvariants(model)) {
    out.add_invariants(name);
  }
  if (model.implicit) AnalysisToProto(model, out.mutable_implicit_analysis());
  for (const expr::Expr& c : model.inequalities) out.add_inequalities(model.context->ToString(c));
  for (const simulate::Column& c : columns) ColumnToProto(c, out.add_columns());
  if (model.t_end) out.set_suggested_t_end(*model.t_end);
  if (model.output_interval) out.set_suggested_output_interval(*model.output_interval);
  return out;
}

void TimestampToProto(std::chrono::system_clock::time_point time, google::protobuf::Timestamp* out) {
  const auto nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(time.time_since_epoch()).count();
  out->set_seconds(nanos / 1'000'000'000);
  out->set_nanos(static_cast<std::int32_t>(nanos % 1'000'000'000));
}

void ColumnToProto(const simulate::Column& column, v1::Column* out) {
  out->set_name(column.name);
  out->set_unit(column.unit);
  out->set_kind(KindToProto(column.kind));
}

void StatisticsToProto(const simulate::Statistics& s, v1::Statistics* out) {
  out->set_steps(s.steps);
  out->set_rejected_steps(s.rejected_steps);
  out->set_rhs_evaluations(s.rhs_evaluations);
  out->set_projections(s.projections);
  out->set_projection_iterations(s.projection_iterations);
  out->set_samples(s.samples);
  out->set_max_residual_position(s.max_residual_position);
  out->set_max_residual_velocity(s.max_residual_velocity);
  out->set_cpu_seconds(s.cpu_seconds);
  out->set_switches(s.switches);
  out->set_max_residual_inequality(s.max_residual_inequality);
  out->set_non_finite_outputs(s.non_finite_outputs);
  out->set_jacobian_evaluations(s.jacobian_evaluations);
  out->set_lu_factorizations(s.lu_factorizations);
  out->set_newton_iterations(s.newton_iterations);
}

void InitializationToProto(const simulate::InitializationReport& report,
                           v1::InitializationReport* out) {
  for (const auto& change : report.changes) {
    auto* entry = out->add_changes();
    entry->set_name(change.name);
    entry->set_given(change.given);
    entry->set_corrected(change.corrected);
  }
  out->set_residual_position_before(report.residual_position_before);
  out->set_residual_velocity_before(report.residual_velocity_before);
  out->set_residual_position_after(report.residual_position_after);
  out->set_residual_velocity_after(report.residual_velocity_after);
  out->set_iterations(report.iterations);
  out->set_summary(report.ToString());
}

void OptionsToProto(const simulate::Options& o, v1::SimulationOptions* out) {
  out->set_method(o.method);
  out->set_step(o.step);
  out->set_rtol(o.rtol);
  out->set_atol(o.atol);
  out->mutable_atol_by_variable()->insert(o.atol_by_variable.begin(), o.atol_by_variable.end());
  out->set_max_step(o.max_step);
  switch (o.projection) {
    case simulate::Projection::kNone: out->set_projection(v1::PROJECTION_METHOD_NONE); break;
    case simulate::Projection::kBaumgarte: out->set_projection(v1::PROJECTION_METHOD_BAUMGARTE); break;
    case simulate::Projection::kCoupled: out->set_projection(v1::PROJECTION_METHOD_COUPLED); break;
    case simulate::Projection::kSequential: out->set_projection(v1::PROJECTION_METHOD_SEQUENTIAL); break;
  }
  switch (o.metric) {
    case simulate::Metric::kEuclidean: out->set_metric(v1::PROJECTION_METRIC_EUCLIDEAN); break;
    case simulate::Metric::kMass: out->set_metric(v1::PROJECTION_METRIC_MASS); break;
    case simulate::Metric::kWeighted: out->set_metric(v1::PROJECTION_METRIC_WEIGHTED); break;
  }
  out->set_newton(o.newton == simulate::NewtonVariant::kSimplified ? v1::NEWTON_VARIANT_SIMPLIFIED
                                                                   : v1::NEWTON_VARIANT_FULL);
  out->set_algebraic(o.algebraic == simulate::AlgebraicMode::kOde ? v1::ALGEBRAIC_MODE_ODE
                                                                  : v1::ALGEBRAIC_MODE_SOLVE);
  out->set_projection_tolerance(o.projection_tolerance);
  out->set_max_newton_iterations(o.max_newton_iterations);
  out->set_max_initialization_iterations(o.max_initialization_iterations);
  out->set_baumgarte_alpha(o.baumgarte_alpha);
  out->set_baumgarte_beta(o.baumgarte_beta);
  out->set_output_interval(o.output_interval);
  out->set_t_end(o.t_end);
  out->set_max_steps(o.max_steps);
  out->set_error_control(o.error_control);
  out->set_switch_detection(o.switch_detection);
  out->set_switch_tolerance(o.switch_tolerance);
  out->set_max_switches(o.max_switches);
  out->set_chattering_window(o.chattering_window);
}

simulate::Options OptionsFromProto(const v1::SimulationOptions& p, const model::Model& model,
                                   std::vector<FieldViolation>* violations) {
  simulate::Options o;
  if (!p.method().empty()) {
    const auto names = simulate::MethodNames();
    if (std::find(names.begin(), names.end(), p.method()) == names.end()) {
      std::string known;
      for (std::string_view n : names) known += (known.empty() ? "" : ", ") + std::string(n);
      violations->push_back(
          {"options.method", "unknown method " + Quote(p.method()) + " (known: " + known + ")"});
    }
    o.method = p.method();
  }
  if (p.has_step()) o.step = p.step();
  if (p.has_rtol()) o.rtol = p.rtol();
  if (p.has_atol()) o.atol = p.atol();
  o.atol_by_variable.insert(p.atol_by_variable().begin(), p.atol_by_variable().end());
  if (p.has_max_step()) o.max_step = p.max_step();
  switch (p.projection()) {
    case v1::PROJECTION_METHOD_UNSPECIFIED: break;
    case v1::PROJECTION_METHOD_NONE: o.projection = simulate::Projection::kNone; break;
    case v1::PROJECTION_METHOD_BAUMGARTE: o.projection = simulate::Projection::kBaumgarte; break;
    case v1::PROJECTION_METHOD_COUPLED: o.projection = simulate::Projection::kCoupled; break;
    case v1::PROJECTION_METHOD_SEQUENTIAL: o.projection = simulate::Projection::kSequential; break;
    default: Violation(violations, "options.projection", p.projection());
  }
  switch (p.metric()) {
    case v1::PROJECTION_METRIC_UNSPECIFIED: break;
    case v1::PROJECTION_METRIC_EUCLIDEAN: o.metric = simulate::Metric::kEuclidean; break;
    case v1::PROJECTION_METRIC_MASS: o.metric = simulate::Metric::kMass; break;
    case v1::PROJECTION_METRIC_WEIGHTED: o.metric = simulate::Metric::kWeighted; break;
    default: Violation(violations, "options.metric", p.metric());
  }
  switch (p.newton()) {
    case v1::NEWTON_VARIANT_UNSPECIFIED: break;
    case v1::NEWTON_VARIANT_FULL: o.newton = simulate::NewtonVariant::kFull; break;
    case v1::NEWTON_VARIANT_SIMPLIFIED: o.newton = simulate::NewtonVariant::kSimplified; break;
    default: Violation(violations, "options.newton", p.newton());
  }
  switch (p.algebraic()) {
    case v1::ALGEBRAIC_MODE_UNSPECIFIED: break;
    case v1::ALGEBRAIC_MODE_SOLVE: o.algebraic = simulate::AlgebraicMode::kSolve; break;
    case v1::ALGEBRAIC_MODE_ODE: o.algebraic = simulate::AlgebraicMode::kOde; break;
    default: Violation(violations, "options.algebraic", p.algebraic());
  }
  if (p.has_projection_tolerance()) o.projection_tolerance = p.projection_tolerance();
  if (p.has_max_newton_iterations()) o.max_newton_iterations = p.max_newton_iterations();
  if (p.has_max_initialization_iterations()) {
    o.max_initialization_iterations = p.max_initialization_iterations();
  }
  if (p.has_baumgarte_alpha()) o.baumgarte_alpha = p.baumgarte_alpha();
  if (p.has_baumgarte_beta()) o.baumgarte_beta = p.baumgarte_beta();
  o.output_interval = p.has_output_interval() ? p.output_interval()
                                              : model.output_interval.value_or(o.output_interval);
  o.t_end = p.has_t_end() ? p.t_end() : model.t_end.value_or(o.t_end);
  if (p.has_max_steps()) o.max_steps = p.max_steps();
  if (p.has_error_control()) o.error_control = p.error_control();
  if (p.has_switch_detection()) o.switch_detection = p.switch_detection();
  if (p.has_switch_tolerance()) o.switch_tolerance = p.switch_tolerance();
  if (p.has_max_switches()) o.max_switches = p.max_switches();
  if (p.has_chattering_window()) o.chattering_window = p.chattering_window();
  return o;
}

std::map<std::string, double> ToMap(const google::protobuf::Map<std::string, double>& map) {
  return {map.begin(), map.end()};
}

}  // namespace tether::server
