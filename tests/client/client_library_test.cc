// tether::client without a server: error decoding, the frame decoder, options, retries.
#include <atomic>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"
#include "stream_decoder.h"
#include "tether/client/client.h"

namespace tether::client {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

grpc::Status StatusWithDetails(grpc::StatusCode code, const std::string& message,
                               const google::protobuf::Message& detail) {
  google::rpc::Status status;
  status.set_code(static_cast<int>(code));
  status.set_message(message);
  status.add_details()->PackFrom(detail);
  return grpc::Status(code, message, status.SerializeAsString());
}

TEST(Error, DecodesBadRequestViolationsInOrder) {
  google::rpc::BadRequest bad;
  auto* v = bad.add_field_violations();
  v->set_field("constraints[0]");
  v->set_description("col 7: unknown name 'lenght' (did you mean 'length'?)");
  v = bad.add_field_violations();
  v->set_field("options.rtol");
  v->set_description("must be in [1e-15, 1)");
  const Error error = Error::FromStatus(
      StatusWithDetails(grpc::StatusCode::INVALID_ARGUMENT, "the spec has 2 problems", bad));
  ASSERT_EQ(error.violations.size(), 2U);
  EXPECT_EQ(error.violations[1].field, "options.rtol");
  EXPECT_EQ(error.ToString(),
            "INVALID_ARGUMENT: the spec has 2 problems\n"
            "  constraints[0]: col 7: unknown name 'lenght' (did you mean 'length'?)\n"
            "  options.rtol: must be in [1e-15, 1)");
}

// tether's server writes each violation into the message too (for clients that ignore details):
// the printed error must list it once, not twice.
TEST(Error, AViolationAlreadyInTheMessageIsPrintedOnce) {
  google::rpc::BadRequest bad;
  auto* v = bad.add_field_violations();
  v->set_field("options.rtol");
  v->set_description("must be in [1e-15, 1)");
  const Error error = Error::FromStatus(StatusWithDetails(
      grpc::StatusCode::INVALID_ARGUMENT,
      "bad simulation setup\n  options.rtol: must be in [1e-15, 1)", bad));
  EXPECT_EQ(error.ToString(),
            "INVALID_ARGUMENT: bad simulation setup\n  options.rtol: must be in [1e-15, 1)");
}

TEST(Error, DecodesErrorInfo) {
  google::rpc::ErrorInfo info;
  info.set_reason("PROJECTION_FAILED");
  info.set_domain("tether.dev");
  (*info.mutable_metadata())["t"] = "12.34";
  const Error error =
      Error::FromStatus(StatusWithDetails(grpc::StatusCode::ABORTED, "projection failed", info));
  ASSERT_TRUE(error.info.has_value());
  EXPECT_EQ(error.info->metadata.at("t"), "12.34");
  EXPECT_THAT(error.ToString(), HasSubstr("reason PROJECTION_FAILED, t = 12.34"));
}

TEST(Error, PlainStatusAndGarbageDetails) {
  EXPECT_EQ(Error::FromStatus(grpc::Status(grpc::StatusCode::NOT_FOUND, "no model 'x'")).ToString(),
            "NOT_FOUND: no model 'x'");
  const Error garbage = Error::FromStatus(grpc::Status(grpc::StatusCode::INTERNAL, "m", "\xff\xff"));
  EXPECT_EQ(garbage.code, grpc::StatusCode::INTERNAL);
  EXPECT_TRUE(garbage.violations.empty());
}

TEST(ClientOptions, DefaultsValidAndBadFieldsNamed) {
  std::string why;
  EXPECT_TRUE(ClientOptions{}.IsValid(&why)) << why;
  ClientOptions bad;
  bad.max_attempts = 0;
  EXPECT_FALSE(bad.IsValid(&why));
  EXPECT_EQ(why, "ClientOptions::max_attempts = 0; must be >= 1");
}

TEST(Names, AcceptBareAndFullNames) {
  EXPECT_EQ(ModelName("pendulum"), "models/pendulum");
  EXPECT_EQ(ModelName("models/pendulum"), "models/pendulum");
  EXPECT_EQ(SessionName("abc"), "sessions/abc");
}

v1::StateChunk Header(const std::vector<std::string>& columns, std::uint64_t first) {
  v1::StateChunk chunk;
  for (const auto& name : columns) chunk.mutable_header()->add_columns()->set_name(name);
  chunk.mutable_header()->set_first_sample_index(first);
  chunk.mutable_header()->set_session("sessions/s");
  return chunk;
}

// n samples of c columns, value of column j at sample i = 10·(first+i) + j.
v1::StateChunk Frame(std::uint64_t first, int n, int c) {
  v1::StateChunk chunk;
  v1::Frame* frame = chunk.mutable_frame();
  frame->set_first_sample_index(first);
  for (int i = 0; i < n; ++i) {
    const double index = static_cast<double>(first) + i;
    frame->add_t(0.5 * index);
    for (int j = 0; j < c; ++j) frame->add_values(10 * index + j);
    frame->add_residual_position(1e-15);
    frame->add_residual_velocity(0);
  }
  return chunk;
}

TEST(StreamDecoder, DeliversSamplesByNameAcrossFrames) {
  std::vector<double> ys;
  std::vector<std::uint64_t> indices;
  StreamHandlers handlers;
  handlers.on_sample = [&](const Sample& s) {
    ys.push_back(s.Value("y"));
    indices.push_back(s.index);
    EXPECT_TRUE(std::isnan(s.Value("nope")));
    return true;
  };
  StreamDecoder decoder(handlers);
  EXPECT_TRUE(decoder.Consume(Header({"x", "y"}, 3)));
  EXPECT_TRUE(decoder.Consume(Frame(3, 2, 2)));
  EXPECT_TRUE(decoder.Consume(Frame(5, 1, 2)));
  const StreamEnd end = decoder.Finish(grpc::Status::OK);
  EXPECT_TRUE(end.ok());
  EXPECT_THAT(indices, ElementsAre(3, 4, 5));
  EXPECT_THAT(ys, ElementsAre(31, 41, 51));
  EXPECT_EQ(end.next_sample_index, 6U);
  EXPECT_EQ(end.session, "sessions/s");
}

TEST(StreamDecoder, HandlerCancelIsNotAnError) {
  StreamHandlers handlers;
  handlers.on_sample = [](const Sample& s) { return s.index < 1; };
  StreamDecoder decoder(handlers);
  decoder.Consume(Header({"x"}, 0));
  EXPECT_FALSE(decoder.Consume(Frame(0, 3, 1)));
  const StreamEnd end = decoder.Finish(grpc::Status(grpc::StatusCode::CANCELLED, "cancelled"));
  EXPECT_TRUE(end.ok());
  EXPECT_TRUE(end.cancelled_by_handler);
  EXPECT_EQ(end.next_sample_index, 2U);  // samples 0 and 1 were delivered
}

TEST(StreamDecoder, ARaisedStopFlagEndsDeliveryAsAHandlerCancelDoes) {
  std::atomic<bool> stop{false};
  StreamHandlers handlers;
  handlers.stop = &stop;
  std::vector<std::uint64_t> delivered;
  handlers.on_sample = [&](const Sample& s) {
    delivered.push_back(s.index);
    if (s.index == 1) stop = true;  // as a signal handler would, between two samples
    return true;
  };
  StreamDecoder decoder(handlers);
  decoder.Consume(Header({"x"}, 0));
  EXPECT_FALSE(decoder.Consume(Frame(0, 3, 1)));
  const StreamEnd end = decoder.Finish(grpc::Status(grpc::StatusCode::CANCELLED, "cancelled"));
  EXPECT_THAT(delivered, ElementsAre(0, 1));
  EXPECT_TRUE(end.ok());
  EXPECT_TRUE(end.cancelled_by_handler);
  EXPECT_EQ(end.next_sample_index, 2U);

  // Raised while no frame came: Client::Stream's watcher cancelled the call.
  StreamDecoder idle(handlers);
  idle.Consume(Header({"x"}, 0));
  const StreamEnd idle_end = idle.Finish(grpc::Status(grpc::StatusCode::CANCELLED, "cancelled"));
  EXPECT_TRUE(idle_end.ok());
  EXPECT_TRUE(idle_end.cancelled_by_handler);
}

TEST(StreamDecoder, RejectsMalformedFramesByMessage) {
  StreamHandlers handlers;
  StreamDecoder decoder(handlers);
  decoder.Consume(Header({"x", "y"}, 0));
  v1::StateChunk bad = Frame(0, 2, 2);
  bad.mutable_frame()->mutable_values()->RemoveLast();
  EXPECT_FALSE(decoder.Consume(bad));
  const StreamEnd end = decoder.Finish(grpc::Status::OK);
  EXPECT_EQ(end.error.code, grpc::StatusCode::INTERNAL);
  EXPECT_EQ(end.error.message,
            "malformed frame at sample 0: 2 times, 3 values (expected 4), 2 and 2 residuals");

  StreamDecoder gap(handlers);
  gap.Consume(Header({"x"}, 0));
  EXPECT_FALSE(gap.Consume(Frame(1, 1, 1)));
  EXPECT_EQ(gap.Finish(grpc::Status::OK).error.message,
            "malformed stream: frame starts at sample 1, expected 0");
}

// Frame(first, n, c) with residual_inequality 1e-17·(i+1) at each sample.
v1::StateChunk InequalityFrame(std::uint64_t first, int n, int c) {
  v1::StateChunk chunk = Frame(first, n, c);
  for (int i = 0; i < n; ++i) chunk.mutable_frame()->add_residual_inequality(1e-17 * (i + 1));
  return chunk;
}

void AddSwitch(v1::StateChunk* chunk, std::uint64_t sample, v1::EventKind kind,
               std::optional<std::uint32_t> constraint) {
  v1::Event* event = chunk->mutable_frame()->add_events();
  event->set_sample_index(sample);
  event->set_t(0.5 * static_cast<double>(sample));  // Frame's t of that sample
  event->set_kind(kind);
  if (constraint) event->set_constraint(*constraint);
}

TEST(StreamDecoder, ResidualInequalityPresentOrAbsentPerFrame) {
  std::vector<std::optional<double>> residuals;
  StreamHandlers handlers;
  handlers.on_sample = [&](const Sample& s) {
    residuals.push_back(s.residual_inequality);
    return true;
  };
  StreamDecoder decoder(handlers);
  decoder.Consume(Header({"y", "mu_1", "active_1"}, 0));
  EXPECT_TRUE(decoder.Consume(InequalityFrame(0, 2, 3)));
  EXPECT_TRUE(decoder.Consume(Frame(2, 1, 3)));  // an equality stream's frame: none
  EXPECT_TRUE(decoder.Finish(grpc::Status::OK).ok());
  EXPECT_THAT(residuals, ElementsAre(1e-17, 2e-17, std::nullopt));
}

TEST(StreamDecoder, RejectsResidualInequalityOfTheWrongSize) {
  StreamHandlers handlers;
  StreamDecoder decoder(handlers);
  decoder.Consume(Header({"y"}, 0));
  v1::StateChunk bad = InequalityFrame(0, 3, 1);
  bad.mutable_frame()->mutable_residual_inequality()->RemoveLast();
  EXPECT_FALSE(decoder.Consume(bad));
  const StreamEnd end = decoder.Finish(grpc::Status::OK);
  EXPECT_EQ(end.error.code, grpc::StatusCode::INTERNAL);
  EXPECT_EQ(end.error.message,
            "malformed frame at sample 0: 3 times, 2 residual_inequality entries (expected 3, or 0 "
            "without inequalities)");
}

TEST(StreamDecoder, SwitchesArriveWithTheirSampleAndAsEvents) {
  // Sample 1: constraint 0 activated; sample 3: constraint 0 deactivated and 2 activated at once.
  v1::StateChunk frame = InequalityFrame(0, 4, 1);
  AddSwitch(&frame, 3, v1::EVENT_KIND_DEACTIVATED, 0);
  AddSwitch(&frame, 1, v1::EVENT_KIND_ACTIVATED, 0);
  AddSwitch(&frame, 3, v1::EVENT_KIND_ACTIVATED, 2);
  std::vector<std::string> seen;  // "sample:direction:constraint@t"
  int events = 0;
  StreamHandlers handlers;
  handlers.on_event = [&](const v1::Event&) { ++events; };
  handlers.on_sample = [&](const Sample& s) {
    for (const Switch& sw : s.switches) {
      EXPECT_EQ(sw.t, s.t);
      seen.push_back(std::to_string(s.index) + (sw.activated() ? ":on:" : ":off:") +
                     std::to_string(sw.constraint));
    }
    return true;
  };
  StreamDecoder decoder(handlers);
  decoder.Consume(Header({"y"}, 0));
  EXPECT_TRUE(decoder.Consume(frame));
  EXPECT_TRUE(decoder.Finish(grpc::Status::OK).ok());
  EXPECT_EQ(events, 3);
  // By sample, and in the server's order within one sample.
  EXPECT_THAT(seen, ElementsAre("1:on:0", "3:off:0", "3:on:2"));
}

TEST(StreamDecoder, RejectsMalformedSwitchEventsByMessage) {
  StreamHandlers handlers;
  StreamDecoder no_constraint(handlers);
  no_constraint.Consume(Header({"y"}, 0));
  v1::StateChunk frame = InequalityFrame(0, 2, 1);
  AddSwitch(&frame, 1, v1::EVENT_KIND_ACTIVATED, std::nullopt);
  EXPECT_FALSE(no_constraint.Consume(frame));
  EXPECT_EQ(no_constraint.Finish(grpc::Status::OK).error.message,
            "malformed frame at sample 0: EVENT_KIND_ACTIVATED event at sample 1 has no constraint "
            "index");

  StreamDecoder outside(handlers);
  outside.Consume(Header({"y"}, 0));
  v1::StateChunk late = InequalityFrame(0, 2, 1);
  AddSwitch(&late, 2, v1::EVENT_KIND_DEACTIVATED, 0);
  EXPECT_FALSE(outside.Consume(late));
  EXPECT_EQ(outside.Finish(grpc::Status::OK).error.message,
            "malformed frame at sample 0: EVENT_KIND_DEACTIVATED event at sample 2 lies outside the "
            "frame's samples [0, 2)");
}

TEST(Client, RetriesUnavailableWithBackoffThenReports) {
  // Port 1 on loopback refuses connections: every attempt fails UNAVAILABLE.
  ClientOptions options;
  options.max_attempts = 3;
  options.initial_backoff = std::chrono::milliseconds(50);
  Client client("127.0.0.1:1", options);
  const auto start = std::chrono::steady_clock::now();
  const auto models = client.ListModels();
  const auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(models.ok());
  EXPECT_EQ(models.error().code, grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(models.error().attempts, 3);
  // Waits of 50 and 100 ms lie between the three attempts.
  EXPECT_GE(elapsed, std::chrono::milliseconds(150));
  EXPECT_LT(elapsed, std::chrono::seconds(10));
}

TEST(Client, StreamToUnreachableServerEndsUnavailable) {
  Client client("127.0.0.1:1");
  v1::SimulateRequest request;
  request.set_model("pendulum");
  const StreamEnd end = client.Simulate(request, {});
  EXPECT_EQ(end.error.code, grpc::StatusCode::UNAVAILABLE);
  EXPECT_FALSE(end.summary.has_value());
}

}  // namespace
}  // namespace tether::client
