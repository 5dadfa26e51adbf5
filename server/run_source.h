// What a state stream streams: a session (StreamStates) or a one-shot run (Simulate). A
// StreamDriver's computing unit calls every method, on the worker pool, never two at once.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <google/protobuf/repeated_ptr_field.h>
#include <grpcpp/support/status.h>

#include "errors.h"
#include "sample_block.h"
#include "tether/model/model.h"
#include "tether/simulate/simulation.h"
#include "tether/v1/simulation_service.pb.h"

namespace tether::server {

class RunSource {
 public:
  virtual ~RunSource() = default;
  // On a worker, before any message: prepares the run and fills the header. A non-OK status
  // ends the call with it. `cancel` stays valid for the life of the source.
  virtual grpc::Status Begin(const std::atomic<bool>* cancel, v1::StreamHeader* header) = 0;
  // On the caller's thread, before the transport commits to a stream: the error Begin would
  // return for the request as things are now, changing nothing, so that a transport can
  // answer it as a refused call (an HTTP status rather than a stream that ends at once).
  // Begin checks again: things may change in between. OK where nothing is known up front.
  virtual grpc::Status Check() { return grpc::Status::OK; }
  // On a worker, before Begin: zero to Begin now, or how long to wait before asking again. A
  // source whose run is still held by a stream that is ending asks the new stream to wait a
  // little: a client that cancels a stream and at once opens the next one must not be refused
  // because the server has not finished the first (or has not even seen its cancel: the two
  // calls may be handled in either order). `waited` is how long this stream has waited; once
  // the source's grace is spent it answers zero, and Begin decides as it would have.
  virtual std::chrono::milliseconds RetryBeginIn(std::chrono::milliseconds /*waited*/) {
    return std::chrono::milliseconds{0};
  }
  // On a worker: appends at most `max_samples` samples to `frame` (may be none) and returns
  // kRunning to go on, or how the run ended. A source that computes also returns once
  // `return_by` has passed, full or not, even empty: the stream then yields its worker to the
  // other streams and computes on when its turn comes again.
  virtual simulate::Status Next(std::size_t max_samples,
                                std::chrono::steady_clock::time_point return_by,
                                v1::Frame* frame) = 0;
  // The write of `frame` completed (the transport accepted it).
  virtual void Delivered(const v1::Frame& frame) = 0;
  // After Next returned kRunning with an empty frame: true if the source arranged for `wake`
  // to be called once when it has more to send (or must end), so that the stream need not
  // poll; false to be polled again at once (the default: a source that computes always has
  // more). `wake` may be called from any thread, at most once, until End.
  virtual bool WaitForMore(std::function<void()> /*wake*/) { return false; }
  // After Next returned an end: fills the summary and returns the call's final status.
  virtual grpc::Status Summarize(const simulate::Status& end, v1::StreamSummary* summary) = 0;
  // What this stream computed so far (counters over this stream alone; for the metrics). Called
  // by the computing unit, before End.
  [[nodiscard]] virtual simulate::Statistics Work() const = 0;
  // The stream ends (any reason, once, only after a successful Begin): frees what it holds.
  virtual void End(const simulate::Status& end) = 0;
};

// The counters of `now` less those of `before` (the largest residuals are `now`'s): the work
// done between two readings of one simulation's statistics.
simulate::Statistics WorkSince(const simulate::Statistics& before, const simulate::Statistics& now);

// The columns a stream sends, as indices into the run's columns.
class ColumnSelection {
 public:
  // Empty `names` = every column. An unknown or repeated name is a violation
  // "columns[i]: unknown column 'z' (columns: x, y, …)".
  static grpc::Status Make(const std::vector<simulate::Column>& all,
                           const google::protobuf::RepeatedPtrField<std::string>& names,
                           ColumnSelection* out);
  void FillHeader(const std::vector<simulate::Column>& all, v1::StreamHeader* header) const;
  // Appends the selected entries of one full row.
  void AppendRow(std::span<const double> row, v1::Frame* frame) const;

 private:
  std::vector<std::size_t> indices_;
};

// Writes a stream's samples into its frames — the selected columns, the residuals, one
// ACTIVATED/DEACTIVATED event per switch — and keeps the largest and the last residuals sent.
class SampleWriter {
 public:
  SampleWriter() = default;
  // `model` names the inequalities in the switch events' messages. A model without
  // inequalities gets no residual_inequality entries.
  SampleWriter(const model::Model& model, ColumnSelection selection);

  void Append(const simulate::Sample& sample, v1::Frame* frame);

  [[nodiscard]] const Residuals& max() const { return max_; }
  [[nodiscard]] const Residuals& last() const { return last_; }

 private:
  ColumnSelection selection_;
  std::vector<std::string> inequalities_;  // "inequalities[i] (c_i >= 0)", for event messages
  Residuals max_;
  Residuals last_;
};

// The writer of a stream of `sim` over the requested column `names` (empty = all; errors as
// ColumnSelection::Make's), with the header's columns filled in.
grpc::Status MakeWriter(const simulate::Simulation& sim,
                        const google::protobuf::RepeatedPtrField<std::string>& names,
                        v1::StreamHeader* header, SampleWriter* writer);

// Writes row `row` of `block` (copied from a replay history) into `frame`: the sample
// through `writer`, then the session's own events at its index.
void WriteHistoryRow(const SampleBlock& block, std::size_t row, std::size_t columns,
                     SampleWriter* writer, v1::Frame* frame);

// The stop conditions of a StreamStates call (StreamStatesRequest.max_samples, stop_time):
// where a stream pauses without loss, at a frame boundary.
class StopConditions {
 public:
  // INVALID_ARGUMENT naming the field for max_samples = 0 or a stop_time that is not finite.
  static grpc::Status Make(const v1::StreamStatesRequest& request, StopConditions* out);
  // How many of a frame's `frame_samples` may still be sent after `sent` samples.
  [[nodiscard]] std::size_t Budget(std::size_t frame_samples, std::uint64_t sent) const;
  [[nodiscard]] bool has_stop_time() const { return stop_time_.has_value(); }
  // A sample at `t` is the last one to send.
  [[nodiscard]] bool StopsAfter(double t) const { return stop_time_ && t >= *stop_time_; }
  // After a frame: the stream must pause, having sent `sent` samples, the last at `t_last`
  // (`stopped_by_time`: a sample reached stop_time). Sets `*cause` ("max_samples = 64 reached").
  bool Reached(std::uint64_t sent, bool stopped_by_time, std::string* cause) const;

 private:
  std::optional<std::uint64_t> max_samples_;
  std::optional<double> stop_time_;
};

// The summary message of a paused stream: "paused at sample 64 (t = 0.63): max_samples = 64
// reached; the next StreamStates continues there".
std::string PausedMessage(std::uint64_t next_index, double t, const std::string& cause);

// StreamSummary.t, the time of the last good state, for a stream that ended with `end` after
// its last sample at `t_last_sample`: a failed run's last good state is where the failing step
// started (end.t, after the last sample), as the failure's message says; otherwise the last
// sample's time.
double SummaryTime(const simulate::Status& end, double t_last_sample);

// Appends an event at sample `index` (time t) and returns it.
v1::Event* AddEvent(v1::Frame* frame, std::uint64_t index, double t, v1::EventKind kind,
                    std::string message);

// A violation on `field` if the stream's grid asks for more than `limit` samples: the estimate
// (t_end − t) / output_interval, made only when both are finite and output_interval > 0.
std::optional<FieldViolation> SampleCountViolation(double t, double t_end, double output_interval,
                                                   std::uint64_t limit, std::string field);

// Fills Frame.progress.
void SetProgress(double t_start, double t_end, std::uint64_t samples_sent, double wall_seconds,
                 v1::Frame* frame);

}  // namespace tether::server
