#include "session.h"

#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "convert.h"

namespace tether::server {

void ReplayHistory::Append(SampleBlock block) {
  if (block.t.empty()) return;
  const std::size_t bytes = block.bytes();
  bytes_ += bytes;
  if (budget_ != nullptr) budget_->Add(bytes);
  blocks_.push_back(std::move(block));
  while (blocks_.size() > 1 && bytes_ > max_bytes_) {
    PopFront();
    budget_trimmed_ = false;
  }
}

void ReplayHistory::Clear() {
  if (budget_ != nullptr) budget_->Remove(bytes_);
  blocks_.clear();
  bytes_ = 0;
  budget_trimmed_ = false;
}

void ReplayHistory::TrimForBudget(std::uint64_t delivered_end) {
  while (budget_ != nullptr && budget_->over() && !blocks_.empty() &&
         blocks_.front().end_index() <= delivered_end) {
    PopFront();
    budget_trimmed_ = true;
  }
}

void ReplayHistory::PopFront() {
  const std::size_t bytes = blocks_.front().bytes();
  bytes_ -= bytes;
  if (budget_ != nullptr) budget_->Remove(bytes);
  blocks_.pop_front();
}

std::string ReplayHistory::TrimReason() const {
  if (budget_trimmed_) {
    return "older samples were trimmed by the server-wide limit replay_total_bytes = " +
           std::to_string(budget_->max_bytes()) + " B over all sessions";
  }
  return "older samples were dropped by the per-session limit replay_bytes = " +
         std::to_string(max_bytes_) + " B (or never computed)";
}

std::uint64_t ReplayHistory::begin_index(std::uint64_t end) const {
  return blocks_.empty() ? end : blocks_.front().first_index;
}

std::uint64_t ReplayHistory::end_index(std::uint64_t end) const {
  return blocks_.empty() ? end : blocks_.back().end_index();
}

std::size_t ReplayHistory::Copy(std::uint64_t index, std::size_t count, std::size_t columns,
                                SampleBlock* out) const {
  std::size_t copied = 0;
  for (const SampleBlock& block : blocks_) {
    while (copied < count && index >= block.first_index && index < block.end_index()) {
      out->inequalities = block.inequalities;
      out->Append(block.Row(static_cast<std::size_t>(index - block.first_index), columns));
      for (const v1::Event& event : block.session_events) {
        if (event.sample_index() == index) out->session_events.push_back(event);
      }
      ++index;
      ++copied;
    }
  }
  return copied;
}

void ControlCommand::Merge(const ControlCommand& later) {
  pause = pause || later.pause;
  for (const auto& [name, value] : later.parameters) parameters[name] = value;
  for (const auto& [name, value] : later.values) values[name] = value;
}

namespace {

// "k = 9 (was 4)", the changed entries of a map, for the change's event.
std::string ChangeText(const std::map<std::string, double>& changed,
                       const std::map<std::string, double>& before) {
  std::string text;
  for (const auto& [name, value] : changed) {
    if (!text.empty()) text += ", ";
    text += name + " = " + FormatDouble(value);
    if (const auto it = before.find(name); it != before.end()) {
      text += " (was " + FormatDouble(it->second) + ")";
    }
  }
  return text;
}

}  // namespace

ChangedRun ChangeRun(const simulate::Simulation& current, const ControlCommand& change) {
  ChangedRun out;
  // Simulation::Update changes the run even when initialization then fails; a copy keeps the
  // session's run intact until the change succeeded.
  auto changed = std::make_unique<simulate::Simulation>(current);
  simulate::CreateResult result = changed->Update(change.parameters, change.values);
  if (!result.problems.empty()) {
    out.violations = SetupViolations(result.problems, "values");
    return out;
  }
  if (result.status.ended()) {
    out.violations.push_back({change.values.empty() ? "parameters" : "values",
                              "consistent initialization failed: " + result.status.message});
    return out;
  }
  if (result.simulation != nullptr) changed = std::move(result.simulation);
  std::map<std::string, double> values_before;
  const std::vector<double> before = current.CurrentValues();
  for (std::size_t i = 0; i < before.size() && i < current.columns().size(); ++i) {
    values_before[current.columns()[i].name] = before[i];
  }
  std::string message = "changed before this sample:";
  if (!change.parameters.empty()) {
    message += " parameters " + ChangeText(change.parameters, current.parameters()) + ";";
  }
  if (!change.values.empty()) message += " values " + ChangeText(change.values, values_before) + ";";
  message += " " + changed->initialization().ToString();
  out.event.set_kind(v1::EVENT_KIND_UPDATED);
  out.event.set_message(std::move(message));
  InitializationToProto(changed->initialization(), out.event.mutable_initialization());
  out.simulation = std::move(changed);
  return out;
}

Session::Session(std::string tenant_in, std::string id_in, std::string model_in,
                 std::unique_ptr<simulate::Simulation> sim, std::size_t replay_bytes,
                 ReplayBudget* replay_budget, std::string routing_key_in)
    : tenant(std::move(tenant_in)),
      id(std::move(id_in)),
      routing_key(routing_key_in.empty() ? id : std::move(routing_key_in)),
      model(std::move(model_in)),
      simulation(std::move(sim)),
      history(replay_bytes, replay_budget) {
  Refresh();
  delivered_end = next_index;
}

void Session::Refresh() {
  t = simulation->time();
  next_index = simulation->next_sample_index();
  values = simulation->CurrentValues();
  statistics = simulation->statistics();
  options = simulation->options();
  Touch();
}

void Session::InstallChange(std::unique_ptr<simulate::Simulation> changed, v1::Event event) {
  simulation = std::move(changed);
  Refresh();
  event.set_sample_index(next_index);
  event.set_t(t);
  pending_events.push_back(std::move(event));
}

void Session::WakeViewers() {
  std::map<const void*, std::function<void()>> waiting;
  waiting.swap(waiting_viewers);
  for (auto& [viewer, wake] : waiting) wake();
}

bool Session::AwaitDriverRelease(std::unique_lock<std::mutex>& lock) {
  const Clock::time_point start = Clock::now();
  driver_ended.wait_until(lock, start + kUnseenCancelGrace, [this] { return !streaming; });
  driver_ended.wait_until(lock, start + kEndingDriverGrace, [this] { return !DriverEnding(); });
  return !streaming;
}

void Session::Touch() {
  update_time = std::chrono::system_clock::now();
  last_used = Clock::now();
}

grpc::Status Session::CheckStart(std::uint64_t start, std::uint64_t begin, std::uint64_t end,
                                 std::string_view what) const {
  if (start >= begin && start <= end) return grpc::Status::OK;
  return Error(grpc::StatusCode::FAILED_PRECONDITION,
               "start_sample_index = " + std::to_string(start) + " is outside the " +
                   std::string(what) + " range [" + std::to_string(begin) + ", " +
                   std::to_string(end) + "] of session '" + std::string(kSessionPrefix) + id +
                   "'" + (start < begin ? "; " + history.TrimReason() : std::string()));
}

v1::Session Session::ToProto(std::chrono::milliseconds ttl) const {
  v1::Session out;
  out.set_name(std::string(kSessionPrefix) + id);
  out.set_model(std::string(kModelPrefix) + model);
  out.set_state(state);
  out.set_t(t);
  // A client resuming by default starts at delivered_end; that is the index it will get.
  out.set_next_sample_index(streaming ? next_index : std::min(next_index, delivered_end));
  for (const simulate::Column& c : simulation->columns()) ColumnToProto(c, out.add_columns());
  for (double v : values) out.add_values(v);
  for (const auto& [name, value] : simulation->parameters()) (*out.mutable_parameters())[name] = value;
  OptionsToProto(options, out.mutable_options());
  InitializationToProto(simulation->initialization(), out.mutable_initialization());
  StatisticsToProto(statistics, out.mutable_statistics());
  out.set_last_termination(last_termination);
  out.set_last_message(last_message);
  TimestampToProto(create_time, out.mutable_create_time());
  TimestampToProto(update_time, out.mutable_update_time());
  TimestampToProto(update_time + ttl, out.mutable_expire_time());
  out.set_routing_key(routing_key);
  return out;
}

SessionStore::AddResult SessionStore::Add(std::shared_ptr<Session> session) {
  std::lock_guard lock(mutex_);
  Key key{session->tenant, session->id};
  if (sessions_.count(key) != 0) return AddResult::kAlreadyExists;
  if (sessions_.size() >= max_sessions_) return AddResult::kLimit;
  std::size_t& own = per_tenant_[session->tenant];
  if (own >= max_per_tenant_) {
    if (own == 0) per_tenant_.erase(session->tenant);
    return AddResult::kTenantLimit;
  }
  ++own;
  sessions_.emplace(std::move(key), std::move(session));
  return AddResult::kOk;
}

void SessionStore::Erase(std::map<Key, std::shared_ptr<Session>>::iterator it,
                         Session::Removal why) {
  {
    std::lock_guard session_lock(it->second->mutex);
    it->second->removal = why;
    it->second->WakeViewers();
  }
  const auto count = per_tenant_.find(it->first.first);
  if (count != per_tenant_.end() && --count->second == 0) per_tenant_.erase(count);
  sessions_.erase(it);
}

std::shared_ptr<Session> SessionStore::Find(const std::string& tenant,
                                            const std::string& id) const {
  std::lock_guard lock(mutex_);
  const auto it = sessions_.find(Key{tenant, id});
  return it == sessions_.end() ? nullptr : it->second;
}

bool SessionStore::Remove(const std::string& tenant, const std::string& id, bool* streaming) {
  std::lock_guard lock(mutex_);
  const auto it = sessions_.find(Key{tenant, id});
  if (it == sessions_.end()) return false;
  {
    std::lock_guard session_lock(it->second->mutex);
    *streaming = it->second->streaming;
  }
  if (!*streaming) Erase(it, Session::Removal::kDeleted);
  return true;
}

std::vector<std::shared_ptr<Session>> SessionStore::List(const std::string& tenant,
                                                         const std::string& after,
                                                         std::size_t limit) const {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<Session>> out;
  for (auto it = sessions_.upper_bound(Key{tenant, after});
       it != sessions_.end() && it->first.first == tenant && out.size() < limit; ++it) {
    out.push_back(it->second);
  }
  return out;
}

std::size_t SessionStore::Expire(Session::Clock::time_point now) {
  std::lock_guard lock(mutex_);
  std::size_t removed = 0;
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    bool idle = false;
    {
      std::lock_guard session_lock(it->second->mutex);
      idle = !it->second->streaming && now - it->second->last_used > ttl_;
    }
    if (idle) {
      Erase(it++, Session::Removal::kExpired);
      ++removed;
    } else {
      ++it;
    }
  }
  return removed;
}

void SessionStore::TrimReplay(Session* current) {
  if (!replay_budget_.over()) return;
  std::lock_guard lock(mutex_);
  std::vector<std::pair<Session::Clock::time_point, Session*>> by_use;
  by_use.reserve(sessions_.size());
  for (const auto& [id, session] : sessions_) {
    if (session.get() == current) continue;
    std::lock_guard session_lock(session->mutex);
    by_use.emplace_back(session->last_used, session.get());
  }
  std::sort(by_use.begin(), by_use.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  if (current != nullptr) by_use.emplace_back(Session::Clock::time_point::max(), current);
  for (const auto& [last_used, session] : by_use) {
    if (!replay_budget_.over()) return;
    std::lock_guard session_lock(session->mutex);
    session->history.TrimForBudget(session->delivered_end);
  }
}

std::size_t SessionStore::size() const {
  std::lock_guard lock(mutex_);
  return sessions_.size();
}

SessionStore::Census SessionStore::Count() const {
  Census census;
  std::lock_guard lock(mutex_);
  census.by_tenant = per_tenant_;
  for (const auto& [key, session] : sessions_) {
    std::lock_guard session_lock(session->mutex);
    ++census.by_state[session->state];
  }
  return census;
}

std::size_t SessionStore::size(const std::string& tenant) const {
  std::lock_guard lock(mutex_);
  const auto it = per_tenant_.find(tenant);
  return it == per_tenant_.end() ? 0 : it->second;
}

std::string NewSessionId() {
  static std::mutex mutex;
  static std::mt19937_64 engine{std::random_device{}()};
  std::uint64_t bits = 0;
  {
    std::lock_guard lock(mutex);
    bits = engine();
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id = "s-";
  for (int shift = 60; shift >= 0; shift -= 4) id += kHex[(bits >> shift) & 0xF];
  return id;
}

bool IsValidSessionId(const std::string& id) {
  if (id.empty() || id.size() > 63 || id[0] < 'a' || id[0] > 'z') return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

}  // namespace tether::server
