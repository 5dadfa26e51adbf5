#include "simulate/setup_validation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "simulate/number_text.h"
#include "tether/expr/quote.h"
#include "tether/expr/suggest.h"
#include "tether/integrate/stepper.h"
#include "tether/reduce/formulation.h"
#include "tether/simulate/overrides.h"

namespace tether::simulate {
namespace {

void Add(std::vector<SetupProblem>* problems, std::string path, std::string message) {
  problems->push_back({std::move(path), std::move(message)});
}

std::vector<std::string> StateNames(const model::Model& model) {
  std::vector<std::string> names;
  for (const model::Variable* v : model.states()) names.push_back(v->name);
  return names;
}

bool IsAlgebraic(const model::Model& model, const std::string& name) {
  return std::any_of(model.algebraic.begin(), model.algebraic.end(),
                     [&](const model::Variable& v) { return v.name == name; });
}

}  // namespace

std::string DidYouMean(std::string_view name, const std::vector<std::string>& candidates) {
  return expr::DidYouMean(name, candidates);
}

double MinStepRelative(const Options& o) {
  const double standard = integrate::StepperOptions{}.min_step_relative;
  // t0 = 0: the horizon is t_end.
  if (!(std::isfinite(o.t_end) && o.t_end > 0.0 && o.t_end < 1.0)) return standard;
  // Kept > 0 (StepperOptions::IsValid) for a horizon near the smallest double.
  return std::max(standard * o.t_end, std::numeric_limits<double>::denorm_min());
}

std::vector<SetupProblem> OptionProblems(const Options& o, double t_from) {
  std::vector<SetupProblem> p;
  // The largest |t| of the run, where an increment is smallest relative to t.
  const double t_max = std::isfinite(o.t_end) ? std::max(std::abs(t_from), std::abs(o.t_end))
                                              : std::abs(t_from);
  const double ulp = std::nextafter(t_max, std::numeric_limits<double>::infinity()) - t_max;
  const double smallest_interval = 4.0 * ulp;
  const double step_floor = MinStepRelative(o) * std::max(1.0, t_max);
  const std::string where = std::isfinite(o.t_end) && std::abs(o.t_end) >= std::abs(t_from)
                                ? "t_end = " + Num(o.t_end)
                                : "t = " + Num(t_from);
  const auto names = MethodNames();
  const bool known = std::find(names.begin(), names.end(), o.method) != names.end();
  if (!known) {
    std::vector<std::string> candidates(names.begin(), names.end());
    std::string list;
    for (std::string_view n : names) list += (list.empty() ? "" : ", ") + std::string(n);
    Add(&p, "options.method",
        "method = " + expr::Quote(o.method) + "; must be one of " + list +
            DidYouMean(o.method, candidates));
  }
  const bool fixed_step = o.method == "euler" || o.method == "rk4" || !o.error_control;
  if (!std::isfinite(o.step) || o.step < 0.0 || (fixed_step && o.step <= 0.0)) {
    Add(&p, "options.step",
        "step = " + Num(o.step) +
            (fixed_step ? "; must be > 0 for a fixed-step run" : "; must be >= 0 (0 = automatic)"));
  } else if (fixed_step && o.step < step_floor) {
    Add(&p, "options.step",
        "fixed step = " + Num(o.step) + " cannot advance t at " + where +
            "; must be >= the steppers' floor " + Num(step_floor) + " there");
  } else if (const double first_floor = MinStepRelative(o) * std::max(1.0, std::abs(t_from));
             !fixed_step && o.step > 0.0 && o.step < first_floor) {
    Add(&p, "options.step",
        "first step = " + Num(o.step) + " cannot advance t at t = " + Num(t_from) +
            "; must be 0 (automatic) or >= the steppers' floor " + Num(first_floor) + " there");
  }
  if (!(o.rtol >= 1e-15 && o.rtol < 1.0)) {
    Add(&p, "options.rtol", "rtol = " + Num(o.rtol) + "; must be in [1e-15, 1)");
  }
  if (!(o.atol > 0.0) || !std::isfinite(o.atol)) {
    Add(&p, "options.atol", "atol = " + Num(o.atol) + "; must be > 0");
  }
  if (!(o.max_step >= 0.0) || !std::isfinite(o.max_step)) {
    Add(&p, "options.max_step", "max_step = " + Num(o.max_step) + "; must be >= 0");
  } else if (o.max_step > 0.0 && o.max_step < step_floor) {
    Add(&p, "options.max_step",
        "max_step = " + Num(o.max_step) + " cannot advance t at " + where +
            "; must be 0 (unbounded) or >= the steppers' floor " + Num(step_floor) + " there");
  }
  if (!(o.projection_tolerance > 0.0) || !std::isfinite(o.projection_tolerance)) {
    Add(&p, "options.projection_tolerance",
        "projection_tolerance = " + Num(o.projection_tolerance) + "; must be > 0");
  }
  if (o.max_newton_iterations < 1) {
    Add(&p, "options.max_newton_iterations",
        "max_newton_iterations = " + std::to_string(o.max_newton_iterations) +
            "; must be >= 1");
  }
  if (o.max_initialization_iterations < 1) {
    Add(&p, "options.max_initialization_iterations",
        "max_initialization_iterations = " + std::to_string(o.max_initialization_iterations) +
            "; must be >= 1");
  }
  if (!(o.baumgarte_alpha >= 0.0) || !std::isfinite(o.baumgarte_alpha)) {
    Add(&p, "options.baumgarte_alpha",
        "baumgarte_alpha = " + Num(o.baumgarte_alpha) + "; must be >= 0");
  }
  if (!(o.baumgarte_beta >= 0.0) || !std::isfinite(o.baumgarte_beta)) {
    Add(&p, "options.baumgarte_beta",
        "baumgarte_beta = " + Num(o.baumgarte_beta) + "; must be >= 0");
  }
  if (!(o.output_interval >= 0.0) || !std::isfinite(o.output_interval)) {
    Add(&p, "options.output_interval",
        "output_interval = " + Num(o.output_interval) + "; must be >= 0");
  } else if (o.output_interval > 0.0 && o.output_interval < smallest_interval) {
    Add(&p, "options.output_interval",
        "output_interval = " + Num(o.output_interval) + " cannot advance t at " + where +
            " (t + output_interval rounds to t); must be 0 (every step) or >= 4 ulp(|t|) = " +
            Num(smallest_interval) + " there");
  }
  if (!(o.t_end > 0.0)) {
    Add(&p, "options.t_end", "t_end = " + Num(o.t_end) + "; must be > t0 = 0");
  }
  if (o.max_steps < 1) {
    Add(&p, "options.max_steps", "max_steps = 0; must be >= 1");
  }
  if (!(o.switch_tolerance >= 0.0) || !std::isfinite(o.switch_tolerance)) {
    Add(&p, "options.switch_tolerance",
        "switch_tolerance = " + Num(o.switch_tolerance) + "; must be >= 0 (0 = automatic)");
  }
  if (o.max_switches < 1) {
    Add(&p, "options.max_switches",
        "max_switches = " + std::to_string(o.max_switches) + "; must be >= 1");
  }
  if (!(o.chattering_window > 0.0) || !std::isfinite(o.chattering_window)) {
    Add(&p, "options.chattering_window",
        "chattering_window = " + Num(o.chattering_window) + "; must be > 0");
  }
  return p;
}

void CheckOverrides(const model::Model& model, const std::map<std::string, double>& parameters,
                    const std::map<std::string, double>& values,
                    std::vector<SetupProblem>* problems) {
  std::vector<std::string> parameter_names;
  for (const model::Parameter& prm : model.parameters) parameter_names.push_back(prm.name);
  for (const auto& [name, value] : parameters) {
    // A name the model does not know is the client's text: quoted and bounded.
    const std::string path = "parameters." + expr::Printable(name);
    const model::Parameter* parameter = model.FindParameter(name);
    if (parameter == nullptr) {
      Add(problems, path,
          "unknown parameter " + expr::Quote(name) + " of model '" + model.name + "'" +
              DidYouMean(name, parameter_names));
    } else if (!std::isfinite(value)) {
      Add(problems, path, "parameter '" + name + "' = " + Num(value) + "; must be finite");
    } else if (!parameter->InRange(value)) {
      Add(problems, path,
          "parameter '" + name + "' = " + Num(value) + "; must be " + parameter->RangeText() +
              " (the model's range)");
    }
  }
  const std::vector<std::string> states = StateNames(model);
  for (const auto& [name, value] : values) {
    const std::string path = "initial." + expr::Printable(name);
    if (std::find(states.begin(), states.end(), name) == states.end()) {
      Add(problems, path,
          "unknown state " + expr::Quote(name) + " of model '" + model.name + "'" +
              DidYouMean(name, states));
    } else if (!std::isfinite(value)) {
      Add(problems, path, "initial value '" + name + "' = " + Num(value) + "; must be finite");
    }
  }
}

std::vector<SetupProblem> OverrideProblems(const model::Model& model,
                                           const std::map<std::string, double>& parameters,
                                           const std::map<std::string, double>& values) {
  std::vector<SetupProblem> problems;
  CheckOverrides(model, parameters, values, &problems);
  return problems;
}

std::vector<SetupProblem> SetupProblems(const Setup& setup) {
  std::vector<SetupProblem> p = OptionProblems(setup.options);
  if (!setup.model) {
    Add(&p, "model", "no model given");
    return p;
  }
  const model::Model& model = *setup.model;
  CheckOverrides(model, setup.parameters, setup.initial, &p);
  const std::vector<std::string> states = StateNames(model);
  for (const std::string& name : setup.fixed) {
    if (std::find(states.begin(), states.end(), name) == states.end()) {
      Add(&p, "fixed." + expr::Printable(name),
          "unknown state " + expr::Quote(name) + " of model '" + model.name + "'" +
              DidYouMean(name, states));
    } else if (IsAlgebraic(model, name)) {
      Add(&p, "fixed." + name,
          "algebraic variable '" + name + "' is determined by the constraints and cannot be "
          "fixed");
    }
  }
  for (const auto& [name, value] : setup.options.atol_by_variable) {
    const std::string path = "options.atol_by_variable." + expr::Printable(name);
    if (std::find(states.begin(), states.end(), name) == states.end()) {
      Add(&p, path, "unknown state " + expr::Quote(name) + " of model '" + model.name + "'" +
                        DidYouMean(name, states));
    } else if (IsAlgebraic(model, name) && setup.options.algebraic == AlgebraicMode::kSolve) {
      Add(&p, path,
          "algebraic variable '" + name + "' is solved to the Newton tolerance inside every "
          "stage in algebraic mode 'solve'; a tolerance applies to it in mode 'ode' only");
    } else if (!(value > 0.0) || !std::isfinite(value)) {
      Add(&p, path, "absolute tolerance " + Num(value) + " of '" + name + "' must be finite and > 0");
    }
  }
  const reduce::Formulation& formulation = reduce::FormulationOf(model.form);
  const std::string form(model::FormName(model.form));
  if (setup.options.metric == Metric::kMass && !formulation.has_mass_metric()) {
    Add(&p, "options.metric",
        "metric 'mass' needs a " + reduce::FormsWith(&reduce::Formulation::has_mass_metric) +
            " model; '" + model.name + "' is " + form);
  }
  if (setup.options.algebraic == AlgebraicMode::kOde && !formulation.supports_algebraic_ode()) {
    Add(&p, "options.algebraic",
        "algebraic mode 'ode' is not available for form '" + form + "' ('" + model.name +
            "' solves its unknowns in every stage); use 'solve'");
  }
  if (setup.options.projection == Projection::kBaumgarte && !formulation.supports_baumgarte()) {
    Add(&p, "options.projection",
        "projection 'baumgarte' stabilizes the " +
            reduce::FormsWith(&reduce::Formulation::supports_baumgarte) + " form only; '" +
            model.name + "' is " + form);
  }
  return p;
}

}  // namespace tether::simulate
