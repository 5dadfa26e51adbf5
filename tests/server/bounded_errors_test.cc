// Errors a default client can read: requests built to produce enormous errors (a 10 KB model
// name, 10,000 unknown overrides, a 500-definition cycle, a 10 KB session id) against a real
// tether-server process over loopback, through a default channel (8 KiB metadata limit). Each
// must arrive with its real code, its message + details under errors.h's kMaxErrorBytes
// (4096), the first problems named, and the rest counted in "and N more problems".
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "test_support.h"

namespace tether::server::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// errors.h: kMaxErrorBytes (the test names the number the issue asks for).
constexpr std::size_t kBound = 4096;

std::size_t ErrorBytes(const grpc::Status& status) {
  return status.error_message().size() + status.error_details().size();
}

// Checks that `status` kept its real `code` within the bound; its BadRequest (maybe empty).
google::rpc::BadRequest ExpectBounded(const grpc::Status& status, grpc::StatusCode code) {
  EXPECT_EQ(status.error_code(), code) << status.error_message();
  EXPECT_LT(ErrorBytes(status), kBound);
  return BadRequestOf(status);
}

// "and 9971 more problems" → 9971; -1 if `text` is not such an entry.
long MoreCount(const std::string& text) {
  long n = -1;
  if (std::sscanf(text.c_str(), "and %ld more problem", &n) != 1) return -1;
  return n;
}

class BoundedErrorsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    process_ = new ServerProcess(TETHER_SERVER_BINARY, {"--quiet"});
    const int port = process_->WaitForPort();
    ASSERT_GT(port, 0) << process_->Log();
    // A default channel: its receive metadata limit is gRPC's default 8 KiB.
    channel_ = new std::shared_ptr<grpc::Channel>(grpc::CreateChannel(
        "127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
  }
  static void TearDownTestSuite() {
    delete channel_;
    delete process_;
  }
  void SetUp() override { stub_ = v1::SimulationService::NewStub(*channel_); }

  grpc::Status CreateSession(const v1::CreateSessionRequest& request) {
    grpc::ClientContext context;
    SetDeadline(&context);
    v1::Session session;
    return stub_->CreateSession(&context, request, &session);
  }

  static inline ServerProcess* process_ = nullptr;
  static inline std::shared_ptr<grpc::Channel>* channel_ = nullptr;
  std::unique_ptr<v1::SimulationService::Stub> stub_;
};

TEST_F(BoundedErrorsTest, TenKilobyteModelNameIsNotFoundWithTheNameCut) {
  v1::CreateSessionRequest request;
  request.set_model(std::string(10240, 'm'));
  const grpc::Status status = CreateSession(request);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND) << status.error_message();
  EXPECT_LT(ErrorBytes(status), kBound);
  // The name is quoted to its first 64 bytes, then its length.
  EXPECT_EQ(status.error_message(),
            "model '" + std::string(64, 'm') + "…(10240 bytes)' not found");
}

TEST_F(BoundedErrorsTest, TenThousandUnknownOverridesListTheFirstAndCountTheRest) {
  constexpr int kOverrides = 10000;
  v1::CreateSessionRequest request;
  request.set_model("pendulum");
  char name[32];
  for (int i = 0; i < kOverrides; ++i) {
    std::snprintf(name, sizeof name, "unknown_%05d", i);
    (*request.mutable_parameters())[name] = 1.0;
  }
  const grpc::Status status = CreateSession(request);
  const google::rpc::BadRequest bad = ExpectBounded(status, grpc::StatusCode::INVALID_ARGUMENT);
  ASSERT_GE(bad.field_violations_size(), 2);
  // The core reports overrides in name order (a std::map), so the first is unknown_00000.
  EXPECT_EQ(bad.field_violations(0).field(), "parameters.unknown_00000");
  EXPECT_THAT(bad.field_violations(0).description(),
              HasSubstr("unknown parameter 'unknown_00000' of model 'pendulum'"));
  EXPECT_EQ(bad.field_violations(1).field(), "parameters.unknown_00001");
  const int listed = bad.field_violations_size() - 1;
  EXPECT_LE(listed, 50);
  const auto& last = bad.field_violations(listed);
  EXPECT_EQ(last.field(), "");
  // Every override is either listed or counted.
  EXPECT_EQ(MoreCount(last.description()), kOverrides - listed) << last.description();
  EXPECT_THAT(status.error_message(), HasSubstr(last.description()));
}

TEST_F(BoundedErrorsTest, FiveHundredDefinitionCycleIsNamedByItsFirstMembers) {
  // d0 → d1 → … → d499 → d0, used by the rhs.
  std::string definitions;
  for (int i = 0; i < 500; ++i) {
    definitions += (i == 0 ? "" : ", ") + std::string("\"d") + std::to_string(i) + "\": \"d" +
                   std::to_string((i + 1) % 500) + " + 1\"";
  }
  const std::string spec = R"({"name": "cyclic", "form": "index1", "differential": ["x"],
    "algebraic": ["y"], "rhs": ["d0"], "constraints": ["y - x"], "initial": {"x": 1, "y": 1},
    "definitions": {)" + definitions + "}}";
  grpc::ClientContext context;
  SetDeadline(&context);
  v1::RegisterModelRequest request;
  request.set_spec_json(spec);
  v1::Model model;
  const grpc::Status status = stub_->RegisterModel(&context, request, &model);
  const google::rpc::BadRequest bad = ExpectBounded(status, grpc::StatusCode::INVALID_ARGUMENT);
  ASSERT_EQ(bad.field_violations_size(), 1) << status.error_message();
  EXPECT_EQ(bad.field_violations(0).field(), "spec_json: definitions.d0");
  EXPECT_THAT(bad.field_violations(0).description(),
              StartsWith("definitions form a cycle: d0 -> d1 -> d2"));
  EXPECT_THAT(bad.field_violations(0).description(), HasSubstr("a cycle of 500 definitions"));
}

TEST_F(BoundedErrorsTest, TenKilobyteSessionIdIsRefusedOrNotFoundWithTheIdCut) {
  const std::string id(10240, 's');
  {
    v1::CreateSessionRequest request;
    request.set_model("pendulum");
    request.set_session_id(id);
    const google::rpc::BadRequest bad =
        ExpectBounded(CreateSession(request), grpc::StatusCode::INVALID_ARGUMENT);
    ASSERT_EQ(bad.field_violations_size(), 1);
    EXPECT_EQ(bad.field_violations(0).field(), "session_id");
    EXPECT_THAT(bad.field_violations(0).description(),
                StartsWith("'" + std::string(64, 's') + "…(10240 bytes)' must match"));
  }
  const std::string expected = "session 'sessions/" + std::string(55, 's') + "…(10249 bytes)' not found";
  const std::string name = "sessions/" + id;
  auto expect_not_found = [&](const grpc::Status& status) {
    EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND) << status.error_message();
    EXPECT_EQ(status.error_message(), expected);
  };
  // A unary session call: `invoke(context, response)`.
  auto unary = [](const auto& invoke) {
    grpc::ClientContext context;
    SetDeadline(&context);
    v1::Session session;
    return invoke(&context, &session);
  };
  v1::GetSessionRequest get;
  get.set_name(name);
  expect_not_found(unary([&](grpc::ClientContext* c, v1::Session* s) {
    return stub_->GetSession(c, get, s);
  }));
  v1::UpdateSessionRequest update;
  update.set_name(name);
  expect_not_found(unary([&](grpc::ClientContext* c, v1::Session* s) {
    return stub_->UpdateSession(c, update, s);
  }));
  v1::StreamStatesRequest stream;
  stream.set_name(name);
  expect_not_found(Stream(stub_.get(), stream).status);
}

// Simulate with an inline spec of 256 outputs naming unknown names: the stream's status is
// bounded like a unary call's.
TEST_F(BoundedErrorsTest, SimulateWithManyBadOutputsListsAndCounts) {
  std::string outputs;
  constexpr int kOutputs = 256;
  for (int i = 0; i < kOutputs; ++i) {
    outputs += (i == 0 ? "" : ", ") + std::string("\"o") + std::to_string(i) + "\": \"nope_" +
               std::to_string(i) + " + x\"";
  }
  v1::SimulateRequest request;
  request.set_spec_json(R"({"name": "bad", "form": "index1", "differential": ["x"],
    "algebraic": ["y"], "rhs": ["x"], "constraints": ["y - x"], "initial": {"x": 1, "y": 1},
    "outputs": {)" + outputs + "}}");
  const Collected run = RunSimulate(stub_.get(), request);
  const google::rpc::BadRequest bad = ExpectBounded(run.status, grpc::StatusCode::INVALID_ARGUMENT);
  ASSERT_GE(bad.field_violations_size(), 2);
  EXPECT_THAT(bad.field_violations(0).field(), StartsWith("spec_json: outputs.o"));
  EXPECT_THAT(bad.field_violations(0).description(), HasSubstr("nope_"));
  const int listed = bad.field_violations_size() - 1;
  EXPECT_EQ(MoreCount(bad.field_violations(listed).description()), kOutputs - listed);
}

}  // namespace
}  // namespace tether::server::testing
