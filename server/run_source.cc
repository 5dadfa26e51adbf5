#include "run_source.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "convert.h"
#include "errors.h"

namespace tether::server {

simulate::Statistics WorkSince(const simulate::Statistics& before,
                               const simulate::Statistics& now) {
  simulate::Statistics work = now;
  work.steps -= before.steps;
  work.rejected_steps -= before.rejected_steps;
  work.rhs_evaluations -= before.rhs_evaluations;
  work.projections -= before.projections;
  work.projection_iterations -= before.projection_iterations;
  work.samples -= before.samples;
  work.switches -= before.switches;
  work.non_finite_outputs -= before.non_finite_outputs;
  work.jacobian_evaluations -= before.jacobian_evaluations;
  work.lu_factorizations -= before.lu_factorizations;
  work.newton_iterations -= before.newton_iterations;
  work.cpu_seconds -= before.cpu_seconds;
  return work;
}

grpc::Status ColumnSelection::Make(const std::vector<simulate::Column>& all,
                                   const google::protobuf::RepeatedPtrField<std::string>& names,
                                   ColumnSelection* out) {
  out->indices_.clear();
  if (names.empty()) {
    for (std::size_t i = 0; i < all.size(); ++i) out->indices_.push_back(i);
    return grpc::Status::OK;
  }
  std::string known;
  for (const simulate::Column& c : all) known += (known.empty() ? "" : ", ") + c.name;
  std::vector<FieldViolation> violations;
  for (int i = 0; i < names.size(); ++i) {
    const std::string field = "columns[" + std::to_string(i) + "]";
    const auto it = std::find_if(all.begin(), all.end(),
                                 [&](const simulate::Column& c) { return c.name == names[i]; });
    if (it == all.end()) {
      violations.push_back({field, "unknown column " + Quote(names[i]) + " (columns: " + known + ")"});
      continue;
    }
    const auto index = static_cast<std::size_t>(it - all.begin());
    if (std::find(out->indices_.begin(), out->indices_.end(), index) != out->indices_.end()) {
      violations.push_back({field, "column " + Quote(names[i]) + " is selected twice"});
      continue;
    }
    out->indices_.push_back(index);
  }
  if (!violations.empty()) return InvalidArgument("bad column selection", violations);
  return grpc::Status::OK;
}

void ColumnSelection::FillHeader(const std::vector<simulate::Column>& all,
                                 v1::StreamHeader* header) const {
  for (std::size_t i : indices_) ColumnToProto(all[i], header->add_columns());
}

void ColumnSelection::AppendRow(std::span<const double> row, v1::Frame* frame) const {
  for (std::size_t i : indices_) frame->add_values(row[i]);
}

SampleWriter::SampleWriter(const model::Model& model, ColumnSelection selection)
    : selection_(std::move(selection)) {
  for (std::size_t i = 0; i < model.inequalities.size(); ++i) {
    // Bounded like the core's own diagnostics: an event message is one line.
    constexpr std::size_t kMaxExpressionText = 60;
    inequalities_.push_back("inequalities[" + std::to_string(i) + "] (" +
                            model.context->ToString(model.inequalities[i], kMaxExpressionText) +
                            " >= 0)");
  }
  if (!inequalities_.empty()) {
    max_.inequality = 0.0;
    last_.inequality = 0.0;
  }
}

void SampleWriter::Append(const simulate::Sample& s, v1::Frame* frame) {
  frame->add_t(s.t);
  selection_.AppendRow(s.values, frame);
  frame->add_residual_position(s.residual_position);
  frame->add_residual_velocity(s.residual_velocity);
  last_.position = s.residual_position;
  last_.velocity = s.residual_velocity;
  max_.position = std::max(max_.position, s.residual_position);
  max_.velocity = std::max(max_.velocity, s.residual_velocity);
  for (const simulate::Warning& w : s.warnings) {
    AddEvent(frame, s.index, s.t, v1::EVENT_KIND_WARNING, w.message)->set_path(w.path);
  }
  for (const simulate::RunNotice& notice : s.notices) {
    AddEvent(frame, s.index, notice.t,
             notice.kind == simulate::RunNotice::Kind::kMethodSwitched
                 ? v1::EVENT_KIND_METHOD_SWITCHED
                 : v1::EVENT_KIND_STIFFNESS_DETECTED,
             notice.message);
  }
  if (inequalities_.empty()) return;
  frame->add_residual_inequality(s.residual_inequality);
  last_.inequality = s.residual_inequality;
  max_.inequality = std::max(*max_.inequality, s.residual_inequality);
  for (const simulate::SwitchEvent& e : s.events) {
    if (e.constraint >= inequalities_.size()) {
      // simulation.h: SwitchEvent::constraint indexes model.inequalities.
      std::fprintf(stderr, "tether-server: internal error: switch of inequality %zu, model has %zu\n",
                   e.constraint, inequalities_.size());
      std::abort();
    }
    const std::string& name = inequalities_[e.constraint];
    v1::Event* event = AddEvent(
        frame, s.index, e.t, e.activated ? v1::EVENT_KIND_ACTIVATED : v1::EVENT_KIND_DEACTIVATED,
        name + (e.activated ? " activated" : " deactivated") + " at t = " + FormatDouble(e.t));
    event->set_constraint(static_cast<std::uint32_t>(e.constraint));
  }
}

grpc::Status MakeWriter(const simulate::Simulation& sim,
                        const google::protobuf::RepeatedPtrField<std::string>& names,
                        v1::StreamHeader* header, SampleWriter* writer) {
  ColumnSelection selection;
  if (grpc::Status s = ColumnSelection::Make(sim.columns(), names, &selection); !s.ok()) return s;
  selection.FillHeader(sim.columns(), header);
  *writer = SampleWriter(sim.model(), std::move(selection));
  return grpc::Status::OK;
}

void WriteHistoryRow(const SampleBlock& block, std::size_t row, std::size_t columns,
                     SampleWriter* writer, v1::Frame* frame) {
  const simulate::Sample sample = block.Row(row, columns);
  writer->Append(sample, frame);
  for (const v1::Event& event : block.session_events) {
    if (event.sample_index() == sample.index) *frame->add_events() = event;
  }
}

grpc::Status StopConditions::Make(const v1::StreamStatesRequest& request, StopConditions* out) {
  std::vector<FieldViolation> violations;
  if (request.has_max_samples()) {
    if (request.max_samples() == 0) {
      violations.push_back({"max_samples", "max_samples = 0; must be >= 1 (absent = no limit)"});
    }
    out->max_samples_ = request.max_samples();
  }
  if (request.has_stop_time()) {
    if (!std::isfinite(request.stop_time())) {
      violations.push_back({"stop_time", "stop_time = " + FormatDouble(request.stop_time()) +
                                             "; must be finite (absent = no stop time)"});
    }
    out->stop_time_ = request.stop_time();
  }
  if (!violations.empty()) return InvalidArgument("bad stop condition", violations);
  return grpc::Status::OK;
}

std::size_t StopConditions::Budget(std::size_t frame_samples, std::uint64_t sent) const {
  if (!max_samples_) return frame_samples;
  return static_cast<std::size_t>(
      std::min<std::uint64_t>(frame_samples, *max_samples_ > sent ? *max_samples_ - sent : 0));
}

bool StopConditions::Reached(std::uint64_t sent, bool stopped_by_time, std::string* cause) const {
  if (stopped_by_time) {
    *cause = "stop_time = " + FormatDouble(*stop_time_) + " reached";
    return true;
  }
  if (max_samples_ && sent >= *max_samples_) {
    *cause = "max_samples = " + std::to_string(*max_samples_) + " reached";
    return true;
  }
  return false;
}

std::string PausedMessage(std::uint64_t next_index, double t, const std::string& cause) {
  return "paused at sample " + std::to_string(next_index) + " (t = " + FormatDouble(t) + "): " +
         cause + "; the next StreamStates continues there";
}

v1::Event* AddEvent(v1::Frame* frame, std::uint64_t index, double t, v1::EventKind kind,
                    std::string message) {
  v1::Event* event = frame->add_events();
  event->set_sample_index(index);
  event->set_t(t);
  event->set_kind(kind);
  event->set_message(std::move(message));
  return event;
}

double SummaryTime(const simulate::Status& end, double t_last_sample) {
  return end.failed() ? end.t : t_last_sample;
}

std::optional<FieldViolation> SampleCountViolation(double t, double t_end, double output_interval,
                                                   std::uint64_t limit, std::string field) {
  if (!(output_interval > 0.0) || !std::isfinite(t_end) || !std::isfinite(t)) return std::nullopt;
  const double samples = (t_end - t) / output_interval;
  if (!(samples > static_cast<double>(limit))) return std::nullopt;
  return FieldViolation{
      std::move(field),
      "t_end = " + FormatDouble(t_end) + " at output_interval = " + FormatDouble(output_interval) +
          " from t = " + FormatDouble(t) + " asks for " + FormatDouble(std::floor(samples)) +
          " samples; this server's max_samples_per_stream is " + std::to_string(limit) +
          ": shorten the horizon, widen output_interval, or stream in parts"};
}

void SetProgress(double t_start, double t_end, std::uint64_t samples_sent, double wall_seconds,
                 v1::Frame* frame) {
  v1::Progress* progress = frame->mutable_progress();
  const double t = frame->t().empty() ? t_start : frame->t(frame->t_size() - 1);
  progress->set_t(t);
  progress->set_t_end(t_end);
  const double span = t_end - t_start;
  progress->set_fraction(std::isfinite(t_end) && span > 0.0
                             ? std::clamp((t - t_start) / span, 0.0, 1.0)
                             : 0.0);
  progress->set_samples_sent(samples_sent);
  progress->set_wall_seconds(wall_seconds);
}

}  // namespace tether::server
