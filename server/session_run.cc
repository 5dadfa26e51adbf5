#include "session_run.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "convert.h"
#include "errors.h"

namespace tether::server {
namespace {

double WallSeconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// EVENT_KIND_WARNING for a live change that could not be applied, at the next sample.
v1::Event RefusedChange(const ChangedRun& changed, std::uint64_t index, double t) {
  v1::Event refused;
  refused.set_kind(v1::EVENT_KIND_WARNING);
  refused.set_sample_index(index);
  refused.set_t(t);
  std::string why;
  for (const FieldViolation& v : changed.violations) {
    if (refused.path().empty()) refused.set_path(v.field);
    why += (why.empty() ? "" : "; ") + v.field + ": " + v.description;
  }
  refused.set_message("ControlSession change not applied, the session is unchanged: " + why);
  return refused;
}

constexpr std::chrono::milliseconds kRetryInterval{5};

}  // namespace

SessionRun::SessionRun(std::shared_ptr<Session> session, SessionStore* store,
                       v1::StreamStatesRequest request, std::uint64_t max_steps_per_stream,
                       std::uint64_t max_samples_per_stream)
    : session_(std::move(session)),
      store_(store),
      request_(std::move(request)),
      max_steps_per_stream_(max_steps_per_stream),
      max_samples_per_stream_(max_samples_per_stream) {}

std::chrono::milliseconds SessionRun::RetryBeginIn(std::chrono::milliseconds waited) {
  std::lock_guard lock(session_->mutex);
  if (!session_->streaming) return std::chrono::milliseconds{0};
  const std::chrono::milliseconds grace =
      session_->DriverEnding() ? Session::kEndingDriverGrace : Session::kUnseenCancelGrace;
  return waited < grace ? kRetryInterval : std::chrono::milliseconds{0};
}

grpc::Status SessionRun::Check() {
  std::lock_guard lock(session_->mutex);
  if (session_->streaming) return grpc::Status::OK;
  v1::StreamHeader header;
  return Validate(&header);
}

grpc::Status SessionRun::Begin(const std::atomic<bool>* cancel, v1::StreamHeader* header) {
  // A cancelled Advance stays resumable (simulation.h), and the samples it emitted before the
  // flag was seen are kept in the history: the session pauses exactly there.
  cancel_ = cancel;
  std::lock_guard lock(session_->mutex);
  const std::string name = std::string(kSessionPrefix) + session_->id;
  if (session_->streaming) {
    return Error(grpc::StatusCode::FAILED_PRECONDITION,
                 "session '" + name + "' already has an open StreamStates call; "
                 "one stream per session (cancel the other first)");
  }
  if (grpc::Status s = Validate(header); !s.ok()) return s;
  ApplyHorizon();
  simulate::Simulation& sim = *session_->simulation;
  replay_next_ = first_index_;
  replay_end_ = sim.next_sample_index();
  t_last_sent_ = session_->t;
  at_start_ = sim.statistics();
  session_->streaming = true;
  session_->stream_cancel = cancel_;
  session_->state = v1::SESSION_STATE_RUNNING;
  session_->last_used = Session::Clock::now();

  header->set_session(name);
  header->set_first_sample_index(first_index_);
  header->set_t_start(t_start_);
  header->set_t_end(t_end_);
  header->set_output_interval(sim.options().output_interval);
  InitializationToProto(sim.initialization(), header->mutable_initialization());
  return grpc::Status::OK;
}

grpc::Status SessionRun::Validate(v1::StreamHeader* header) {
  if (grpc::Status s = StopConditions::Make(request_, &stop_); !s.ok()) return s;
  const simulate::Simulation& sim = *session_->simulation;
  columns_ = sim.columns().size();
  if (grpc::Status s = MakeWriter(sim, request_.columns(), header, &writer_); !s.ok()) return s;
  const std::uint64_t next = sim.next_sample_index();
  const std::uint64_t begin = session_->history.begin_index(next);
  first_index_ = request_.has_start_sample_index() ? request_.start_sample_index()
                                                   : std::min(session_->delivered_end, next);
  if (grpc::Status s = session_->CheckStart(first_index_, begin, next, "replayable"); !s.ok()) {
    return s;
  }
  return CheckHorizon();
}

grpc::Status SessionRun::CheckHorizon() {
  const simulate::Simulation& sim = *session_->simulation;
  const simulate::Options& options = sim.options();
  t_end_ = request_.indefinite() ? std::numeric_limits<double>::infinity()
           : request_.has_t_end() ? request_.t_end()
                                  : options.t_end;
  interval_ =
      request_.has_output_interval() ? request_.output_interval() : options.output_interval;
  std::vector<FieldViolation> violations;
  if (request_.indefinite() && request_.has_t_end()) {
    violations.push_back({"t_end", "t_end = " + FormatDouble(request_.t_end()) +
                                       " with indefinite; must be absent (an indefinite stream "
                                       "has no horizon)"});
  } else if (std::isnan(t_end_) || t_end_ < sim.time()) {
    violations.push_back({"t_end", "t_end = " + FormatDouble(t_end_) +
                                       "; must be >= the session's t = " + FormatDouble(sim.time())});
  } else if (std::isinf(t_end_) && request_.has_t_end()) {
    violations.push_back({"t_end", "t_end = inf; must be finite (set indefinite to stream "
                                   "without a horizon)"});
  }
  if (!(interval_ >= 0.0) || !std::isfinite(interval_)) {
    violations.push_back({"output_interval", "output_interval = " + FormatDouble(interval_) +
                                                 "; must be finite and >= 0"});
  }
  if (violations.empty() && (t_end_ != options.t_end || interval_ != options.output_interval)) {
    for (const simulate::SetupProblem& p : sim.HorizonProblems(t_end_, interval_)) {
      // The core names the session's options; this request has t_end and output_interval,
      // and a step the new t_end makes too small is that t_end's problem.
      if (p.path == "options.output_interval") {
        violations.push_back({"output_interval", p.message});
      } else if (p.path == "options.t_end") {
        violations.push_back({"t_end", p.message});
      } else {
        violations.push_back({"t_end", "the session's " + p.path + ": " + p.message});
      }
    }
  }
  if (violations.empty() && std::isfinite(t_end_)) {
    if (auto v = SampleCountViolation(sim.time(), t_end_, interval_, max_samples_per_stream_,
                                      "t_end")) {
      violations.push_back(*v);
    }
  }
  if (!violations.empty()) return InvalidArgument("bad stream horizon", violations);
  return grpc::Status::OK;
}

void SessionRun::ApplyHorizon() {
  simulate::Simulation& sim = *session_->simulation;
  const simulate::Options& options = sim.options();
  if (t_end_ != options.t_end || interval_ != options.output_interval) {
    grid_restarted_ = interval_ != options.output_interval;
    // CheckHorizon found no problem, under the same lock.
    sim.SetHorizon(t_end_, interval_);
  }
  t_start_ = sim.time();
}

simulate::Status SessionRun::Next(std::size_t max_samples,
                                  std::chrono::steady_clock::time_point return_by,
                                  v1::Frame* frame) {
  ControlCommand command;
  {
    std::lock_guard lock(session_->mutex);
    command = std::exchange(session_->control, ControlCommand{});
  }
  if (command.changes()) ApplyChange(command);
  if (command.pause) return Pause("ControlSession asked for a pause", *frame);
  const std::size_t budget = stop_.Budget(max_samples, samples_sent_);
  simulate::Status status{simulate::Termination::kRunning, t_last_sent_, {}};
  if (replay_next_ < replay_end_) {
    Replay(budget, frame);
  } else {
    status = Advance(budget, return_by, frame);
  }
  if (!frame->t().empty()) t_last_sent_ = frame->t(frame->t_size() - 1);
  SetProgress(t_start_, t_end_, samples_sent_, WallSeconds(wall_start_), frame);
  std::string cause;
  if (!status.ended() && stop_.Reached(samples_sent_, stop_time_reached_, &cause)) {
    return Pause(cause, *frame);
  }
  return status;
}

simulate::Status SessionRun::Pause(const std::string& cause, const v1::Frame& frame) {
  paused_ = true;
  const std::uint64_t next = first_index_ + samples_sent_;
  if (frame.t().empty()) {
    // Every earlier frame's write completed before this frame was computed: the client has
    // exactly the samples before `next`, and the default resume starts there.
    std::lock_guard lock(session_->mutex);
    session_->delivered_end = next;
  }
  pause_message_ = PausedMessage(next, t_last_sent_, cause);
  return simulate::Status{simulate::Termination::kCancelled, t_last_sent_, pause_message_};
}

void SessionRun::ApplyChange(const ControlCommand& command) {
  // Only this worker touches the run while the stream is open; the lock is for the swap.
  ChangedRun changed = ChangeRun(*session_->simulation, command);
  std::lock_guard lock(session_->mutex);
  if (changed.simulation != nullptr) {
    session_->InstallChange(std::move(changed.simulation), std::move(changed.event));
    return;
  }
  session_->pending_events.push_back(RefusedChange(changed, session_->next_index, session_->t));
}

std::size_t SessionRun::Replay(std::size_t max_samples, v1::Frame* frame) {
  SampleBlock block;
  {
    std::lock_guard lock(session_->mutex);
    session_->history.Copy(replay_next_, std::min<std::uint64_t>(max_samples, replay_end_ - replay_next_),
                           columns_, &block);
  }
  frame->set_first_sample_index(replay_next_);
  std::size_t sent = 0;
  while (sent < block.t.size() && !stop_time_reached_) {
    WriteHistoryRow(block, sent, columns_, &writer_, frame);
    stop_time_reached_ = stop_.StopsAfter(block.t[sent]);
    ++sent;
  }
  if (sent > 0 && replay_next_ == first_index_) {
    AddEvent(frame, replay_next_, block.t[0], v1::EVENT_KIND_REPLAYED,
             "re-sending " + std::to_string(replay_end_ - replay_next_) +
                 " samples computed for an earlier stream");
  }
  // A hole in the history (never expected: Begin checked the range) must not loop forever.
  replay_next_ = block.t.empty() ? replay_end_ : replay_next_ + sent;
  samples_sent_ += sent;
  return sent;
}

simulate::Status SessionRun::Advance(std::size_t max_samples,
                                     std::chrono::steady_clock::time_point return_by,
                                     v1::Frame* frame) {
  simulate::Simulation& sim = *session_->simulation;
  SampleBlock block;
  block.inequalities = !sim.model().inequalities.empty();
  frame->set_first_sample_index(sim.next_sample_index());
  // Only this stream adds to them while it is open (ApplyChange, on this thread).
  std::vector<v1::Event> pending;
  {
    std::lock_guard lock(session_->mutex);
    pending = session_->pending_events;
  }
  const auto sink = [&](const simulate::Sample& s) {
    block.Append(s);
    writer_.Append(s, frame);
    if (s.index == first_index_ && s.index > 0) {
      AddEvent(frame, s.index, s.t, v1::EVENT_KIND_RESUMED, "continuing the session");
    }
    if (grid_restarted_ && s.index == first_index_) {
      AddEvent(frame, s.index, s.t, v1::EVENT_KIND_GRID_RESTARTED, "output grid restarted");
    }
    for (v1::Event& event : pending) {
      if (event.sample_index() > s.index) continue;
      // Computed for the first time now: the next sample carries it.
      event.set_sample_index(s.index);
      event.set_t(s.t);
      *frame->add_events() = event;
      block.session_events.push_back(event);
    }
    if (!block.session_events.empty()) std::erase_if(pending, [&](const v1::Event& e) {
      return e.sample_index() <= s.index;
    });
    stop_time_reached_ = stop_.StopsAfter(s.t);
  };
  simulate::Status status{simulate::Termination::kRunning, sim.time(), {}};
  if (!stop_.has_stop_time()) {
    status = sim.Advance(max_samples, sink, cancel_, return_by);
  } else {
    // One sample per call, so that the stream stops right after the sample that reached
    // stop_time; the run continues exactly where each call stopped (simulation.h).
    while (block.t.size() < max_samples && !stop_time_reached_ && !status.ended()) {
      status = sim.Advance(1, sink, cancel_, return_by);
      if (std::chrono::steady_clock::now() >= return_by) break;
    }
  }
  samples_sent_ += block.t.size();
  {
    std::lock_guard lock(session_->mutex);
    if (!block.t.empty()) {
      session_->last_residuals = writer_.last();
      std::erase_if(session_->pending_events, [&](const v1::Event& e) {
        return e.sample_index() < block.end_index();
      });
    }
    session_->history.Append(std::move(block));
    session_->Refresh();
    session_->WakeViewers();
  }
  // Outside the session's lock: the store's lock comes first (session.h).
  store_->TrimReplay(session_.get());
  if (status.ended()) return status;
  if (sim.statistics().steps - at_start_.steps >= max_steps_per_stream_) {
    limit_reached_ = true;
    return simulate::Status{simulate::Termination::kCancelled, sim.time(),
                            "max_steps_per_stream = " + std::to_string(max_steps_per_stream_) +
                                " reached at t = " + FormatDouble(sim.time()) +
                                "; the session is paused, call StreamStates again to continue"};
  }
  return status;
}

void SessionRun::Delivered(const v1::Frame& frame) {
  {
    std::lock_guard lock(session_->mutex);
    const std::uint64_t end =
        frame.first_sample_index() + static_cast<std::uint64_t>(frame.t_size());
    // A paused stream ends exactly at its last frame: the default resume starts there even if
    // an earlier stream was delivered further (this one replayed from before that).
    session_->delivered_end = paused_ ? end : std::max(session_->delivered_end, end);
  }
  // The frame's samples may be trimmed now; without this a budget exceeded by the last,
  // undelivered frame of a stream would stay exceeded until some other stream computes.
  store_->TrimReplay(session_.get());
}

grpc::Status SessionRun::Summarize(const simulate::Status& end, v1::StreamSummary* summary) {
  std::lock_guard lock(session_->mutex);
  summary->set_termination(paused_ ? v1::TERMINATION_PAUSED : TerminationToProto(end.reason));
  summary->set_message(end.message);
  summary->set_t(paused_ ? t_last_sent_ : SummaryTime(end, session_->t));
  summary->set_next_sample_index(paused_ ? first_index_ + samples_sent_ : session_->next_index);
  StatisticsToProto(session_->statistics, summary->mutable_statistics());
  summary->set_max_residual_position(writer_.max().position);
  summary->set_max_residual_velocity(writer_.max().velocity);
  summary->set_max_residual_inequality(writer_.max().inequality.value_or(0.0));
  summary->set_samples_sent(samples_sent_);
  if (limit_reached_) return Error(grpc::StatusCode::RESOURCE_EXHAUSTED, end.message);
  if (paused_) return grpc::Status::OK;
  return TerminationStatus(end, session_->last_residuals);
}

simulate::Statistics SessionRun::Work() const {
  return WorkSince(at_start_, session_->simulation->statistics());
}

void SessionRun::End(const simulate::Status& end) {
  std::lock_guard lock(session_->mutex);
  // A change accepted while the stream was open is applied even if the stream ended before
  // its next frame; a pause has nothing left to stop.
  const ControlCommand command = std::exchange(session_->control, ControlCommand{});
  if (command.changes()) {
    ChangedRun changed = ChangeRun(*session_->simulation, command);
    if (changed.simulation != nullptr) {
      session_->InstallChange(std::move(changed.simulation), std::move(changed.event));
    } else {
      session_->pending_events.push_back(RefusedChange(changed, session_->next_index, session_->t));
    }
  }
  session_->streaming = false;
  session_->stream_cancel = nullptr;
  session_->driver_ended.notify_all();
  session_->last_used = Session::Clock::now();
  const simulate::Status& run = session_->simulation->status();
  const simulate::Status& reason = run.ended() ? run : end;
  // The stream ends with the status Pause returned, unless the client left first.
  const bool paused = paused_ && !run.ended() && end.message == pause_message_;
  session_->last_termination = paused ? v1::TERMINATION_PAUSED : TerminationToProto(reason.reason);
  session_->last_message = reason.message;
  if (run.failed() && run.reason != simulate::Termination::kStepLimit) {
    session_->state = v1::SESSION_STATE_FAILED;
    session_->WakeViewers();  // they end with the failure once they have its samples
  } else if (run.reason == simulate::Termination::kReachedEnd &&
             session_->delivered_end >= session_->next_index) {
    session_->state = v1::SESSION_STATE_FINISHED;
  } else {
    session_->state = v1::SESSION_STATE_PAUSED;
  }
}

}  // namespace tether::server
