#include "one_shot_run.h"

#include <algorithm>
#include <cmath>

#include "convert.h"
#include "errors.h"
#include "tether/model/unlisted_problems.h"

namespace tether::server {

grpc::Status CreateRun(std::shared_ptr<const model::Model> model,
                       const google::protobuf::Map<std::string, double>& parameters,
                       const google::protobuf::Map<std::string, double>& initial_values,
                       const google::protobuf::RepeatedPtrField<std::string>& fixed,
                       const v1::SimulationOptions& options, std::uint64_t max_steps_cap,
                       std::unique_ptr<simulate::Simulation>* out) {
  std::vector<FieldViolation> violations;
  simulate::Setup setup;
  setup.options = OptionsFromProto(options, *model, &violations);
  setup.options.max_steps = std::min(setup.options.max_steps, max_steps_cap);
  if (std::isinf(setup.options.t_end) && setup.options.t_end > 0.0) {
    violations.push_back({"options.t_end",
                          "t_end = inf; must be finite (a session streams without a horizon "
                          "with StreamStatesRequest.indefinite)"});
  }
  if (!violations.empty()) return InvalidArgument("bad simulation options", violations);
  setup.model = std::move(model);
  setup.parameters = ToMap(parameters);
  setup.initial = ToMap(initial_values);
  setup.fixed.assign(fixed.begin(), fixed.end());
  simulate::CreateResult result = simulate::Simulation::Create(setup);
  if (!result.problems.empty()) {
    return InvalidArgument("bad simulation setup", SetupViolations(result.problems, "initial_values"));
  }
  if (result.status.failed() || result.simulation == nullptr) {
    return InvalidArgument(
        "consistent initialization failed",
        {{result.failure_path.rfind("parameters.", 0) == 0 ? result.failure_path : "initial_values",
          result.status.message.empty() ? "no consistent initial state found"
                                                          : result.status.message}});
  }
  *out = std::move(result.simulation);
  return grpc::Status::OK;
}

OneShotRun::OneShotRun(const TenantModels* models, std::string tenant, v1::SimulateRequest request,
                       std::size_t max_spec_bytes, model::SpecLimits limits,
                       std::uint64_t max_steps, std::uint64_t max_samples)
    : models_(models),
      tenant_(std::move(tenant)),
      request_(std::move(request)),
      max_spec_bytes_(max_spec_bytes),
      limits_(limits),
      max_steps_(max_steps),
      max_samples_(max_samples) {}

grpc::Status OneShotRun::ResolveModel(std::shared_ptr<const model::Model>* out) const {
  switch (request_.source_case()) {
    case v1::SimulateRequest::kModel: {
      const std::string name(StripPrefix(request_.model(), kModelPrefix));
      *out = models_->Find(tenant_, name);
      if (*out == nullptr) {
        return Error(grpc::StatusCode::NOT_FOUND, models_->NotFoundMessage(tenant_, name));
      }
      return grpc::Status::OK;
    }
    case v1::SimulateRequest::kSpecJson: {
      if (request_.spec_json().size() > max_spec_bytes_) {
        return InvalidArgument("spec too large",
                               {{"spec_json", std::to_string(request_.spec_json().size()) +
                                                  " bytes; the limit max_spec_bytes is " +
                                                  std::to_string(max_spec_bytes_)}});
      }
      model::ModelResult parsed = model::ParseModel(request_.spec_json(), limits_);
      if (!parsed.ok()) {
        return InvalidArgument("invalid model spec", SpecViolations(parsed.problems, "spec_json: "),
                               model::UnlistedProblems(parsed.problems));
      }
      *out = parsed.model;
      return grpc::Status::OK;
    }
    case v1::SimulateRequest::SOURCE_NOT_SET:
      break;
  }
  return InvalidArgument("no model", {{"model", "set model or spec_json"}});
}

grpc::Status OneShotRun::Begin(const std::atomic<bool>* cancel, v1::StreamHeader* header) {
  cancel_ = cancel;
  std::shared_ptr<const model::Model> model;
  if (grpc::Status s = ResolveModel(&model); !s.ok()) return s;
  if (grpc::Status s = CreateRun(model, request_.parameters(), request_.initial_values(),
                                 request_.fixed(), request_.options(), max_steps_, &simulation_);
      !s.ok()) {
    return s;
  }
  const simulate::Options& options = simulation_->options();
  if (auto v = SampleCountViolation(simulation_->time(), options.t_end, options.output_interval,
                                    max_samples_, "options.t_end")) {
    return InvalidArgument("too many samples", {*v});
  }
  const auto& all = simulation_->columns();
  ColumnSelection selection;
  if (grpc::Status s = ColumnSelection::Make(all, request_.columns(), &selection); !s.ok()) {
    return s;
  }
  selection.FillHeader(all, header);
  writer_ = SampleWriter(simulation_->model(), std::move(selection));
  t_start_ = simulation_->time();
  t_end_ = simulation_->options().t_end;
  header->set_first_sample_index(0);
  header->set_t_start(t_start_);
  header->set_t_end(t_end_);
  header->set_output_interval(simulation_->options().output_interval);
  InitializationToProto(simulation_->initialization(), header->mutable_initialization());
  return grpc::Status::OK;
}

simulate::Status OneShotRun::Next(std::size_t max_samples,
                                  std::chrono::steady_clock::time_point return_by,
                                  v1::Frame* frame) {
  frame->set_first_sample_index(simulation_->next_sample_index());
  // Nothing is kept, so a cancellation may cut the frame short: the flag is polled per step.
  const simulate::Status status = simulation_->Advance(
      max_samples, [&](const simulate::Sample& s) { writer_.Append(s, frame); }, cancel_,
      return_by);
  samples_sent_ += static_cast<std::uint64_t>(frame->t_size());
  SetProgress(t_start_, t_end_, samples_sent_,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count(),
              frame);
  return status;
}

grpc::Status OneShotRun::Summarize(const simulate::Status& end, v1::StreamSummary* summary) {
  summary->set_termination(TerminationToProto(end.reason));
  summary->set_message(end.message);
  summary->set_t(SummaryTime(end, simulation_->time()));
  summary->set_next_sample_index(simulation_->next_sample_index());
  const simulate::Statistics& statistics = simulation_->statistics();
  StatisticsToProto(statistics, summary->mutable_statistics());
  summary->set_max_residual_position(statistics.max_residual_position);
  summary->set_max_residual_velocity(statistics.max_residual_velocity);
  summary->set_max_residual_inequality(statistics.max_residual_inequality);
  summary->set_samples_sent(samples_sent_);
  return TerminationStatus(end, writer_.last());
}

}  // namespace tether::server
