// Requests that make sense: every horizon, grid and step is checked against what floating
// point can represent before a run starts, errors name the request's own fields, and a stream
// asking for more samples than the server allows is refused up front.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>

#include "test_support.h"

namespace tether::server::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr double kInf = std::numeric_limits<double>::infinity();

class RequestSenseTest : public ServerFixture {
 protected:
  // The BadRequest fields of `status`, which must be INVALID_ARGUMENT.
  static std::vector<std::string> Fields(const grpc::Status& status) {
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
    std::vector<std::string> fields;
    const google::rpc::BadRequest bad = BadRequestOf(status);
    for (const auto& v : bad.field_violations()) fields.push_back(v.field());
    return fields;
  }

  Collected Simulate(const v1::SimulationOptions& options) {
    v1::SimulateRequest request;
    request.set_model("pendulum");
    *request.mutable_options() = options;
    return RunSimulate(stub_.get(), request);
  }
};

TEST_F(RequestSenseTest, InfiniteHorizonWithoutIndefiniteIsRefusedByName) {
  v1::SimulationOptions options;
  options.set_t_end(kInf);
  const Collected run = Simulate(options);
  EXPECT_THAT(Fields(run.status), ::testing::ElementsAre("options.t_end"));
  EXPECT_THAT(run.status.error_message(), HasSubstr("t_end = inf; must be finite"));

  v1::CreateSessionRequest create;
  create.set_model("pendulum");
  *create.mutable_options() = options;
  v1::Session session;
  EXPECT_THAT(Fields(CreateSession(create, &session)), ::testing::ElementsAre("options.t_end"));

  MustCreateSession("pendulum", "horizon", {});
  v1::StreamStatesRequest stream;
  stream.set_name("sessions/horizon");
  stream.set_t_end(kInf);
  EXPECT_THAT(Fields(Stream(stub_.get(), stream).status), ::testing::ElementsAre("t_end"));
  // With indefinite a t_end must be absent, not ignored; without it the stream runs (cut
  // short here).
  stream.set_indefinite(true);
  EXPECT_THAT(Fields(Stream(stub_.get(), stream).status), ::testing::ElementsAre("t_end"));
  stream.clear_t_end();
  const Collected indefinite = Stream(stub_.get(), stream, 10);
  EXPECT_GE(indefinite.t.size(), 10U);
  EXPECT_EQ(indefinite.status.error_code(), grpc::StatusCode::CANCELLED);
}

TEST_F(RequestSenseTest, GridThatCannotAdvanceTIsRefusedByName) {
  // 1e-300 is far below 4 ulp(50) ≈ 2.8e-14: t + 1e-300 == t on the whole run.
  v1::SimulationOptions options;
  options.set_output_interval(1e-300);
  const Collected run = Simulate(options);
  EXPECT_THAT(Fields(run.status), ::testing::ElementsAre("options.output_interval"));
  EXPECT_THAT(run.status.error_message(), HasSubstr("cannot advance t"));

  // A session at t = 100 asked for a grid of 1e-15: 4 ulp(101) = 5.7e-14 > 1e-15.
  v1::SimulationOptions session_options;
  session_options.set_t_end(100.0);
  session_options.set_output_interval(10.0);
  MustCreateSession("pendulum", "late", session_options);
  v1::StreamStatesRequest stream;
  stream.set_name("sessions/late");
  const Collected first = Stream(stub_.get(), stream);
  ASSERT_TRUE(first.status.ok()) << first.status.error_message();
  ASSERT_EQ(first.t.back(), 100.0);
  stream.set_t_end(101.0);
  stream.set_output_interval(1e-15);
  const Collected fine = Stream(stub_.get(), stream);
  EXPECT_THAT(Fields(fine.status), ::testing::ElementsAre("output_interval"));
  EXPECT_THAT(fine.status.error_message(), HasSubstr("t_end = 101"));
  // The session is untouched and goes on with a grid that advances.
  stream.set_output_interval(0.5);
  const Collected on = Stream(stub_.get(), stream);
  ASSERT_TRUE(on.status.ok()) << on.status.error_message();
  EXPECT_EQ(on.t.back(), 101.0);
}

TEST_F(RequestSenseTest, FixedStepThatCannotAdvanceTIsRefusedWithoutErrorControlTalk) {
  for (const char* method : {"euler", "rk4"}) {
    v1::SimulationOptions options;
    options.set_method(method);
    options.set_step(1e-300);
    const Collected run = Simulate(options);
    EXPECT_THAT(Fields(run.status), ::testing::ElementsAre("options.step")) << method;
    EXPECT_THAT(run.status.error_message(), Not(HasSubstr("error control")));
  }
  // 1e-13 at t_end = 100 is above 4 ulp but below the steppers' floor 1e-14 · 100 = 1e-12;
  // dp5 without error control is a fixed-step method too.
  v1::SimulationOptions options;
  options.set_method("dp5");
  options.set_error_control(false);
  options.set_step(1e-13);
  options.set_t_end(100.0);
  const Collected run = Simulate(options);
  EXPECT_THAT(Fields(run.status), ::testing::ElementsAre("options.step"));
  EXPECT_THAT(run.status.error_message(), HasSubstr("t_end = 100"));
  EXPECT_THAT(run.status.error_message(), Not(HasSubstr("error control")));
}

// An adaptive method's first step below the floor (1e-14 at t = 0) cannot be tried at all, and
// a run would fail at t = 0 blaming the solution ("step size underflow … (last step tried 0)").
// It is refused by name, and 0 (automatic) still runs.
TEST_F(RequestSenseTest, AdaptiveFirstStepBelowTheFloorIsRefusedByName) {
  for (const char* method : {"dp5", "dop853", "radau5", "bdf", "auto"}) {
    v1::SimulationOptions options;
    options.set_method(method);
    options.set_step(1e-15);
    const Collected run = Simulate(options);
    EXPECT_THAT(Fields(run.status), ::testing::ElementsAre("options.step")) << method;
    EXPECT_THAT(run.status.error_message(), HasSubstr("first step = 1e-15")) << method;
    options.set_step(0.0);
    const Collected automatic = Simulate(options);
    EXPECT_TRUE(automatic.status.ok()) << method << ": " << automatic.status.error_message();
  }
}

// 5e6 rk4 steps with projection (about a second here) for 51 samples in frames of up to
// 1000: a frame closes 0.25 s after it began once it holds a sample, so the client sees the
// run as it goes (and an interrupted client keeps what came), not all of it at the end.
TEST_F(RequestSenseTest, ASlowRunsFramesCloseByTimeNotOnlyWhenFull) {
  v1::SimulateRequest request;
  request.set_model("pendulum");
  request.set_frame_samples(1000);
  v1::SimulationOptions& options = *request.mutable_options();
  options.set_method("rk4");
  options.set_step(1e-6);
  options.set_t_end(5.0);
  options.set_output_interval(0.1);
  const Collected run = RunSimulate(stub_.get(), request);
  ASSERT_TRUE(run.status.ok()) << run.status.error_message();
  EXPECT_EQ(run.t.size(), 51u);
  EXPECT_GE(run.frames, 2u);
  EXPECT_EQ(run.t.back(), 5.0);
}

// A run with no sample due for a long time (rk4 with h = 1e-8 to its first grid point at
// t = 0.45: 4.5e7 steps, tens of seconds) gives its worker back after each time slice: on a
// server with one worker, a short run started beside it ends in well under a second instead of
// waiting for that sample.
TEST_F(RequestSenseTest, ARunWithNoSampleDueDoesNotHoldItsWorker) {
  ServerConfig config = TestConfig();
  config.worker_threads = 1;
  Restart(config);
  v1::SimulateRequest slow;
  slow.set_model("pendulum");
  v1::SimulationOptions& options = *slow.mutable_options();
  options.set_method("rk4");
  options.set_step(1e-8);
  options.set_t_end(0.9);
  options.set_output_interval(0.45);
  grpc::ClientContext slow_context;
  SetDeadline(&slow_context);
  auto slow_reader = stub_->Simulate(&slow_context, slow);
  v1::StateChunk chunk;
  ASSERT_TRUE(slow_reader->Read(&chunk));  // the header: the slow run holds the worker now
  ASSERT_TRUE(chunk.has_header());
  v1::SimulateRequest quick;
  quick.set_model("pendulum");
  quick.mutable_options()->set_t_end(0.1);
  const auto start = std::chrono::steady_clock::now();
  const Collected run = RunSimulate(stub_.get(), quick);
  const auto waited = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(run.status.ok()) << run.status.error_message();
  EXPECT_EQ(run.t.back(), 0.1);
  EXPECT_LT(waited, std::chrono::seconds(5));  // a slice is 0.25 s; the slow run needs 20+
  slow_context.TryCancel();
  while (slow_reader->Read(&chunk)) {
  }
  slow_reader->Finish();
}

TEST_F(RequestSenseTest, TinyHorizonReachesItsEnd) {
  // t_end − t0 = 1e-300 is representable: one step of 1e-300 reaches it, whatever the method.
  for (const char* method : {"euler", "rk4", "dp5", "dop853", "radau5"}) {
    v1::SimulationOptions options;
    options.set_method(method);
    options.set_t_end(1e-300);
    const Collected run = Simulate(options);
    ASSERT_TRUE(run.status.ok()) << method << ": " << run.status.error_message();
    EXPECT_EQ(run.summary.termination(), v1::TERMINATION_REACHED_END) << method;
    ASSERT_FALSE(run.t.empty());
    EXPECT_EQ(run.t.front(), 0.0);
    EXPECT_EQ(run.t.back(), 1e-300) << method;
  }
}

// A session's stream to a t_end closer than the running stepper's floor (1e-14 · max(1, |t|))
// could take no step: refused by name instead of ending in step-size underflow.
TEST_F(RequestSenseTest, SessionHorizonCloserThanAStepIsRefusedByName) {
  MustCreateSession("pendulum", "near", {});
  v1::StreamStatesRequest stream;
  stream.set_name("sessions/near");
  stream.set_t_end(1e-300);
  const Collected run = Stream(stub_.get(), stream);
  EXPECT_THAT(Fields(run.status), ::testing::ElementsAre("t_end"));
  EXPECT_THAT(run.status.error_message(), HasSubstr("closer than the smallest step"));
  // A session created for that horizon reaches it (the floor follows the horizon).
  v1::SimulationOptions options;
  options.set_t_end(1e-300);
  MustCreateSession("pendulum", "tiny", options);
  stream.set_name("sessions/tiny");
  stream.clear_t_end();
  const Collected tiny = Stream(stub_.get(), stream);
  ASSERT_TRUE(tiny.status.ok()) << tiny.status.error_message();
  EXPECT_EQ(tiny.summary.termination(), v1::TERMINATION_REACHED_END);
  EXPECT_EQ(tiny.t.back(), 1e-300);
}

TEST_F(RequestSenseTest, FieldPathsNameTheRequestsOwnFields) {
  v1::SimulateRequest simulate;
  simulate.set_model("pendulum");
  (*simulate.mutable_initial_values())["nope"] = 1.0;
  simulate.add_fixed("nada");
  EXPECT_THAT(Fields(RunSimulate(stub_.get(), simulate).status),
              ::testing::ElementsAre("initial_values.nope", "fixed.nada"));

  v1::CreateSessionRequest create;
  create.set_model("pendulum");
  (*create.mutable_initial_values())["nope"] = 1.0;
  v1::Session session;
  EXPECT_THAT(Fields(CreateSession(create, &session)),
              ::testing::ElementsAre("initial_values.nope"));

  MustCreateSession("pendulum", "paths", {});
  grpc::ClientContext context;
  SetDeadline(&context);
  v1::UpdateSessionRequest update;
  update.set_name("sessions/paths");
  (*update.mutable_values())["nope"] = 1.0;
  EXPECT_THAT(Fields(stub_->UpdateSession(&context, update, &session)),
              ::testing::ElementsAre("values.nope"));

  v1::SimulateRequest no_model;
  EXPECT_THAT(Fields(RunSimulate(stub_.get(), no_model).status), ::testing::ElementsAre("model"));
}

TEST_F(RequestSenseTest, MoreSamplesThanTheServerAllowsAreRefusedUpFront) {
  ServerConfig config = TestConfig();
  config.max_samples_per_stream = 1000;
  Restart(config);
  // (100 − 0) / 0.01 = 10000 samples > 1000.
  v1::SimulationOptions options;
  options.set_t_end(100.0);
  options.set_output_interval(0.01);
  const Collected run = Simulate(options);
  EXPECT_THAT(Fields(run.status), ::testing::ElementsAre("options.t_end"));
  EXPECT_THAT(run.status.error_message(), HasSubstr("max_samples_per_stream is 1000"));
  EXPECT_TRUE(run.t.empty());

  MustCreateSession("pendulum", "many", options);
  v1::StreamStatesRequest stream;
  stream.set_name("sessions/many");
  EXPECT_THAT(Fields(Stream(stub_.get(), stream).status), ::testing::ElementsAre("t_end"));
  // 9.99 / 0.01 = 999 intervals: within the limit.
  stream.set_t_end(9.99);
  const Collected part = Stream(stub_.get(), stream);
  ASSERT_TRUE(part.status.ok()) << part.status.error_message();
  EXPECT_EQ(part.t.size(), 1000U);
}

}  // namespace
}  // namespace tether::server::testing
