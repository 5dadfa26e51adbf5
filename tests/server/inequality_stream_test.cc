// Inequality constraints over the wire: switch events, residual_inequality, the
// mu/active columns, the new options and the chattering termination, on the catalog model
// pds_half_plane, through Simulate and through sessions (including a resumed, replayed stream).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "pds_exact.h"
#include "test_support.h"

namespace tether::server::testing {
namespace {

using ::testing::HasSubstr;

// models/pds_half_plane.json: x' = x, y' = x − 1 from (a, b) = (0.25, 0.5) in C = {y ≥ 0}.
using tether::testing::pds::half_plane::ActivationTime;
const double kDeactivationTime = tether::testing::pds::half_plane::DeactivationTime();

// Located switch times vs the exact ones: the default location tolerance is rtol·h with
// rtol = 1e-8, and the state error of dp5 at rtol 1e-8 is ~1e-8; divided by the rates at the
// switches (|y'(t_a)| = 1 − a e^{t_a} ≈ 0.42, |μ'(t_d)| = a e^{t_d} = 1) that is ≲ 3e-8 in time.
// 1e-6 leaves a factor > 30.
constexpr double kSwitchTimeTolerance = 1e-6;

// c = y has unit scale: the projection onto the active set stops at |c| ≤ 1e-12 (the
// projection_tolerance default), free samples have c > 0 and residual 0. 1e-9 leaves room for
// the projector's scaling convention, as kResidualTolerance does in service_test.cc.
constexpr double kInequalityTolerance = 1e-9;

int ColumnIndex(const v1::StreamHeader& header, const std::string& name) {
  for (int i = 0; i < header.columns_size(); ++i) {
    if (header.columns(i).name() == name) return i;
  }
  return -1;
}

std::vector<v1::Event> SwitchEvents(const Collected& run) {
  std::vector<v1::Event> out;
  for (const v1::Event& e : run.events) {
    if (e.kind() == v1::EVENT_KIND_ACTIVATED || e.kind() == v1::EVENT_KIND_DEACTIVATED) {
      out.push_back(e);
    }
  }
  return out;
}

// The position of sample `index` in the collected stream, or npos.
std::size_t Position(const Collected& run, std::uint64_t index) {
  const auto it = std::find(run.index.begin(), run.index.end(), index);
  return it == run.index.end() ? std::string::npos : static_cast<std::size_t>(it - run.index.begin());
}

// The two switches of the exact solution, each at its own sample, with the c_i text named.
void ExpectTheTwoSwitches(const Collected& run) {
  const std::vector<v1::Event> switches = SwitchEvents(run);
  ASSERT_EQ(switches.size(), 2u);
  const v1::Event& on = switches[0];
  const v1::Event& off = switches[1];
  EXPECT_EQ(on.kind(), v1::EVENT_KIND_ACTIVATED);
  EXPECT_EQ(off.kind(), v1::EVENT_KIND_DEACTIVATED);
  for (const v1::Event& e : switches) {
    ASSERT_TRUE(e.has_constraint());
    EXPECT_EQ(e.constraint(), 0u);
    const std::size_t at = Position(run, e.sample_index());
    ASSERT_NE(at, std::string::npos) << "event at sample " << e.sample_index() << " not streamed";
    EXPECT_EQ(run.t[at], e.t()) << "an event's sample is the state at the located switch";
  }
  EXPECT_NEAR(on.t(), ActivationTime(), kSwitchTimeTolerance);
  EXPECT_NEAR(off.t(), kDeactivationTime, kSwitchTimeTolerance);
  EXPECT_THAT(on.message(), HasSubstr("inequalities[0] (y >= 0) activated"));
  EXPECT_THAT(off.message(), HasSubstr("inequalities[0] (y >= 0) deactivated"));
}

// residual_inequality per sample within tolerance; mu_1 ≥ 0; active_1 a 0/1 flag that is 1 on
// the grid samples strictly inside the sliding phase (t_a, t_d) and 0 outside it.
void ExpectFeasibleSamples(const Collected& run, bool check_active_phase) {
  ASSERT_EQ(run.residual_inequality.size(), run.t.size());
  for (double r : run.residual_inequality) EXPECT_LE(r, kInequalityTolerance);
  const int mu = ColumnIndex(run.header, "mu_1");
  const int active = ColumnIndex(run.header, "active_1");
  ASSERT_GE(mu, 0);
  ASSERT_GE(active, 0);
  EXPECT_EQ(run.header.columns(mu).kind(), v1::COLUMN_KIND_INEQUALITY_MULTIPLIER);
  EXPECT_EQ(run.header.columns(active).kind(), v1::COLUMN_KIND_ACTIVE);
  const auto width = static_cast<std::size_t>(run.header.columns_size());
  const double t_a = ActivationTime();
  for (std::size_t i = 0; i < run.t.size(); ++i) {
    const double mu_i = run.values[i * width + static_cast<std::size_t>(mu)];
    const double active_i = run.values[i * width + static_cast<std::size_t>(active)];
    EXPECT_GE(mu_i, 0.0) << "t = " << run.t[i];
    EXPECT_TRUE(active_i == 0.0 || active_i == 1.0) << "t = " << run.t[i] << ": " << active_i;
    if (!check_active_phase) continue;
    // The grid (0.01) keeps ≥ 3.7e-3 away from both switches: no sample is ambiguous.
    if (run.t[i] > t_a + kSwitchTimeTolerance && run.t[i] < kDeactivationTime - kSwitchTimeTolerance) {
      EXPECT_EQ(active_i, 1.0) << "t = " << run.t[i];
    } else if (run.t[i] < t_a - kSwitchTimeTolerance || run.t[i] > kDeactivationTime + kSwitchTimeTolerance) {
      EXPECT_EQ(active_i, 0.0) << "t = " << run.t[i];
    }
  }
}

class InequalityStreamTest : public ServerFixture {
 protected:
  static v1::SimulateRequest HalfPlane() {
    v1::SimulateRequest request;
    request.set_model("models/pds_half_plane");
    return request;
  }

  v1::Session MustCreate(const std::string& id, const v1::SimulationOptions& options = {}) {
    return MustCreateSession("pds_half_plane", id, options);
  }
};

TEST_F(InequalityStreamTest, GetModelListsTheInequalitiesAndTheirColumns) {
  grpc::ClientContext context;
  SetDeadline(&context);
  v1::GetModelRequest request;
  request.set_name("models/pds_half_plane");
  v1::Model model;
  ASSERT_TRUE(stub_->GetModel(&context, request, &model).ok());
  ASSERT_EQ(model.inequalities_size(), 1);
  EXPECT_EQ(model.inequalities(0), "y");
  std::vector<std::pair<std::string, v1::ColumnKind>> columns;
  for (const v1::Column& c : model.columns()) columns.emplace_back(c.name(), c.kind());
  EXPECT_THAT(columns, ::testing::IsSupersetOf(
                           {std::pair{std::string("mu_1"), v1::COLUMN_KIND_INEQUALITY_MULTIPLIER},
                            std::pair{std::string("active_1"), v1::COLUMN_KIND_ACTIVE}}));
}

TEST_F(InequalityStreamTest, SimulateStreamsBothSwitchesAtTheExactTimes) {
  const Collected run = RunSimulate(stub_.get(), HalfPlane());
  ASSERT_TRUE(run.status.ok()) << run.status.error_message();
  ASSERT_TRUE(run.has_summary);
  EXPECT_EQ(run.summary.termination(), v1::TERMINATION_REACHED_END);
  ExpectTheTwoSwitches(run);
  ExpectFeasibleSamples(run, true);
  EXPECT_EQ(run.summary.statistics().switches(), 2u);
  EXPECT_LE(run.summary.max_residual_inequality(), kInequalityTolerance);
  EXPECT_LE(run.summary.statistics().max_residual_inequality(), kInequalityTolerance);
}

TEST_F(InequalityStreamTest, SessionStreamsBothSwitchesAndEchoesTheOptions) {
  const v1::Session session = MustCreate("pds");
  // Effective values of the new options: the core's defaults (simulation.h).
  EXPECT_TRUE(session.options().switch_detection());
  EXPECT_EQ(session.options().switch_tolerance(), 0.0);
  EXPECT_EQ(session.options().max_switches(), 20);
  EXPECT_EQ(session.options().chattering_window(), 1e-6);

  v1::StreamStatesRequest request;
  request.set_name("sessions/pds");
  request.set_frame_samples(16);
  const Collected run = Stream(stub_.get(), request);
  ASSERT_TRUE(run.status.ok()) << run.status.error_message();
  ExpectTheTwoSwitches(run);
  ExpectFeasibleSamples(run, true);
  EXPECT_LE(run.summary.max_residual_inequality(), kInequalityTolerance);
  EXPECT_EQ(WaitNotRunning("sessions/pds").statistics().switches(), 2u);
}

// A stream cancelled between the switches, then streamed again from sample 0 (all of it
// replayed from the history, then continued), equals an uninterrupted run bitwise: the
// history keeps residual_inequality and the switch events with the samples.
TEST_F(InequalityStreamTest, ReplayedAndResumedStreamsCarryTheSameSwitches) {
  MustCreate("whole");
  MustCreate("broken");
  v1::StreamStatesRequest request;
  request.set_frame_samples(7);
  request.set_name("sessions/whole");
  const Collected whole = Stream(stub_.get(), request);
  ASSERT_TRUE(whole.status.ok()) << whole.status.error_message();

  // 110 samples (the 0.01 grid and the activation's own) reach t ≈ 1.09: past t_a ≈ 0.815, before t_d ≈ 1.386.
  request.set_name("sessions/broken");
  const Collected cut = Stream(stub_.get(), request, 110);
  EXPECT_EQ(cut.status.error_code(), grpc::StatusCode::CANCELLED);
  ASSERT_EQ(SwitchEvents(cut).size(), 1u);
  WaitNotRunning("sessions/broken");

  request.set_start_sample_index(0);
  const Collected again = Stream(stub_.get(), request);
  ASSERT_TRUE(again.status.ok()) << again.status.error_message();
  EXPECT_EQ(again.index, whole.index);
  EXPECT_EQ(again.t, whole.t);
  EXPECT_EQ(again.values, whole.values);
  EXPECT_EQ(again.residual_inequality, whole.residual_inequality);
  const std::vector<v1::Event> expected = SwitchEvents(whole);
  const std::vector<v1::Event> replayed = SwitchEvents(again);
  ASSERT_EQ(replayed.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(replayed[i].SerializeAsString(), expected[i].SerializeAsString()) << i;
  }
  ExpectTheTwoSwitches(again);
  EXPECT_LE(again.summary.max_residual_inequality(), kInequalityTolerance);
}

TEST_F(InequalityStreamTest, ResumingAfterTheLastReceivedSampleLosesNoSwitch) {
  MustCreate("pieces");
  v1::StreamStatesRequest request;
  request.set_name("sessions/pieces");
  request.set_frame_samples(5);
  Collected joined = Stream(stub_.get(), request, 60);
  ASSERT_FALSE(joined.index.empty());
  WaitNotRunning("sessions/pieces");
  // Pieces of 60 samples: the switches fall into later pieces, some replayed, some computed.
  for (int round = 0; round < 10 && !joined.has_summary; ++round) {
    request.set_start_sample_index(joined.index.back() + 1);
    const Collected part = Stream(stub_.get(), request, 60);
    ASSERT_FALSE(part.index.empty());
    Join(part, &joined);
    WaitNotRunning("sessions/pieces");
  }
  ASSERT_TRUE(joined.has_summary);
  EXPECT_TRUE(joined.status.ok()) << joined.status.error_message();
  for (std::size_t i = 0; i < joined.index.size(); ++i) EXPECT_EQ(joined.index[i], i);
  ExpectTheTwoSwitches(joined);
  ExpectFeasibleSamples(joined, true);
}

// Projected steps only: no switch is located or reported, but every sample is projected onto
// C, so it is feasible all the same.
TEST_F(InequalityStreamTest, WithoutSwitchDetectionNoEventsButFeasibleSamples) {
  v1::SimulateRequest request = HalfPlane();
  request.mutable_options()->set_switch_detection(false);
  const Collected run = RunSimulate(stub_.get(), request);
  ASSERT_TRUE(run.status.ok()) << run.status.error_message();
  EXPECT_TRUE(SwitchEvents(run).empty());
  EXPECT_EQ(run.summary.statistics().switches(), 0u);
  // active_1 comes from the projection of each step, not from located switches: the phase
  // boundaries are only first-order accurate, so only the 0/1 form is checked.
  ExpectFeasibleSamples(run, false);
}

// max_switches = 1 within a 10 s window: the deactivation at t_d ≈ 1.386 is the second switch
// within 10 s of the first, so the run ends there with CHATTERING, after the good samples.
TEST_F(InequalityStreamTest, TheChatteringGuardAbortsAfterTheGoodSamples) {
  v1::SimulateRequest request = HalfPlane();
  request.mutable_options()->set_max_switches(1);
  request.mutable_options()->set_chattering_window(10.0);
  const Collected run = RunSimulate(stub_.get(), request);
  EXPECT_EQ(run.status.error_code(), grpc::StatusCode::ABORTED) << run.status.error_message();
  EXPECT_THAT(run.status.error_message(), HasSubstr("chattering"));
  const google::rpc::ErrorInfo info = ErrorInfoOf(run.status);
  EXPECT_EQ(info.domain(), "tether.dev");
  EXPECT_EQ(info.reason(), "CHATTERING");
  EXPECT_TRUE(info.metadata().contains("t"));
  EXPECT_TRUE(info.metadata().contains("residual_inequality"));
  ASSERT_TRUE(run.has_summary);
  EXPECT_EQ(run.summary.termination(), v1::TERMINATION_CHATTERING);
  // Good samples through the sliding phase were delivered, none after the second switch.
  ASSERT_FALSE(run.t.empty());
  EXPECT_GT(run.t.back(), ActivationTime());
  EXPECT_LE(run.t.back(), kDeactivationTime + kSwitchTimeTolerance);
  const std::vector<v1::Event> switches = SwitchEvents(run);
  ASSERT_FALSE(switches.empty());
  EXPECT_EQ(switches[0].kind(), v1::EVENT_KIND_ACTIVATED);
  for (double r : run.residual_inequality) EXPECT_LE(r, kInequalityTolerance);
}

TEST_F(InequalityStreamTest, BadSwitchOptionsAreFieldViolations) {
  v1::CreateSessionRequest request;
  request.set_model("models/pds_half_plane");
  request.mutable_options()->set_max_switches(0);
  request.mutable_options()->set_chattering_window(0.0);
  request.mutable_options()->set_switch_tolerance(-1.0);
  v1::Session session;
  const grpc::Status status = CreateSession(request, &session);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  const google::rpc::BadRequest bad = BadRequestOf(status);
  std::vector<std::string> fields;
  for (const auto& v : bad.field_violations()) fields.push_back(v.field());
  EXPECT_THAT(fields, ::testing::UnorderedElementsAre("options.max_switches",
                                                      "options.chattering_window",
                                                      "options.switch_tolerance"));
  EXPECT_THAT(status.error_message(), HasSubstr("max_switches = 0; must be >= 1"));
  EXPECT_THAT(status.error_message(), HasSubstr("chattering_window = 0; must be > 0"));
  EXPECT_THAT(status.error_message(), HasSubstr("switch_tolerance = -1; must be >= 0"));

  v1::SimulateRequest simulate = HalfPlane();
  simulate.mutable_options()->set_max_switches(0);
  const Collected run = RunSimulate(stub_.get(), simulate);
  EXPECT_EQ(run.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  const google::rpc::BadRequest one = BadRequestOf(run.status);
  ASSERT_EQ(one.field_violations_size(), 1);
  EXPECT_EQ(one.field_violations(0).field(), "options.max_switches");
}

// Equality models are untouched on the wire: no residual_inequality entries, no switch events.
TEST_F(InequalityStreamTest, ThePendulumsFramesCarryNoInequalityResiduals) {
  v1::SimulateRequest request;
  request.set_model("models/pendulum");
  request.mutable_options()->set_t_end(0.2);
  const Collected run = RunSimulate(stub_.get(), request);
  ASSERT_TRUE(run.status.ok()) << run.status.error_message();
  ASSERT_FALSE(run.t.empty());
  EXPECT_TRUE(run.residual_inequality.empty());
  EXPECT_TRUE(SwitchEvents(run).empty());
  EXPECT_EQ(run.summary.max_residual_inequality(), 0.0);
}

}  // namespace
}  // namespace tether::server::testing
