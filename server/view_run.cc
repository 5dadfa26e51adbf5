#include "view_run.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "convert.h"
#include "errors.h"

namespace tether::server {
namespace {

// Why a viewer's session is gone (session.removal is set; caller holds its lock).
std::string RemovalMessage(const Session& session) {
  const std::string name = "session '" + std::string(kSessionPrefix) + session.id + "'";
  if (session.removal == Session::Removal::kExpired) {
    return name + " expired: no call used it for longer than the server's session_ttl, so it "
                  "was removed";
  }
  return name + " was deleted";
}

}  // namespace

ViewRun::ViewRun(std::shared_ptr<Session> session, v1::StreamStatesRequest request)
    : session_(std::move(session)), request_(std::move(request)) {}

grpc::Status ViewRun::Check() {
  std::lock_guard lock(session_->mutex);
  v1::StreamHeader header;
  return Validate(&header);
}

grpc::Status ViewRun::Begin(const std::atomic<bool>* /*cancel*/, v1::StreamHeader* header) {
  std::lock_guard lock(session_->mutex);
  if (grpc::Status s = Validate(header); !s.ok()) return s;
  t_last_sent_ = session_->t;
  t_start_ = session_->t;
  t_end_ = session_->options.t_end;
  header->set_session(std::string(kSessionPrefix) + session_->id);
  header->set_first_sample_index(next_);
  header->set_t_start(session_->t);
  header->set_t_end(session_->options.t_end);
  header->set_output_interval(session_->options.output_interval);
  InitializationToProto(session_->simulation->initialization(), header->mutable_initialization());
  return grpc::Status::OK;
}

grpc::Status ViewRun::Validate(v1::StreamHeader* header) {
  std::vector<FieldViolation> violations;
  // The driver owns the run's horizon, grid and pace; a viewer only watches.
  if (request_.has_t_end()) violations.push_back({"t_end", "t_end is the driving stream's; must be absent with view_only"});
  if (request_.indefinite()) violations.push_back({"indefinite", "indefinite is the driving stream's; must be false with view_only"});
  if (request_.has_output_interval()) {
    violations.push_back({"output_interval", "output_interval is the driving stream's; must be absent with view_only"});
  }
  if (request_.realtime_factor() != 0.0) {
    violations.push_back({"realtime_factor", "realtime_factor is the driving stream's; must be 0 with view_only"});
  }
  if (!violations.empty()) return InvalidArgument("bad view-only stream", violations);
  if (grpc::Status s = StopConditions::Make(request_, &stop_); !s.ok()) return s;
  const simulate::Simulation& sim = *session_->simulation;
  columns_ = sim.columns().size();
  if (grpc::Status s = MakeWriter(sim, request_.columns(), header, &writer_); !s.ok()) return s;
  const std::uint64_t end = session_->next_index;
  const std::uint64_t begin = session_->history.begin_index(end);
  next_ = request_.has_start_sample_index() ? request_.start_sample_index() : end;
  return session_->CheckStart(next_, begin, end, "viewable");
}

simulate::Status ViewRun::Next(std::size_t max_samples,
                               std::chrono::steady_clock::time_point /*return_by*/,
                               v1::Frame* frame) {
  SampleBlock block;
  std::uint64_t lost_from = next_;
  std::optional<simulate::Status> failed;  // the session's run failed and nothing is left
  {
    std::lock_guard lock(session_->mutex);
    if (session_->removal != Session::Removal::kNone) {
      deleted_ = true;
      return simulate::Status{simulate::Termination::kCancelled, t_last_sent_,
                              RemovalMessage(*session_)};
    }
    const std::uint64_t end = session_->history.end_index(session_->next_index);
    const std::uint64_t begin = session_->history.begin_index(end);
    // Behind the history: what was dropped is lost to this viewer; a hole the history never
    // held (an empty history after a fork) is skipped the same way, so nothing loops.
    if (next_ < begin) next_ = begin;
    const std::size_t budget = stop_.Budget(max_samples, samples_sent_);
    session_->history.Copy(next_, std::min<std::uint64_t>(budget, end - std::min(end, next_)),
                           columns_, &block);
    if (block.t.empty() && next_ < end) next_ = end;
    if (session_->state == v1::SESSION_STATE_FAILED && next_ + block.t.size() >= end) {
      failed = session_->simulation->status();
    }
  }
  if (next_ > lost_from) {
    samples_lost_ += next_ - lost_from;
    if (!gap_from_) gap_from_ = lost_from;
  }
  frame->set_first_sample_index(next_);
  std::size_t sent = 0;
  while (sent < block.t.size() && !stop_time_reached_) {
    WriteHistoryRow(block, sent, columns_, &writer_, frame);
    stop_time_reached_ = stop_.StopsAfter(block.t[sent]);
    ++sent;
  }
  if (gap_from_ && sent > 0) {
    // On the first sample sent after the gap.
    AddEvent(frame, next_, block.t[0], v1::EVENT_KIND_SAMPLES_LOST,
             "samples [" + std::to_string(*gap_from_) + ", " + std::to_string(next_) +
                 ") left the replay history (replay_bytes) before this viewer read them; "
                 "continuing at sample " + std::to_string(next_));
    gap_from_.reset();
  }
  next_ += sent;
  samples_sent_ += sent;
  if (sent > 0) t_last_sent_ = block.t[sent - 1];
  SetProgress(t_start_, t_end_, samples_sent_, 0.0, frame);
  std::string cause;
  if (stop_.Reached(samples_sent_, stop_time_reached_, &cause)) {
    paused_ = true;
    return simulate::Status{simulate::Termination::kCancelled, t_last_sent_,
                            PausedMessage(next_, t_last_sent_, cause)};
  }
  // Everything the failed run computed is sent: the viewer ends with the run's failure, as
  // the driving stream did (a live change may revive the session; a new viewer sees that).
  if (failed) return *failed;
  return simulate::Status{simulate::Termination::kRunning, t_last_sent_, {}};
}

bool ViewRun::WaitForMore(std::function<void()> wake) {
  std::lock_guard lock(session_->mutex);
  if (session_->removal != Session::Removal::kNone || session_->state == v1::SESSION_STATE_FAILED ||
      next_ < session_->history.end_index(session_->next_index)) {
    return false;
  }
  session_->waiting_viewers[this] = std::move(wake);
  return true;
}

grpc::Status ViewRun::Summarize(const simulate::Status& end, v1::StreamSummary* summary) {
  std::lock_guard lock(session_->mutex);
  summary->set_termination(deleted_ ? v1::TERMINATION_SESSION_DELETED
                           : paused_ ? v1::TERMINATION_PAUSED
                                     : TerminationToProto(end.reason));
  summary->set_message(end.message + (samples_lost_ > 0 ? "; " + std::to_string(samples_lost_) +
                                                              " samples lost (replay history)"
                                                        : std::string()));
  summary->set_t(SummaryTime(end, t_last_sent_));
  summary->set_next_sample_index(next_);
  StatisticsToProto(session_->statistics, summary->mutable_statistics());
  summary->set_max_residual_position(writer_.max().position);
  summary->set_max_residual_velocity(writer_.max().velocity);
  summary->set_max_residual_inequality(writer_.max().inequality.value_or(0.0));
  summary->set_samples_sent(samples_sent_);
  if (deleted_ || paused_ || !end.failed()) return grpc::Status::OK;
  return TerminationStatus(end, session_->last_residuals);  // as the driving stream's
}

void ViewRun::End(const simulate::Status& /*end*/) {
  std::lock_guard lock(session_->mutex);
  session_->waiting_viewers.erase(this);
}

}  // namespace tether::server
