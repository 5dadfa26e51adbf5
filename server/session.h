// Sessions: a Simulation kept between calls, with the bookkeeping that makes a broken stream
// resumable (the replay history) and the store that bounds and expires them.
//
// Locking: SessionStore's mutex is taken before a Session::mutex, never after; Session::mutex
// guards every member. The simulation itself is used by at most one
// party at a time: while `streaming` is true only the driving stream touches it (without the
// lock, on a worker; it swaps the `simulation` pointer only under the lock); otherwise the
// service does, holding the lock. Others (GetSession, view-only streams, ControlSession) read
// only under the lock, and only what the driver changes under the lock.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "errors.h"
#include "sample_block.h"
#include "tether/simulate/simulation.h"
#include "tether/v1/simulation_service.pb.h"

namespace tether::server {

// The bytes all sessions' replay histories hold, against the server-wide limit
// (ServerConfig::replay_total_bytes). Atomic, so that histories count without a shared lock.
class ReplayBudget {
 public:
  explicit ReplayBudget(std::size_t max_bytes) : max_bytes_(max_bytes) {}
  void Add(std::size_t bytes) { total_.fetch_add(bytes); }
  void Remove(std::size_t bytes) { total_.fetch_sub(bytes); }
  [[nodiscard]] bool over() const { return total_.load() > max_bytes_; }
  [[nodiscard]] std::size_t total() const { return total_.load(); }
  [[nodiscard]] std::size_t max_bytes() const { return max_bytes_; }

 private:
  const std::size_t max_bytes_;
  std::atomic<std::size_t> total_{0};
};

// The most recent computed blocks of a session (at most `max_bytes` of them, but always the
// newest), so a stream can start at an index a broken stream computed but the client may not
// have received. Counts its bytes in `budget` (if not null), which must outlive it.
class ReplayHistory {
 public:
  ReplayHistory(std::size_t max_bytes, ReplayBudget* budget)
      : max_bytes_(max_bytes), budget_(budget) {}
  ~ReplayHistory() { Clear(); }
  ReplayHistory(const ReplayHistory&) = delete;
  ReplayHistory& operator=(const ReplayHistory&) = delete;

  void Append(SampleBlock block);
  // Forgets every block (also that the budget trimmed any).
  void Clear();
  // For the server-wide budget: drops the oldest blocks that end at or before
  // `delivered_end` while the budget is exceeded. Samples not yet delivered are owed to the
  // client's default resume and cannot be recomputed, so they stay.
  void TrimForBudget(std::uint64_t delivered_end);
  // Index of the oldest retained sample (== end when empty).
  [[nodiscard]] std::uint64_t begin_index(std::uint64_t end) const;
  // One past the newest retained sample (== end when empty).
  [[nodiscard]] std::uint64_t end_index(std::uint64_t end) const;
  // Why samples before begin_index are gone, naming the limit that dropped them.
  [[nodiscard]] std::string TrimReason() const;
  // Copies samples [index, min(index + count, retained end)) into `out`, with the session
  // events at them; returns how many.
  std::size_t Copy(std::uint64_t index, std::size_t count, std::size_t columns,
                   SampleBlock* out) const;

 private:
  void PopFront();

  std::size_t max_bytes_;
  ReplayBudget* budget_;
  std::size_t bytes_ = 0;
  // The last block dropped was dropped for the server-wide budget (not for max_bytes).
  bool budget_trimmed_ = false;
  std::deque<SampleBlock> blocks_;
};

// A ControlSession command queued for the session's driving stream, which carries it out
// between two frames (ControlSessionRequest). Commands merge: the later value of a name wins.
struct ControlCommand {
  bool pause = false;
  std::map<std::string, double> parameters;
  std::map<std::string, double> values;

  [[nodiscard]] bool changes() const { return !parameters.empty() || !values.empty(); }
  [[nodiscard]] bool empty() const { return !pause && !changes(); }
  void Merge(const ControlCommand& later);
};

// A change of parameters and/or state values made on a copy of a run, so that a failure
// changes nothing.
struct ChangedRun {
  std::unique_ptr<simulate::Simulation> simulation;  // the changed run; null if refused
  std::vector<FieldViolation> violations;            // why it was refused
  // EVENT_KIND_UPDATED naming the change and what consistent initialization corrected;
  // sample_index and t are the installer's to set.
  v1::Event event;
};
// `current` changed by `change` (its parameters and values; the pause is not this function's).
// Violations are named as UpdateSession's fields ("parameters.k", "values.x").
ChangedRun ChangeRun(const simulate::Simulation& current, const ControlCommand& change);

struct Session {
  using Clock = std::chrono::steady_clock;

  // `tenant_in`: the tenant that created it ("" without tenants; a fork is its parent's).
  // `routing_key_in`: the x-tether-session key of the session's calls; empty = `id_in` (a root
  // session), a fork passes its parent's.
  Session(std::string tenant_in, std::string id_in, std::string model_in,
          std::unique_ptr<simulate::Simulation> sim, std::size_t replay_bytes,
          ReplayBudget* replay_budget, std::string routing_key_in = {});

  const std::string tenant;  // who may see it: only calls of this tenant find it
  const std::string id;     // without "sessions/"; unique within its tenant
  const std::string routing_key;
  const std::string model;  // model name without "models/"
  const std::chrono::system_clock::time_point create_time = std::chrono::system_clock::now();

  std::mutex mutex;
  std::unique_ptr<simulate::Simulation> simulation;
  bool streaming = false;
  // The cancel flag of the driving stream while `streaming` (the stream's own; valid until it
  // ends), so that a new stream can tell an ending driver from a running one.
  const std::atomic<bool>* stream_cancel = nullptr;
  v1::SessionState state = v1::SESSION_STATE_CREATED;
  v1::Termination last_termination = v1::TERMINATION_UNSPECIFIED;
  std::string last_message;
  ReplayHistory history;
  // One past the last sample whose write completed; where a stream starts by default.
  std::uint64_t delivered_end = 0;
  // Events of the session itself (a change: EVENT_KIND_UPDATED; a live change that could not
  // be applied: EVENT_KIND_WARNING) whose sample is not computed yet: the next computed sample
  // carries them (its index is their sample_index), and the history keeps them for replays
  // and viewers.
  std::vector<v1::Event> pending_events;
  // ControlSession's command for the driving stream; empty when none waits.
  ControlCommand control;
  // Whether and why the session left the store; view-only streams end once it did.
  enum class Removal { kNone, kDeleted, kExpired };
  Removal removal = Removal::kNone;
  // View-only streams waiting for samples, by stream: each is called once (under `mutex`) when
  // the history grows or the session is deleted, then forgotten. A waiter unregisters itself
  // before it goes away.
  std::map<const void*, std::function<void()>> waiting_viewers;
  std::chrono::system_clock::time_point update_time = create_time;
  Clock::time_point last_used = Clock::now();

  // Snapshot read by GetSession while a stream runs (refreshed after every frame).
  double t = 0.0;
  std::uint64_t next_index = 0;
  std::vector<double> values;
  simulate::Statistics statistics;
  simulate::Options options;
  Residuals last_residuals;  // of the last computed sample, for a failed stream's ErrorInfo

  // Signalled when the driving stream ends (`streaming` turns false).
  std::condition_variable driver_ended;

  // How long a call that needs the session waits for its driving stream to let go. A client
  // that cancels a stream and at once resumes, updates, forks or deletes the session must not
  // be refused because the server has not finished that stream yet, or not even seen its
  // cancel (the two calls may be handled in either order). A running driver is given
  // kUnseenCancelGrace for a cancel on its way; a cancelled one ends within one frame's
  // computation (the per-stream step and sample limits bound it) and is given
  // kEndingDriverGrace.
  static constexpr std::chrono::milliseconds kUnseenCancelGrace{250};
  static constexpr std::chrono::milliseconds kEndingDriverGrace{2000};

  // True if the driving stream is cancelled and has not ended yet. Caller holds `mutex`.
  [[nodiscard]] bool DriverEnding() const {
    return streaming && stream_cancel != nullptr && stream_cancel->load();
  }
  // True if no stream drives the session, after waiting (as above) for a driver to let go.
  // `lock` holds `mutex`.
  bool AwaitDriverRelease(std::unique_lock<std::mutex>& lock);
  // Marks the session used now (renews expire_time).
  void Touch();
  // Copies time, index, values, statistics, options from the simulation (caller: the party
  // that may touch it). Marks the session used.
  void Refresh();
  // Installs a changed run (ChangeRun's) at the current sample: the next computed sample
  // carries `event`. Caller holds `mutex` and may touch the simulation.
  void InstallChange(std::unique_ptr<simulate::Simulation> changed, v1::Event event);
  // Calls and forgets every waiting viewer. Caller holds `mutex`.
  void WakeViewers();
  // The resource (caller holds `mutex`). `ttl` gives expire_time.
  [[nodiscard]] v1::Session ToProto(std::chrono::milliseconds ttl) const;
  // OK if a stream may start at sample `start` of the range [begin, end] it can send, or
  // FAILED_PRECONDITION naming the range (`what`: "replayable", "viewable") and, before it,
  // why the history let go of those samples. Caller holds `mutex`.
  [[nodiscard]] grpc::Status CheckStart(std::uint64_t start, std::uint64_t begin,
                                        std::uint64_t end, std::string_view what) const;
};

// All sessions of a server, bounded by `max_sessions` (and `max_per_tenant` per tenant),
// expiring after `ttl` of disuse; their replay histories together bounded by
// `replay_total_bytes` (see TrimReplay). Sessions are kept per tenant: every lookup names the
// tenant, and another tenant's session of the same id is a different one.
class SessionStore {
 public:
  SessionStore(std::size_t max_sessions, std::size_t max_per_tenant,
               std::chrono::milliseconds ttl, std::size_t replay_total_bytes)
      : max_sessions_(max_sessions),
        max_per_tenant_(max_per_tenant),
        ttl_(ttl),
        replay_budget_(replay_total_bytes) {}

  enum class AddResult { kOk, kAlreadyExists, kLimit, kTenantLimit };
  AddResult Add(std::shared_ptr<Session> session);
  [[nodiscard]] std::shared_ptr<Session> Find(const std::string& tenant,
                                              const std::string& id) const;
  // Removes the session unless it streams; false if unknown. `*streaming` set if it streams.
  bool Remove(const std::string& tenant, const std::string& id, bool* streaming);
  // The tenant's sessions with id > after, sorted, at most `limit`.
  [[nodiscard]] std::vector<std::shared_ptr<Session>> List(const std::string& tenant,
                                                           const std::string& after,
                                                           std::size_t limit) const;
  // The live sessions counted by state and by tenant (for the metrics). Takes each session's
  // lock briefly, after the store's, as every caller does.
  struct Census {
    std::map<v1::SessionState, std::size_t> by_state;
    std::map<std::string, std::size_t> by_tenant;
  };
  [[nodiscard]] Census Count() const;
  // Deletes sessions idle for longer than ttl (never a streaming one); returns how many.
  std::size_t Expire(Session::Clock::time_point now);
  // If the replay histories exceed the budget: trims the delivered history of the least
  // recently used sessions, oldest samples first, until within it; `current` (the session a
  // stream writes, may be null) last. Caller holds no Session::mutex. Does not wait on clients:
  // the locks it takes guard only short bookkeeping.
  void TrimReplay(Session* current);
  // The sessions' histories count here; lives as long as the store (so, its sessions).
  [[nodiscard]] ReplayBudget* replay_budget() { return &replay_budget_; }
  [[nodiscard]] std::size_t replay_bytes_held() const { return replay_budget_.total(); }
  [[nodiscard]] std::size_t size() const;
  [[nodiscard]] std::size_t size(const std::string& tenant) const;
  [[nodiscard]] std::size_t max_sessions() const { return max_sessions_; }
  [[nodiscard]] std::size_t max_per_tenant() const { return max_per_tenant_; }
  [[nodiscard]] std::chrono::milliseconds ttl() const { return ttl_; }

 private:
  using Key = std::pair<std::string, std::string>;  // (tenant, id)
  void Erase(std::map<Key, std::shared_ptr<Session>>::iterator it,
             Session::Removal why);  // mutex_ held

  std::size_t max_sessions_;
  std::size_t max_per_tenant_;
  std::chrono::milliseconds ttl_;
  // Declared before sessions_: destroyed after the histories that count in it.
  ReplayBudget replay_budget_;
  mutable std::mutex mutex_;
  std::map<Key, std::shared_ptr<Session>> sessions_;
  std::map<std::string, std::size_t> per_tenant_;  // sessions of each tenant that has any
};

// "s-" followed by 16 random lowercase hex digits.
std::string NewSessionId();
// True iff `id` matches [a-z][a-z0-9-]{0,62}.
bool IsValidSessionId(const std::string& id);

}  // namespace tether::server
