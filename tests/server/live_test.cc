// Pausing without loss (stop conditions, ControlSession's pause), live changes while a session
// streams, read-only viewers, and the history an UpdateSession keeps, every call with a
// deadline. The tests of the service's promises (LiveAnyServerTest) run twice: against an
// in-process server and against a real tether-server process on 127.0.0.1 (TCP flow control,
// transport buffers and the server's own threads); the rest run in-process.
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_support.h"
#include "tether/client/client.h"

namespace tether::server::testing {
namespace {

using ::testing::HasSubstr;

// The seed pendulum (models/pendulum.json), l = 2.5 m: the projection stops at a scaled
// residual ≤ 1e-12, unscaled ≤ 1e-12·l² ≈ 6e-12; 1e-9 leaves room for the scale convention
// (as in service_test.cc).
constexpr double kResidualTolerance = 1e-9;
// A bound on any loop that waits for samples: far above what a test reads (< 10⁴).
constexpr std::size_t kMaxSamplesRead = 200'000;

class LiveTest : public ServerFixture {
 protected:
  void SetUp() override {
    ServerFixture::SetUp();
    channel_ = server_->InProcessChannel();
  }

  v1::Session MustCreate(const std::string& id, double t_end) {
    v1::SimulationOptions options;
    options.set_t_end(t_end);
    options.set_output_interval(0.01);
    return MustCreateSession("pendulum", id, options);
  }

  // An uninterrupted run of a new session `id` to t_end, in frames of `frame_samples`.
  Collected Whole(const std::string& id, double t_end, std::uint32_t frame_samples) {
    MustCreate(id, t_end);
    v1::StreamStatesRequest request;
    request.set_name("sessions/" + id);
    request.set_frame_samples(frame_samples);
    Collected whole = Stream(stub_.get(), request);
    EXPECT_TRUE(whole.status.ok()) << whole.status.error_message();
    return whole;
  }

  grpc::Status Control(const v1::ControlSessionRequest& request, v1::Session* session = nullptr) {
    grpc::ClientContext context;
    SetDeadline(&context);
    v1::Session ignored;
    return stub_->ControlSession(&context, request, session != nullptr ? session : &ignored);
  }

  grpc::Status Update(const std::string& name, const std::map<std::string, double>& parameters,
                      v1::Session* session) {
    grpc::ClientContext context;
    SetDeadline(&context);
    v1::UpdateSessionRequest request;
    request.set_name(name);
    request.mutable_parameters()->insert(parameters.begin(), parameters.end());
    return stub_->UpdateSession(&context, request, session);
  }

  grpc::Status Pause(const std::string& name) {
    v1::ControlSessionRequest request;
    request.set_name(name);
    request.set_pause(true);
    return Control(request);
  }

  std::shared_ptr<grpc::Channel> channel_;  // to the server of the test, in-process or not
};

// Where the server of a LiveAnyServerTest runs.
enum class Where { kInProcess, kProcess };

class LiveAnyServerTest : public LiveTest, public ::testing::WithParamInterface<Where> {
 protected:
  void SetUp() override {
    if (GetParam() == Where::kInProcess) return LiveTest::SetUp();
    // The process's defaults are the in-process TestConfig's that matter here: replay_bytes
    // 4 MiB, 2 worker threads (ServerProcess), default frame sizes.
    process_ = std::make_unique<ServerProcess>(TETHER_SERVER_BINARY, std::vector<std::string>{"--quiet"});
    const int port = process_->WaitForPort();
    ASSERT_GT(port, 0) << process_->Log();
    channel_ = grpc::CreateChannel("127.0.0.1:" + std::to_string(port),
                                   grpc::InsecureChannelCredentials());
    stub_ = v1::SimulationService::NewStub(channel_);
  }

  std::unique_ptr<ServerProcess> process_;
};

std::string WhereName(const ::testing::TestParamInfo<Where>& info) {
  return info.param == Where::kInProcess ? "InProcess" : "Process";
}

INSTANTIATE_TEST_SUITE_P(Servers, LiveAnyServerTest,
                         ::testing::Values(Where::kInProcess, Where::kProcess), WhereName);

// Adds one chunk to what a stream collected; true for a frame.
bool Add(const v1::StateChunk& chunk, Collected* out) {
  if (chunk.has_header()) out->header = chunk.header();
  if (chunk.has_summary()) {
    out->has_summary = true;
    out->summary = chunk.summary();
  }
  if (!chunk.has_frame()) return false;
  const v1::Frame& f = chunk.frame();
  for (int i = 0; i < f.t_size(); ++i) out->index.push_back(f.first_sample_index() + static_cast<std::uint64_t>(i));
  out->t.insert(out->t.end(), f.t().begin(), f.t().end());
  out->values.insert(out->values.end(), f.values().begin(), f.values().end());
  out->residual_position.insert(out->residual_position.end(), f.residual_position().begin(),
                                f.residual_position().end());
  out->events.insert(out->events.end(), f.events().begin(), f.events().end());
  return true;
}

void ExpectSameSamples(const Collected& a, const Collected& b) {
  ASSERT_EQ(a.index, b.index);
  ASSERT_EQ(a.values.size(), b.values.size());
  for (std::size_t i = 0; i < a.t.size(); ++i) EXPECT_EQ(a.t[i], b.t[i]) << i;
  for (std::size_t i = 0; i < a.values.size(); ++i) EXPECT_EQ(a.values[i], b.values[i]) << i;
}

void ExpectConsecutive(const Collected& c, std::uint64_t first) {
  for (std::size_t i = 0; i < c.index.size(); ++i) ASSERT_EQ(c.index[i], first + i) << i;
}

const v1::Event* FindEvent(const Collected& c, v1::EventKind kind) {
  for (const v1::Event& e : c.events) {
    if (e.kind() == kind) return &e;
  }
  return nullptr;
}

// A pause by max_samples ends the stream with status OK at exactly that many samples, and
// the resume without start_sample_index continues there: together they are, bit for bit, the
// uninterrupted run (Advance continues exactly after its last sample, simulation.h).
TEST_P(LiveAnyServerTest, MaxSamplesPausesLosslesslyAndTheDefaultResumeContinues) {
  const Collected whole = Whole("whole", 1.0, 10);
  MustCreate("paused", 1.0);
  v1::StreamStatesRequest request;
  request.set_frame_samples(10);

  request.set_name("sessions/paused");
  request.set_max_samples(37);
  Collected joined = Stream(stub_.get(), request);
  ASSERT_TRUE(joined.status.ok()) << joined.status.error_message();
  ASSERT_TRUE(joined.has_summary);
  EXPECT_EQ(joined.summary.termination(), v1::TERMINATION_PAUSED);
  EXPECT_EQ(joined.summary.next_sample_index(), 37u);
  EXPECT_THAT(joined.summary.message(), HasSubstr("paused at sample 37"));
  EXPECT_THAT(joined.summary.message(), HasSubstr("max_samples = 37 reached"));
  ExpectConsecutive(joined, 0);
  EXPECT_EQ(joined.index.size(), 37u);
  // Nothing in flight: the session's default resume index is the pause index.
  const v1::Session paused = WaitNotRunning("sessions/paused");
  EXPECT_EQ(paused.state(), v1::SESSION_STATE_PAUSED);
  EXPECT_EQ(paused.last_termination(), v1::TERMINATION_PAUSED);
  EXPECT_EQ(paused.next_sample_index(), 37u);

  request.clear_max_samples();
  const Collected rest = Stream(stub_.get(), request);
  ASSERT_TRUE(rest.status.ok()) << rest.status.error_message();
  EXPECT_EQ(rest.header.first_sample_index(), 37u);
  Join(rest, &joined);
  ExpectSameSamples(joined, whole);
  EXPECT_EQ(joined.summary.termination(), v1::TERMINATION_REACHED_END);
}

// stop_time ends the stream after the first grid sample at or past it, and neither moves the
// grid nor shortens a step: the resumed run equals the uninterrupted one bit for bit.
TEST_F(LiveTest, StopTimePausesAfterTheFirstSampleAtOrPastIt) {
  const Collected whole = Whole("whole", 1.0, 16);
  MustCreate("timed", 1.0);
  v1::StreamStatesRequest request;
  request.set_frame_samples(16);

  constexpr double kStop = 0.255;  // between the grid points 0.25 and 0.26
  request.set_name("sessions/timed");
  request.set_stop_time(kStop);
  Collected joined = Stream(stub_.get(), request);
  ASSERT_TRUE(joined.status.ok()) << joined.status.error_message();
  EXPECT_EQ(joined.summary.termination(), v1::TERMINATION_PAUSED);
  ASSERT_GE(joined.t.size(), 2u);
  EXPECT_GE(joined.t.back(), kStop);
  EXPECT_LT(joined.t[joined.t.size() - 2], kStop);
  EXPECT_EQ(joined.summary.next_sample_index(), joined.index.back() + 1);
  EXPECT_THAT(joined.summary.message(), HasSubstr("stop_time = 0.255 reached"));

  request.clear_stop_time();
  const Collected rest = Stream(stub_.get(), request);
  ASSERT_TRUE(rest.status.ok()) << rest.status.error_message();
  Join(rest, &joined);
  ExpectSameSamples(joined, whole);
}

TEST_F(LiveTest, BadStopConditionsAreNamed) {
  MustCreate("bad", 1.0);
  v1::StreamStatesRequest request;
  request.set_name("sessions/bad");
  request.set_max_samples(0);
  request.set_stop_time(std::nan(""));
  const Collected refused = Stream(stub_.get(), request);
  EXPECT_EQ(refused.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  const google::rpc::BadRequest bad = BadRequestOf(refused.status);
  ASSERT_EQ(bad.field_violations_size(), 2);
  EXPECT_EQ(bad.field_violations(0).field(), "max_samples");
  EXPECT_EQ(bad.field_violations(1).field(), "stop_time");
  EXPECT_EQ(Get("sessions/bad").state(), v1::SESSION_STATE_CREATED);
}

// A cancel may lose what the transport had accepted; start_sample_index = last received + 1
// gets it back from the replay history, with no gap.
TEST_F(LiveTest, CancelThenResumeFromTheLastReceivedSampleHasNoGap) {
  const Collected whole = Whole("whole", 1.0, 4);
  MustCreate("cut", 1.0);
  v1::StreamStatesRequest request;
  request.set_frame_samples(4);

  request.set_name("sessions/cut");
  Collected joined = Stream(stub_.get(), request, 12);
  EXPECT_EQ(joined.status.error_code(), grpc::StatusCode::CANCELLED);
  WaitNotRunning("sessions/cut");
  request.set_start_sample_index(joined.index.back() + 1);
  const Collected rest = Stream(stub_.get(), request);
  ASSERT_TRUE(rest.status.ok()) << rest.status.error_message();
  Join(rest, &joined);
  ExpectSameSamples(joined, whole);
}

// ControlSession's pause ends an open (indefinite) stream at a frame boundary with status OK:
// the client has every sample before the summary's next index, and nothing else.
TEST_P(LiveAnyServerTest, ControlPauseEndsTheStreamAtAFrameBoundary) {
  MustCreate("driven", 1.0);
  v1::StreamStatesRequest request;
  request.set_name("sessions/driven");
  request.set_indefinite(true);
  request.set_frame_samples(5);
  grpc::ClientContext context;
  SetDeadline(&context);
  auto reader = stub_->StreamStates(&context, request);
  Collected got;
  v1::StateChunk chunk;
  while (got.index.size() < 20 && reader->Read(&chunk)) Add(chunk, &got);
  ASSERT_GE(got.index.size(), 20u);
  ASSERT_TRUE(Pause("sessions/driven").ok());
  while (got.index.size() < kMaxSamplesRead && reader->Read(&chunk)) Add(chunk, &got);
  const grpc::Status status = reader->Finish();
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_TRUE(got.has_summary);
  EXPECT_EQ(got.summary.termination(), v1::TERMINATION_PAUSED);
  EXPECT_THAT(got.summary.message(), HasSubstr("ControlSession asked for a pause"));
  ExpectConsecutive(got, 0);
  EXPECT_EQ(got.summary.next_sample_index(), got.index.size());
  EXPECT_EQ(got.index.size() % 5, 0u);  // whole frames
  EXPECT_EQ(WaitNotRunning("sessions/driven").next_sample_index(), got.index.size());

  // Without a stream a pause has nothing to stop; the next stream resumes at the same index.
  ASSERT_TRUE(Pause("sessions/driven").ok());
  request.set_indefinite(false);
  request.set_t_end(100.0);  // the indefinite stream made the session's horizon +inf
  request.set_max_samples(3);
  const Collected next = Stream(stub_.get(), request);
  ASSERT_TRUE(next.status.ok()) << next.status.error_message();
  ExpectConsecutive(next, got.index.size());
}

// An indefinite stream has no horizon: a t_end beside it is refused, not ignored, and the
// session keeps no horizon after it, so a plain resume (no t_end) continues without one.
TEST_F(LiveTest, AnIndefiniteStreamLeavesTheSessionWithoutAHorizon) {
  MustCreate("open", 1.0);
  v1::StreamStatesRequest request;
  request.set_name("sessions/open");
  request.set_indefinite(true);
  request.set_t_end(3.0);
  const Collected both = Stream(stub_.get(), request);
  EXPECT_EQ(both.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  const google::rpc::BadRequest bad = BadRequestOf(both.status);
  ASSERT_EQ(bad.field_violations_size(), 1);
  EXPECT_EQ(bad.field_violations(0).field(), "t_end");
  EXPECT_THAT(bad.field_violations(0).description(), HasSubstr("must be absent"));
  request.clear_t_end();
  request.set_max_samples(150);  // past the session's t_end of 1 (samples every 0.01)
  const Collected open = Stream(stub_.get(), request);
  ASSERT_TRUE(open.status.ok()) << open.status.error_message();
  ASSERT_EQ(open.index.size(), 150u);
  request.set_indefinite(false);
  request.set_max_samples(20);
  const Collected resumed = Stream(stub_.get(), request);
  ASSERT_TRUE(resumed.status.ok()) << resumed.status.error_message();
  ExpectConsecutive(resumed, 150);
  EXPECT_EQ(resumed.index.size(), 20u);
  EXPECT_EQ(resumed.summary.termination(), v1::TERMINATION_PAUSED);
}

TEST_F(LiveTest, ControlRefusesBadNamesAndEmptyCommands) {
  MustCreate("steered", 1.0);
  v1::ControlSessionRequest request;
  request.set_name("sessions/steered");
  grpc::Status status = Control(request);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("nothing to do"));

  // While a stream is open: refused before it is queued, so nothing is applied.
  v1::StreamStatesRequest stream;
  stream.set_name("sessions/steered");
  stream.set_indefinite(true);
  stream.set_frame_samples(1);
  grpc::ClientContext context;
  SetDeadline(&context);
  auto reader = stub_->StreamStates(&context, stream);
  v1::StateChunk chunk;
  ASSERT_TRUE(reader->Read(&chunk));
  ASSERT_TRUE(chunk.has_header());
  (*request.mutable_parameters())["lenght"] = 2.0;
  (*request.mutable_values())["x"] = std::nan("");
  status = Control(request);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  const google::rpc::BadRequest bad = BadRequestOf(status);
  ASSERT_EQ(bad.field_violations_size(), 2);
  EXPECT_EQ(bad.field_violations(0).field(), "parameters.lenght");
  EXPECT_THAT(bad.field_violations(0).description(), HasSubstr("unknown parameter 'lenght'"));
  EXPECT_EQ(bad.field_violations(1).field(), "values.x");
  EXPECT_DOUBLE_EQ(Get("sessions/steered").parameters().at("l"), 2.5);
  // A value outside the model's range (l in [0.01, 10] m) is refused the same way, by the
  // check every other path makes (ParametersOutsideTheModelsRangeAreRefusedOnEveryPath).
  request.mutable_parameters()->clear();
  request.mutable_values()->clear();
  (*request.mutable_parameters())["l"] = 20.0;
  status = Control(request);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  const google::rpc::BadRequest out_of_range = BadRequestOf(status);
  ASSERT_EQ(out_of_range.field_violations_size(), 1);
  EXPECT_EQ(out_of_range.field_violations(0).field(), "parameters.l");
  EXPECT_EQ(out_of_range.field_violations(0).description(),
            "parameter 'l' = 20; must be in [0.01, 10] (the model's range)");
  EXPECT_DOUBLE_EQ(Get("sessions/steered").parameters().at("l"), 2.5);
  context.TryCancel();
  while (reader->Read(&chunk)) {
  }
  reader->Finish();
}

// The catalog pendulum's rod length l has the range [0.01, 10] m (models/pendulum.json). Every
// path that applies a parameter refuses l = 20 on the field "parameters.l" with the value and
// the range, changing nothing, and takes l = 10, the upper end of the closed range.
TEST_F(LiveTest, ParametersOutsideTheModelsRangeAreRefusedOnEveryPath) {
  const std::string why = "parameter 'l' = 20; must be in [0.01, 10] (the model's range)";
  auto expect_refused = [&](const grpc::Status& status, const std::string& path) {
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << path;
    const google::rpc::BadRequest bad = BadRequestOf(status);
    ASSERT_EQ(bad.field_violations_size(), 1) << path << ": " << status.error_message();
    EXPECT_EQ(bad.field_violations(0).field(), "parameters.l") << path;
    EXPECT_EQ(bad.field_violations(0).description(), why) << path;
    EXPECT_THAT(status.error_message(), HasSubstr("parameters.l: " + why)) << path;
  };

  v1::CreateSessionRequest create;
  create.set_model("models/pendulum");
  create.set_session_id("ranged");
  (*create.mutable_parameters())["l"] = 20.0;
  v1::Session session;
  expect_refused(CreateSession(create, &session), "CreateSession");
  (*create.mutable_parameters())["l"] = 10.0;
  ASSERT_TRUE(CreateSession(create, &session).ok());
  EXPECT_DOUBLE_EQ(session.parameters().at("l"), 10.0);

  v1::SimulateRequest simulate;
  simulate.set_model("models/pendulum");
  simulate.mutable_options()->set_t_end(0.05);
  (*simulate.mutable_parameters())["l"] = 20.0;
  expect_refused(RunSimulate(stub_.get(), simulate).status, "Simulate");
  (*simulate.mutable_parameters())["l"] = 10.0;
  const Collected simulated = RunSimulate(stub_.get(), simulate);
  EXPECT_TRUE(simulated.status.ok()) << simulated.status.error_message();

  expect_refused(Update("sessions/ranged", {{"l", 20.0}}, &session), "UpdateSession");
  EXPECT_DOUBLE_EQ(Get("sessions/ranged").parameters().at("l"), 10.0);
  ASSERT_TRUE(Update("sessions/ranged", {{"l", 2.0}}, &session).ok());
  EXPECT_DOUBLE_EQ(session.parameters().at("l"), 2.0);

  // ControlSession without a stream applies the change itself.
  v1::ControlSessionRequest control;
  control.set_name("sessions/ranged");
  (*control.mutable_parameters())["l"] = 20.0;
  expect_refused(Control(control), "ControlSession, idle");
  (*control.mutable_parameters())["l"] = 3.0;
  ASSERT_TRUE(Control(control, &session).ok());
  EXPECT_DOUBLE_EQ(session.parameters().at("l"), 3.0);
  // ControlSession with a stream open: ControlRefusesBadNamesAndEmptyCommands.
}

// A parameter change during a stream: the stream's worker applies it between frames,
// re-initializes (the rod length changes, so positions move onto the new circle) and reports
// EVENT_KIND_UPDATED at the first sample after it. From there on the trajectory is the one a
// fresh session started from the changed state with the new parameter computes.
TEST_P(LiveAnyServerTest, ControlChangesAParameterMidStream) {
  MustCreate("steered", 100.0);
  v1::StreamStatesRequest request;
  request.set_frame_samples(4);
  request.set_name("sessions/steered");
  request.set_indefinite(true);
  grpc::ClientContext context;
  SetDeadline(&context);
  auto reader = stub_->StreamStates(&context, request);
  Collected got;
  v1::StateChunk chunk;
  while (got.index.size() < 20 && reader->Read(&chunk)) Add(chunk, &got);
  v1::ControlSessionRequest change;
  change.set_name("sessions/steered");
  (*change.mutable_parameters())["l"] = 2.0;
  ASSERT_TRUE(Control(change).ok());
  // The indefinite stream goes on until paused: read past the change, then pause.
  const v1::Event* updated = nullptr;
  while (got.index.size() < kMaxSamplesRead && reader->Read(&chunk)) {
    Add(chunk, &got);
    if (updated == nullptr) updated = FindEvent(got, v1::EVENT_KIND_UPDATED);
    if (updated != nullptr && got.index.size() > updated->sample_index() + 25) break;
  }
  ASSERT_NE(updated, nullptr);
  ASSERT_TRUE(Pause("sessions/steered").ok());
  while (got.index.size() < kMaxSamplesRead && reader->Read(&chunk)) Add(chunk, &got);
  const grpc::Status status = reader->Finish();
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(got.summary.termination(), v1::TERMINATION_PAUSED);
  ExpectConsecutive(got, 0);
  updated = FindEvent(got, v1::EVENT_KIND_UPDATED);  // `got` grew: find it again
  ASSERT_NE(updated, nullptr);
  const std::uint64_t n = updated->sample_index();
  ASSERT_GE(n, 20u);
  ASSERT_LT(n + 20, got.index.size());
  EXPECT_EQ(updated->t(), got.t[n]);
  EXPECT_THAT(updated->message(), HasSubstr("l = 2 (was 2.5)"));
  // The rod shrank from 2.5 to 2: initialization moved the positions.
  EXPECT_FALSE(updated->initialization().changes().empty());
  const std::size_t c = static_cast<std::size_t>(got.header.columns_size());
  ASSERT_EQ(got.header.columns(0).name(), "x");
  ASSERT_EQ(got.header.columns(1).name(), "y");
  for (std::uint64_t i = n; i < got.index.size(); ++i) {
    EXPECT_NEAR(std::hypot(got.values[i * c], got.values[i * c + 1]), 2.0, kResidualTolerance) << i;
    EXPECT_LE(got.residual_position[i], kResidualTolerance) << i;
  }

  // It differs from the unchanged run (the shorter pendulum swings faster: centimetres apart
  // within 0.2 s)…
  MustCreate("unchanged", 100.0);
  request.set_name("sessions/unchanged");
  request.set_indefinite(false);
  request.set_max_samples(n + 21);
  const Collected unchanged = Stream(stub_.get(), request);
  ASSERT_TRUE(unchanged.status.ok()) << unchanged.status.error_message();
  ASSERT_EQ(unchanged.index.size(), n + 21);
  EXPECT_GT(std::abs(got.values[(n + 20) * c] - unchanged.values[(n + 20) * c]), 1e-3);

  // …and equals a fresh run from the changed state with l = 2. The state after the change is
  // sample n − 1's with the corrected values of the event. The pendulum is autonomous and the
  // grid restarts at the change, so the fresh run's sample k is sample n − 1 + k of the
  // steered run, up to both runs' error control: each is within about rtol (1e-8) of the exact
  // solution relative to |q| ≈ 2, so they agree to 100 rtol.
  constexpr double kRunTolerance = 100 * 1e-8 * 2.0;
  v1::CreateSessionRequest fresh;
  fresh.set_model("models/pendulum");
  fresh.set_session_id("fresh");
  (*fresh.mutable_parameters())["l"] = 2.0;
  for (std::size_t j = 0; j < 4; ++j) {
    (*fresh.mutable_initial_values())[got.header.columns(static_cast<int>(j)).name()] =
        got.values[(n - 1) * c + j];
  }
  for (const v1::InitializationReport::Change& moved : updated->initialization().changes()) {
    (*fresh.mutable_initial_values())[moved.name()] = moved.corrected();
  }
  fresh.mutable_options()->set_t_end(0.5);
  fresh.mutable_options()->set_output_interval(0.01);
  v1::Session created;
  const grpc::Status fresh_status = CreateSession(fresh, &created);
  ASSERT_TRUE(fresh_status.ok()) << fresh_status.error_message();
  request.set_name("sessions/fresh");
  request.clear_max_samples();
  const Collected from_state = Stream(stub_.get(), request);
  ASSERT_TRUE(from_state.status.ok()) << from_state.status.error_message();
  ASSERT_GE(from_state.index.size(), 21u);
  for (std::size_t k = 1; k <= 20; ++k) {
    const std::size_t i = static_cast<std::size_t>(n - 1 + k);
    EXPECT_NEAR(from_state.t[k] + got.t[n - 1], got.t[i], 1e-12) << k;
    for (std::size_t j = 0; j < 4; ++j) {
      EXPECT_NEAR(from_state.values[k * c + j], got.values[i * c + j], kRunTolerance) << k << " " << j;
    }
  }
}

// Opens a view-only stream of `session` and reads its header: the viewer has then joined at
// the session's current end.
std::unique_ptr<grpc::ClientReader<v1::StateChunk>> OpenViewer(
    v1::SimulationService::Stub* stub, grpc::ClientContext* context, const std::string& session,
    std::uint32_t frame_samples, std::optional<std::uint64_t> max_samples) {
  SetDeadline(context);
  v1::StreamStatesRequest view;
  view.set_name(session);
  view.set_view_only(true);
  view.set_frame_samples(frame_samples);
  if (max_samples) view.set_max_samples(*max_samples);
  auto reader = stub->StreamStates(context, view);
  v1::StateChunk header;
  EXPECT_TRUE(reader->Read(&header));
  EXPECT_TRUE(header.has_header());
  return reader;
}

// Three viewers that read get exactly the driver's samples from where they joined, each at its
// own frame size and pace: one sleeps a millisecond before every read, so it trails the driver
// and is served from the history. A fourth that never reads does not hold the driver back: the
// driver completes all its samples meanwhile. The history (default replay_bytes, 4 MiB) holds
// the whole run (20001 samples of 10 doubles, 1.6 MB), so no viewer can lose samples however
// the threads are scheduled.
TEST_P(LiveAnyServerTest, ViewersSeeTheDriversSamplesAtTheirOwnPaceAndAStalledOneDoesNotSlowIt) {
  constexpr std::uint64_t kSamples = 20001;  // t_end 200 at 0.01
  MustCreate("watched", 200.0);
  grpc::ClientContext context_a, context_b, context_slow, context_stalled;
  auto viewer_a = OpenViewer(stub_.get(), &context_a, "sessions/watched", 64, kSamples);
  auto viewer_b = OpenViewer(stub_.get(), &context_b, "sessions/watched", 7, kSamples);
  auto viewer_slow = OpenViewer(stub_.get(), &context_slow, "sessions/watched", 16, kSamples);
  auto stalled = OpenViewer(stub_.get(), &context_stalled, "sessions/watched", 1, std::nullopt);

  // Viewers don't count as the session's stream: the driver starts.
  v1::StreamStatesRequest drive;
  drive.set_name("sessions/watched");
  drive.set_frame_samples(8);
  Collected driver;
  std::thread driving([&] { driver = Stream(stub_.get(), drive); });
  Collected a, b, slow;
  std::thread viewing([&] {
    v1::StateChunk chunk;
    while (viewer_b->Read(&chunk)) Add(chunk, &b);
  });
  std::thread viewing_slowly([&] {
    v1::StateChunk chunk;
    for (;;) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      if (!viewer_slow->Read(&chunk)) break;
      Add(chunk, &slow);
    }
  });
  v1::StateChunk chunk;
  while (viewer_a->Read(&chunk)) Add(chunk, &a);
  viewing.join();
  viewing_slowly.join();
  driving.join();
  ASSERT_TRUE(driver.status.ok()) << driver.status.error_message();
  EXPECT_EQ(driver.summary.termination(), v1::TERMINATION_REACHED_END);
  ASSERT_EQ(driver.index.size(), kSamples);
  for (auto* viewer : {&viewer_a, &viewer_b, &viewer_slow}) {
    const grpc::Status status = (*viewer)->Finish();
    EXPECT_TRUE(status.ok()) << status.error_message();
  }
  for (const Collected* seen : {&a, &b, &slow}) {
    EXPECT_EQ(seen->summary.termination(), v1::TERMINATION_PAUSED);
    EXPECT_EQ(seen->summary.next_sample_index(), kSamples);
    EXPECT_EQ(FindEvent(*seen, v1::EVENT_KIND_SAMPLES_LOST), nullptr);
    ExpectSameSamples(*seen, driver);
  }
  // The stalled viewer still has everything to come: its first samples are the driver's.
  Collected stalled_seen;
  while (stalled_seen.index.size() < 100 && stalled->Read(&chunk)) Add(chunk, &stalled_seen);
  ASSERT_GE(stalled_seen.index.size(), 100u);
  ExpectConsecutive(stalled_seen, 0);
  for (std::size_t i = 0; i < stalled_seen.index.size(); ++i) {
    EXPECT_EQ(stalled_seen.t[i], driver.t[i]) << i;
  }
  context_stalled.TryCancel();
  while (stalled->Read(&chunk)) {
  }
  stalled->Finish();
}

// A viewer that does not read while the driver outruns the history (replay_bytes = 16 KiB,
// about 200 samples) learns, when it reads again, which samples it lost, and continues with
// the driver's samples at the oldest retained one.
TEST_F(LiveTest, AStalledViewerLearnsWhatLeftTheHistory) {
  ServerConfig config = TestConfig();
  config.replay_bytes = 16 << 10;
  Restart(config);
  constexpr std::uint64_t kSamples = 20001;
  MustCreate("watched", 200.0);
  grpc::ClientContext context;
  auto stalled = OpenViewer(stub_.get(), &context, "sessions/watched", 1, std::nullopt);
  v1::StreamStatesRequest drive;
  drive.set_name("sessions/watched");
  drive.set_frame_samples(8);
  const Collected driver = Stream(stub_.get(), drive);
  ASSERT_TRUE(driver.status.ok()) << driver.status.error_message();
  ASSERT_EQ(driver.index.size(), kSamples);

  // What the transport buffered before the gap, the gap announced once with its range, then
  // the retained samples: all of them the driver's.
  Collected slow;
  const v1::Event* lost = nullptr;
  v1::StateChunk chunk;
  while (lost == nullptr && slow.index.size() < kMaxSamplesRead && stalled->Read(&chunk)) {
    Add(chunk, &slow);
    lost = FindEvent(slow, v1::EVENT_KIND_SAMPLES_LOST);
  }
  ASSERT_NE(lost, nullptr);
  EXPECT_THAT(lost->message(), HasSubstr("left the replay history"));
  const std::uint64_t resumed_at = lost->sample_index();
  EXPECT_THAT(lost->message(), HasSubstr(", " + std::to_string(resumed_at) + ")"));
  EXPECT_LT(resumed_at, kSamples);
  EXPECT_EQ(slow.index.back(), resumed_at);
  EXPECT_LT(slow.index.size(), kSamples);
  for (std::size_t i = 0; i < slow.index.size(); ++i) {
    const std::uint64_t k = slow.index[i];
    ASSERT_LT(k, kSamples);
    EXPECT_EQ(slow.t[i], driver.t[k]) << k;
  }
  context.TryCancel();
  while (stalled->Read(&chunk)) {
  }
  stalled->Finish();
}

// A viewer waits without a driver; deleting the session ends it cleanly.
TEST_F(LiveTest, DeletingAViewedSessionEndsItsViewers) {
  MustCreate("gone", 1.0);
  grpc::ClientContext context;
  SetDeadline(&context);
  v1::StreamStatesRequest view;
  view.set_name("sessions/gone");
  view.set_view_only(true);
  auto reader = stub_->StreamStates(&context, view);
  v1::StateChunk chunk;
  ASSERT_TRUE(reader->Read(&chunk));
  ASSERT_TRUE(chunk.has_header());
  {
    grpc::ClientContext c;
    SetDeadline(&c);
    v1::DeleteSessionRequest remove;
    remove.set_name("sessions/gone");
    google::protobuf::Empty e;
    const grpc::Status deleted = stub_->DeleteSession(&c, remove, &e);
    ASSERT_TRUE(deleted.ok()) << deleted.error_message();
  }
  Collected got;
  while (reader->Read(&chunk)) Add(chunk, &got);
  const grpc::Status status = reader->Finish();
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(got.summary.termination(), v1::TERMINATION_SESSION_DELETED);
  EXPECT_TRUE(got.index.empty());
}

// A viewer learns that the run it watches failed: after the samples the run computed it ends
// with the failure, as the driving stream does, instead of waiting for samples that never
// come; a viewer that joins the failed session ends at once the same way.
TEST_F(LiveTest, AViewerEndsWithTheFailureOfTheRunItWatches) {
  v1::SimulationOptions options;
  options.set_t_end(2.0);
  options.set_output_interval(0.1);
  options.set_method("rk4");
  options.set_step(0.3);  // ωh ≈ 0.6: one Newton iteration cannot project the first step
  options.set_max_newton_iterations(1);
  MustCreateSession("pendulum", "failing", options);
  grpc::ClientContext context;
  SetDeadline(&context);
  v1::StreamStatesRequest view;
  view.set_name("sessions/failing");
  view.set_view_only(true);
  view.set_start_sample_index(0);
  auto reader = stub_->StreamStates(&context, view);
  v1::StateChunk chunk;
  ASSERT_TRUE(reader->Read(&chunk));
  ASSERT_TRUE(chunk.has_header());
  v1::StreamStatesRequest drive;
  drive.set_name("sessions/failing");
  const Collected driven = Stream(stub_.get(), drive);
  ASSERT_FALSE(driven.status.ok());
  Collected seen;
  while (reader->Read(&chunk)) Add(chunk, &seen);
  const grpc::Status status = reader->Finish();
  EXPECT_EQ(status.error_code(), driven.status.error_code()) << status.error_message();
  EXPECT_EQ(seen.summary.termination(), v1::TERMINATION_PROJECTION_FAILED);
  EXPECT_THAT(seen.summary.message(), HasSubstr("projection did not converge at t = 0.3"));
  EXPECT_EQ(seen.index, driven.index);
  const Collected late = Stream(stub_.get(), view);
  EXPECT_EQ(late.status.error_code(), driven.status.error_code());
  EXPECT_EQ(late.summary.termination(), v1::TERMINATION_PROJECTION_FAILED);
}

TEST_F(LiveTest, ViewersLeaveTheHorizonToTheDriver) {
  MustCreate("watched", 1.0);
  v1::StreamStatesRequest view;
  view.set_name("sessions/watched");
  view.set_view_only(true);
  view.set_t_end(2.0);
  view.set_realtime_factor(1.0);
  const Collected refused = Stream(stub_.get(), view);
  EXPECT_EQ(refused.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  const google::rpc::BadRequest bad = BadRequestOf(refused.status);
  ASSERT_EQ(bad.field_violations_size(), 2);
  EXPECT_EQ(bad.field_violations(0).field(), "t_end");
  EXPECT_EQ(bad.field_violations(1).field(), "realtime_factor");
}

// UpdateSession keeps the history: a resume from before the update replays the samples
// computed before it unchanged, then continues with the update's event at its sample.
TEST_F(LiveTest, UpdateKeepsTheHistoryBeforeIt) {
  MustCreate("updated", 1.0);
  v1::StreamStatesRequest request;
  request.set_name("sessions/updated");
  request.set_frame_samples(8);
  request.set_max_samples(40);
  const Collected before = Stream(stub_.get(), request);
  ASSERT_TRUE(before.status.ok()) << before.status.error_message();
  {
    grpc::ClientContext context;
    SetDeadline(&context);
    v1::UpdateSessionRequest update;
    update.set_name("sessions/updated");
    (*update.mutable_parameters())["g"] = 5.0;
    v1::Session session;
    const grpc::Status status = stub_->UpdateSession(&context, update, &session);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(session.next_sample_index(), 40u);
  }
  request.set_start_sample_index(20);
  request.set_max_samples(30);
  const Collected again = Stream(stub_.get(), request);
  ASSERT_TRUE(again.status.ok()) << again.status.error_message();
  ExpectConsecutive(again, 20);
  ASSERT_EQ(again.index.size(), 30u);
  const std::size_t c = static_cast<std::size_t>(again.header.columns_size());
  for (std::size_t i = 0; i < 20 * c; ++i) EXPECT_EQ(again.values[i], before.values[20 * c + i]) << i;
  const v1::Event* updated = FindEvent(again, v1::EVENT_KIND_UPDATED);
  ASSERT_NE(updated, nullptr);
  EXPECT_EQ(updated->sample_index(), 40u);
  EXPECT_THAT(updated->message(), HasSubstr("g = 5 (was 9.81)"));
  EXPECT_NE(FindEvent(again, v1::EVENT_KIND_REPLAYED), nullptr);
}

// StreamHandlers::stop ends a call while the server computes a frame that has no sample yet
// (rk4 with h = 1e-8 to the first grid point at t = 0.45: 4.5e7 steps, tens of seconds): Read
// would block until it came. The call ends as a handler's cancel does, with sample 0 delivered
// and no error.
TEST_F(LiveTest, TheClientLibrarysStopFlagEndsAStreamWhileNoFrameComes) {
  client::Client client(channel_);
  v1::SimulateRequest request;
  request.set_model("pendulum");
  v1::SimulationOptions& options = *request.mutable_options();
  options.set_method("rk4");
  options.set_step(1e-8);
  options.set_t_end(0.9);  // 9e7 steps: within the step limit, so its pace check lets it run
  options.set_output_interval(0.45);
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> samples{0};
  client::StreamHandlers handlers;
  handlers.stop = &stop;
  handlers.on_sample = [&](const client::Sample&) {
    ++samples;
    return true;
  };
  std::thread stopper([&] {
    // Sample 0 comes in the first frame, 0.25 s after the run began; then nothing for long.
    for (int i = 0; i < 1000 && samples.load() == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    stop = true;
  });
  const auto start = std::chrono::steady_clock::now();
  const client::StreamEnd end = client.Simulate(request, handlers);
  stopper.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  EXPECT_TRUE(end.ok()) << end.error.message;
  EXPECT_TRUE(end.cancelled_by_handler);
  EXPECT_EQ(end.samples, 1u);
}

// The client library: Pause from a stream's own sample handler ends the stream with OK and
// TERMINATION_PAUSED at a frame boundary, View follows the driver, and the next StreamStates
// continues at the pause index.
TEST_P(LiveAnyServerTest, TheClientLibraryPausesAndViews) {
  MustCreate("lib", 100.0);
  client::Client client(channel_);
  std::vector<std::uint64_t> viewed;
  std::vector<double> viewed_t;
  v1::StreamStatesRequest view;
  // From sample 0, served from the history if the viewer joins late: it gets its 30 samples
  // however the threads are scheduled (the driver computes at least 40).
  view.set_start_sample_index(0);
  view.set_max_samples(30);
  client::StreamHandlers view_handlers;
  view_handlers.on_sample = [&](const client::Sample& sample) {
    viewed.push_back(sample.index);
    viewed_t.push_back(sample.t);
    return true;
  };
  client::StreamEnd view_end;
  std::thread viewing([&] { view_end = client.View("lib", view_handlers, view); });

  std::vector<double> driven_t;
  bool pause_sent = false;
  client::StreamHandlers handlers;
  handlers.on_sample = [&](const client::Sample& sample) {
    EXPECT_EQ(sample.index, driven_t.size());
    driven_t.push_back(sample.t);
    if (driven_t.size() == 40 && !pause_sent) pause_sent = client.Pause("lib").ok();
    return driven_t.size() < kMaxSamplesRead;
  };
  v1::StreamStatesRequest drive;
  drive.set_name("lib");
  drive.set_indefinite(true);
  drive.set_frame_samples(4);
  const client::StreamEnd end = client.StreamStates(drive, handlers);
  viewing.join();
  ASSERT_TRUE(end.ok()) << end.error.ToString();
  EXPECT_TRUE(pause_sent);
  ASSERT_TRUE(end.summary.has_value());
  EXPECT_EQ(end.summary->termination(), v1::TERMINATION_PAUSED);
  EXPECT_EQ(end.summary->next_sample_index(), driven_t.size());
  EXPECT_EQ(end.next_sample_index, driven_t.size());

  // The viewer saw the driver's samples from 0.
  ASSERT_TRUE(view_end.ok()) << view_end.error.ToString();
  EXPECT_EQ(view_end.summary->termination(), v1::TERMINATION_PAUSED);
  ASSERT_EQ(viewed.size(), 30u);
  for (std::size_t i = 0; i < viewed.size(); ++i) {
    ASSERT_EQ(viewed[i], i);
    ASSERT_LT(viewed[i], driven_t.size());
    EXPECT_EQ(viewed_t[i], driven_t[viewed[i]]);
  }

  drive.set_indefinite(false);
  drive.set_t_end(100.0);  // the indefinite stream made the session's horizon +inf
  drive.set_max_samples(5);
  std::vector<std::uint64_t> resumed;
  handlers.on_sample = [&](const client::Sample& sample) {
    resumed.push_back(sample.index);
    return true;
  };
  const client::StreamEnd next = client.StreamStates(drive, handlers);
  ASSERT_TRUE(next.ok()) << next.error.ToString();
  ASSERT_FALSE(resumed.empty());
  EXPECT_EQ(resumed.front(), driven_t.size());
}

}  // namespace
}  // namespace tether::server::testing
