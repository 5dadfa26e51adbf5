// In-process tests of every RPC of tether.v1.SimulationService and its error paths.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <thread>

#include "test_support.h"

namespace tether::server::testing {
namespace {

using ::testing::HasSubstr;

// The seed pendulum (models/pendulum.json): one constraint x² + y² − l² with l = 2.5 m. The
// coupled projection stops at a scaled residual ≤ 1e-12 (SimulationOptions default); unscaled
// that is ≤ 1e-12·l² ≈ 6e-12 — 1e-9 leaves room for the scale convention of the projector.
constexpr double kResidualTolerance = 1e-9;

// x' = 1, 0 = y² + x − 1 from (x, y) = (0, 1): y = √(1 − x) until g_y = 2y vanishes at t = 1,
// after which no real solution exists — the run must fail numerically shortly after t = 1.
constexpr const char* kFailingSpec = R"({
  "name": "fold", "form": "index1",
  "differential": ["x"], "algebraic": ["y"],
  "rhs": ["1"], "constraints": ["y^2 + x - 1"],
  "initial": {"x": 0, "y": 1},
  "simulation": {"t_end": 2, "output_interval": 0.01}
})";

// y' = 1/x with x = 1 − t: y = −log(1 − t) is singular at t = 1, so the run fails just before
// t = 1, after its last sample at t = 0.9 (output_interval 0.1).
constexpr const char* kSingularSpec = R"({
  "name": "sing", "form": "index1", "differential": ["x", "y"], "rhs": ["-1", "1/x"],
  "initial": {"x": 1, "y": 0}, "simulation": {"t_end": 3, "output_interval": 0.1}
})";

class ServiceTest : public ServerFixture {
 protected:
  v1::Session MustCreate(const std::string& model, const std::string& id, double t_end = 1.0) {
    v1::SimulationOptions options;
    options.set_t_end(t_end);
    options.set_output_interval(0.01);
    return MustCreateSession(model, id, options);
  }

  grpc::Status Register(const std::string& json, v1::Model* model = nullptr) {
    grpc::ClientContext context;
    SetDeadline(&context);
    v1::RegisterModelRequest request;
    request.set_spec_json(json);
    v1::Model ignored;
    return stub_->RegisterModel(&context, request, model != nullptr ? model : &ignored);
  }

  // Registers kSingularSpec and streams a new session `id` of it with radau5 until it fails.
  Collected StreamSingular(const std::string& id) {
    EXPECT_TRUE(Register(kSingularSpec).ok());
    v1::SimulationOptions options;
    options.set_method("radau5");
    MustCreateSession("sing", id, options);
    v1::StreamStatesRequest request;
    request.set_name("sessions/" + id);
    return Stream(stub_.get(), request);
  }
};

TEST(ServerConfigTest, DefaultsAreValidAndBadFieldsAreNamed) {
  std::string why;
  EXPECT_TRUE(ServerConfig{}.IsValid(&why)) << why;
  ServerConfig config;
  config.max_sessions = 0;
  EXPECT_FALSE(config.IsValid(&why));
  EXPECT_EQ(why, "ServerConfig::max_sessions = 0; must be >= 1");
  config = ServerConfig{};
  config.default_frame_samples = 10000;
  EXPECT_FALSE(config.IsValid(&why));
  EXPECT_THAT(why, HasSubstr("default_frame_samples = 10000; must be in [1, max_frame_samples"));
  std::string error;
  EXPECT_EQ(Server::Start(config, &error), nullptr);
  EXPECT_THAT(error, HasSubstr("default_frame_samples"));
}

TEST_F(ServiceTest, ListModelsHoldsTheCatalogAndPages) {
  grpc::ClientContext context;
  SetDeadline(&context);
  v1::ListModelsRequest request;
  v1::ListModelsResponse response;
  ASSERT_TRUE(stub_->ListModels(&context, request, &response).ok());
  std::vector<std::string> names;
  for (const v1::Model& m : response.models()) names.push_back(m.name());
  EXPECT_THAT(names, ::testing::Contains("models/pendulum"));
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_TRUE(response.next_page_token().empty());

  // Pages of one model each visit the same names in the same order.
  std::vector<std::string> paged;
  std::string token;
  for (std::size_t i = 0; i <= names.size(); ++i) {
    grpc::ClientContext page_context;
    SetDeadline(&page_context);
    v1::ListModelsRequest page_request;
    page_request.set_page_size(1);
    page_request.set_page_token(token);
    v1::ListModelsResponse page;
    ASSERT_TRUE(stub_->ListModels(&page_context, page_request, &page).ok());
    for (const v1::Model& m : page.models()) paged.push_back(m.name());
    token = page.next_page_token();
    if (token.empty()) break;
  }
  EXPECT_EQ(paged, names);
}

TEST_F(ServiceTest, ListModelsRejectsABadPageSize) {
  grpc::ClientContext context;
  SetDeadline(&context);
  v1::ListModelsRequest request;
  request.set_page_size(5000);
  v1::ListModelsResponse response;
  const grpc::Status status = stub_->ListModels(&context, request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("page_size = 5000; must be in [0, 1000]"));
  ASSERT_EQ(BadRequestOf(status).field_violations_size(), 1);
  EXPECT_EQ(BadRequestOf(status).field_violations(0).field(), "page_size");
}

TEST_F(ServiceTest, GetModelDescribesThePendulum) {
  grpc::ClientContext context;
  SetDeadline(&context);
  v1::GetModelRequest request;
  request.set_name("models/pendulum");
  v1::Model model;
  ASSERT_TRUE(stub_->GetModel(&context, request, &model).ok());
  EXPECT_EQ(model.form(), v1::MODEL_FORM_MECHANICAL);
  EXPECT_TRUE(model.builtin());
  ASSERT_EQ(model.variables_size(), 4);
  EXPECT_EQ(model.variables(0).name(), "x");
  EXPECT_EQ(model.variables(0).role(), v1::VARIABLE_ROLE_COORDINATE);
  EXPECT_EQ(model.variables(2).role(), v1::VARIABLE_ROLE_VELOCITY);
  ASSERT_EQ(model.parameters_size(), 3);
  // The rod length as models/pendulum.json states it: unit, description, range; a range
  // travels as both ends present.
  const v1::Parameter& l = model.parameters(1);
  EXPECT_EQ(l.name(), "l");
  EXPECT_EQ(l.unit(), "m");
  EXPECT_EQ(l.description(), "length of the rod");
  EXPECT_DOUBLE_EQ(l.default_value(), 2.5);
  ASSERT_TRUE(l.has_minimum() && l.has_maximum());
  EXPECT_DOUBLE_EQ(l.minimum(), 0.01);
  EXPECT_DOUBLE_EQ(l.maximum(), 10.0);
  EXPECT_EQ(model.invariants_size(), 1);
  std::vector<std::string> columns;
  for (const v1::Column& c : model.columns()) columns.push_back(c.name());
  EXPECT_THAT(columns, ::testing::IsSupersetOf({"x", "y", "vx", "vy", "lambda_1", "energy"}));
  EXPECT_DOUBLE_EQ(model.suggested_t_end(), 50.0);
}

// The Σ-method's result for the Cartesian pendulum (tests/core/model/implicit_spec_test.cc
// derives it): index 3, the rod differentiated twice, z = (x, y, u, v), w = (u', v', λ).
TEST_F(ServiceTest, GetModelReportsTheImplicitAnalysis) {
  grpc::ClientContext context;
  SetDeadline(&context);
  v1::GetModelRequest request;
  request.set_name("models/pendulum_implicit");
  v1::Model model;
  ASSERT_TRUE(stub_->GetModel(&context, request, &model).ok());
  EXPECT_EQ(model.form(), v1::MODEL_FORM_IMPLICIT);
  ASSERT_TRUE(model.has_implicit_analysis());
  const v1::ImplicitAnalysis& analysis = model.implicit_analysis();
  EXPECT_EQ(analysis.structural_index(), 3);
  EXPECT_EQ(analysis.degrees_of_freedom(), 2u);
  ASSERT_EQ(analysis.equations_size(), 5);
  EXPECT_EQ(analysis.equations(4).name(), "rod");
  EXPECT_EQ(analysis.equations(4).differentiations(), 2);
  EXPECT_EQ(analysis.equations(0).defines_derivative_of(), "x");
  EXPECT_THAT(analysis.states(), ::testing::ElementsAre("x", "y", "u", "v"));
  EXPECT_THAT(analysis.algebraics(), ::testing::ElementsAre("der(u)", "der(v)", "lam"));
  ASSERT_EQ(analysis.invariant_levels_size(), 2);
  EXPECT_THAT(analysis.invariant_levels(1).invariants(), ::testing::ElementsAre("rod'"));
  EXPECT_THAT(model.invariants(), ::testing::ElementsAre("rod"));
  std::vector<std::string> columns;
  for (const v1::Column& c : model.columns()) columns.push_back(c.name());
  EXPECT_THAT(columns, ::testing::ElementsAre("x", "y", "u", "v", "der(u)", "der(v)", "lam",
                                              "energy"));
}

TEST_F(ServiceTest, GetModelOfAnUnknownNameIsNotFound) {
  grpc::ClientContext context;
  SetDeadline(&context);
  v1::GetModelRequest request;
  request.set_name("models/nope");
  v1::Model model;
  const grpc::Status status = stub_->GetModel(&context, request, &model);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(status.error_message(), "model 'nope' not found");
}

TEST_F(ServiceTest, RegisterModelAddsAndRefusesDuplicates) {
  v1::Model model;
  ASSERT_TRUE(Register(kOscillatorSpec, &model).ok());
  EXPECT_EQ(model.name(), "models/oscillator");
  EXPECT_FALSE(model.builtin());
  // A spec without a range sends none: absent, not a bound of 0.
  ASSERT_EQ(model.parameters_size(), 1);
  EXPECT_FALSE(model.parameters(0).has_minimum() || model.parameters(0).has_maximum());
  const grpc::Status again = Register(kOscillatorSpec);
  EXPECT_EQ(again.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_THAT(again.error_message(), HasSubstr("oscillator"));
}

TEST_F(ServiceTest, RegisterModelListsEveryProblemWithItsPath) {
  const grpc::Status status = Register(R"({"name": "bad", "form": "mechanical",
    "coordinates": ["x"], "velocities": ["v"], "mass": [["1"]], "forces": ["-k*x"],
    "constraints": ["x + lenght"]})");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  const google::rpc::BadRequest bad = BadRequestOf(status);
  ASSERT_GE(bad.field_violations_size(), 2) << status.error_message();
  std::vector<std::string> fields;
  for (const auto& v : bad.field_violations()) fields.push_back(v.field());
  EXPECT_THAT(fields, ::testing::Contains(HasSubstr("spec_json: forces[0], col 2")));
  EXPECT_THAT(fields, ::testing::Contains(HasSubstr("spec_json: constraints[0], col 5")));
  EXPECT_THAT(status.error_message(), HasSubstr("lenght"));
}

TEST_F(ServiceTest, RegisterModelEnforcesSizeAndCountLimits) {
  ServerConfig config = TestConfig();
  config.max_spec_bytes = 64;
  config.max_registered_models = 1;
  Restart(config);
  const grpc::Status big = Register(kOscillatorSpec);
  EXPECT_EQ(big.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(big.error_message(), HasSubstr("max_spec_bytes is 64"));

  config.max_spec_bytes = 1 << 20;
  Restart(config);
  ASSERT_TRUE(Register(kOscillatorSpec).ok());
  const grpc::Status second = Register(kFailingSpec);
  EXPECT_EQ(second.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(second.error_message(), HasSubstr("max_registered_models = 1"));
}

// The model-size limits bound what clients send (RegisterModel, Simulate's spec) and name the
// count and the limit; the built-in catalog loads whatever they are, and GetServerInfo tells.
TEST_F(ServiceTest, ModelSizeLimitsBoundClientSpecsNotTheCatalog) {
  ServerConfig config = TestConfig();
  config.max_spec_variables = 2;  // the oscillator has 3 states, the catalog's pendulum 4
  Restart(config);
  const grpc::Status registered = Register(kOscillatorSpec);
  EXPECT_EQ(registered.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(registered.error_message(), HasSubstr("has 3 state variables; the limit is 2"));
  v1::SimulateRequest simulate;
  simulate.set_spec_json(kOscillatorSpec);
  const Collected one_shot = RunSimulate(stub_.get(), simulate);
  EXPECT_EQ(one_shot.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(one_shot.status.error_message(), HasSubstr("invalid model spec"));
  EXPECT_THAT(BadRequestOf(one_shot.status).field_violations(0).description(),
              HasSubstr("has 3 state variables; the limit is 2"));
  MustCreate("pendulum", "catalog-still-loads");

  config.max_spec_variables = 3;
  config.max_spec_constraints = 1;
  config.max_spec_nodes = 3;  // the oscillator's expressions need more nodes than that
  Restart(config);
  const grpc::Status nodes = Register(kOscillatorSpec);
  EXPECT_EQ(nodes.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(nodes.error_message(), HasSubstr("more than 3 expression nodes"));

  config.max_spec_nodes = ServerConfig{}.max_spec_nodes;
  Restart(config);
  ASSERT_TRUE(Register(kOscillatorSpec).ok());
  grpc::ClientContext context;
  SetDeadline(&context);
  v1::ServerInfo info;
  ASSERT_TRUE(stub_->GetServerInfo(&context, v1::GetServerInfoRequest{}, &info).ok());
  EXPECT_EQ(info.max_spec_variables(), 3u);
  EXPECT_EQ(info.max_spec_constraints(), 1u);
  EXPECT_EQ(info.max_spec_nodes(), ServerConfig{}.max_spec_nodes);

  std::string why;
  config.max_spec_constraints = 0;
  EXPECT_FALSE(config.IsValid(&why));
  EXPECT_EQ(why, "ServerConfig::max_spec_constraints = 0; must be >= 1");
}

TEST_F(ServiceTest, DeleteModelRemovesRegisteredOnly) {
  ASSERT_TRUE(Register(kOscillatorSpec).ok());
  auto remove = [this](const std::string& name) {
    grpc::ClientContext context;
    SetDeadline(&context);
    v1::DeleteModelRequest request;
    request.set_name(name);
    google::protobuf::Empty empty;
    return stub_->DeleteModel(&context, request, &empty);
  };
  EXPECT_TRUE(remove("models/oscillator").ok());
  const grpc::Status gone = remove("models/oscillator");
  EXPECT_EQ(gone.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(gone.error_message(), "model 'oscillator' not found");
  const grpc::Status catalog = remove("models/pendulum");
  EXPECT_EQ(catalog.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(catalog.error_message(), HasSubstr("built-in catalog, which is read-only"));
}

TEST_F(ServiceTest, CreateSessionInitializesConsistently) {
  const v1::Session session = MustCreate("pendulum", "p1");
  EXPECT_EQ(session.name(), "sessions/p1");
  EXPECT_EQ(session.model(), "models/pendulum");
  EXPECT_EQ(session.state(), v1::SESSION_STATE_CREATED);
  EXPECT_EQ(session.next_sample_index(), 0u);
  // The seed's (0.86, 2.35) lies off the circle of radius 2.5: initialization moves it.
  EXPECT_FALSE(session.initialization().changes().empty());
  EXPECT_LE(session.initialization().residual_position_after(), kResidualTolerance);
  ASSERT_GE(session.values_size(), 2);
  EXPECT_NEAR(std::hypot(session.values(0), session.values(1)), 2.5, 1e-9);
  EXPECT_GT(session.expire_time().seconds(), session.update_time().seconds());
}

TEST_F(ServiceTest, CreateSessionErrors) {
  v1::CreateSessionRequest request;
  request.set_model("models/nope");
  v1::Session session;
  grpc::Status status = CreateSession(request, &session);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(status.error_message(), "model 'nope' not found");

  request.set_model("pendulum");
  request.mutable_options()->set_method("rk5");
  status = CreateSession(request, &session);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("unknown method 'rk5'"));
  EXPECT_EQ(BadRequestOf(status).field_violations(0).field(), "options.method");

  request.mutable_options()->Clear();
  request.mutable_options()->set_rtol(-1);
  (*request.mutable_parameters())["nope"] = 1.0;
  status = CreateSession(request, &session);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("rtol"));
  EXPECT_THAT(status.error_message(), HasSubstr("nope"));
  EXPECT_GE(BadRequestOf(status).field_violations_size(), 2);

  request.Clear();
  request.set_model("pendulum");
  request.set_session_id("Bad_Id");
  status = CreateSession(request, &session);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("'Bad_Id' must match [a-z][a-z0-9-]{0,62}"));

  request.set_session_id("twice");
  ASSERT_TRUE(CreateSession(request, &session).ok());
  status = CreateSession(request, &session);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_EQ(status.error_message(), "session 'sessions/twice' already exists");
}

// The initialization iteration limit travels on the wire: validated by name, reported back in
// Session.options, and a far start (radius 2.5 onto a rod of 0.01: ~8 iterations) that the
// default of 50 reaches fails within 3 with the limit named.
TEST_F(ServiceTest, InitializationIterationLimitIsAnOption) {
  v1::CreateSessionRequest request;
  request.set_model("models/pendulum");
  (*request.mutable_parameters())["l"] = 0.01;
  v1::Session session;
  ASSERT_TRUE(CreateSession(request, &session).ok());
  EXPECT_EQ(session.options().max_initialization_iterations(), 50);

  request.mutable_options()->set_max_initialization_iterations(3);
  grpc::Status status = CreateSession(request, &session);
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.error_message(), HasSubstr("the iteration limit 3 was reached"));

  request.mutable_options()->set_max_initialization_iterations(0);
  status = CreateSession(request, &session);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  ASSERT_GE(BadRequestOf(status).field_violations_size(), 1);
  EXPECT_EQ(BadRequestOf(status).field_violations(0).field(),
            "options.max_initialization_iterations");
}

TEST_F(ServiceTest, CreateSessionEnforcesMaxSessions) {
  ServerConfig config = TestConfig();
  config.max_sessions = 1;
  Restart(config);
  MustCreate("pendulum", "one");
  v1::CreateSessionRequest request;
  request.set_model("pendulum");
  v1::Session session;
  const grpc::Status status = CreateSession(request, &session);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), HasSubstr("max_sessions = 1"));
}

TEST_F(ServiceTest, GetListDeleteSessions) {
  MustCreate("pendulum", "a");
  MustCreate("pendulum", "b");
  MustCreate("pendulum", "c");
  grpc::ClientContext context;
  SetDeadline(&context);
  v1::ListSessionsRequest request;
  request.set_page_size(2);
  v1::ListSessionsResponse page;
  ASSERT_TRUE(stub_->ListSessions(&context, request, &page).ok());
  ASSERT_EQ(page.sessions_size(), 2);
  EXPECT_EQ(page.sessions(0).name(), "sessions/a");
  EXPECT_EQ(page.next_page_token(), "b");
  grpc::ClientContext next_context;
  SetDeadline(&next_context);
  request.set_page_token(page.next_page_token());
  v1::ListSessionsResponse last;
  ASSERT_TRUE(stub_->ListSessions(&next_context, request, &last).ok());
  ASSERT_EQ(last.sessions_size(), 1);
  EXPECT_EQ(last.sessions(0).name(), "sessions/c");
  EXPECT_TRUE(last.next_page_token().empty());

  grpc::Status status;
  EXPECT_EQ(Get("sessions/b", &status).name(), "sessions/b");
  EXPECT_TRUE(status.ok());
  grpc::ClientContext delete_context;
  SetDeadline(&delete_context);
  v1::DeleteSessionRequest remove;
  remove.set_name("sessions/b");
  google::protobuf::Empty empty;
  EXPECT_TRUE(stub_->DeleteSession(&delete_context, remove, &empty).ok());
  Get("sessions/b", &status);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(status.error_message(), "session 'sessions/b' not found");
  grpc::ClientContext again_context;
  SetDeadline(&again_context);
  status = stub_->DeleteSession(&again_context, remove, &empty);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST_F(ServiceTest, StreamStatesRunsToTheHorizonOnTheManifold) {
  MustCreate("pendulum", "run", 1.0);
  v1::StreamStatesRequest request;
  request.set_name("sessions/run");
  request.set_frame_samples(16);
  const Collected run = Stream(stub_.get(), request);
  ASSERT_TRUE(run.status.ok()) << run.status.error_message();
  ASSERT_TRUE(run.has_summary);
  EXPECT_EQ(run.summary.termination(), v1::TERMINATION_REACHED_END);
  // Samples on t0 + k·0.01 up to 1: 101 of them, indices 0…100.
  ASSERT_EQ(run.t.size(), 101u);
  for (std::size_t i = 0; i < run.index.size(); ++i) EXPECT_EQ(run.index[i], i);
  EXPECT_NEAR(run.t.back(), 1.0, 1e-12);
  for (double r : run.residual_position) EXPECT_LE(r, kResidualTolerance);
  for (double r : run.residual_velocity) EXPECT_LE(r, kResidualTolerance);
  EXPECT_EQ(run.values.size(), run.t.size() * static_cast<std::size_t>(run.header.columns_size()));
  EXPECT_EQ(run.summary.samples_sent(), 101u);
  EXPECT_EQ(Get("sessions/run").state(), v1::SESSION_STATE_FINISHED);
}

TEST_F(ServiceTest, StreamStatesSelectsColumns) {
  MustCreate("pendulum", "cols", 0.1);
  v1::StreamStatesRequest request;
  request.set_name("sessions/cols");
  request.add_columns("energy");
  request.add_columns("x");
  const Collected run = Stream(stub_.get(), request);
  ASSERT_TRUE(run.status.ok()) << run.status.error_message();
  ASSERT_EQ(run.header.columns_size(), 2);
  EXPECT_EQ(run.header.columns(0).name(), "energy");
  EXPECT_EQ(run.header.columns(0).kind(), v1::COLUMN_KIND_OUTPUT);
  EXPECT_EQ(run.values.size(), 2 * run.t.size());
}

TEST_F(ServiceTest, StreamStatesErrors) {
  MustCreate("pendulum", "errs", 0.1);
  v1::StreamStatesRequest request;
  request.set_name("sessions/nope");
  Collected run = Stream(stub_.get(), request);
  EXPECT_EQ(run.status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(run.status.error_message(), "session 'sessions/nope' not found");

  request.set_name("sessions/errs");
  request.set_frame_samples(100000);
  run = Stream(stub_.get(), request);
  EXPECT_EQ(run.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(run.status.error_message(), HasSubstr("max_frame_samples is 8192"));

  request.set_frame_samples(0);
  request.add_columns("z");
  run = Stream(stub_.get(), request);
  EXPECT_EQ(run.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(run.status.error_message(), HasSubstr("columns[0]: unknown column 'z'"));

  request.clear_columns();
  request.set_start_sample_index(1000);
  run = Stream(stub_.get(), request);
  EXPECT_EQ(run.status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(run.status.error_message(), HasSubstr("start_sample_index = 1000 is outside"));

  request.clear_start_sample_index();
  request.set_t_end(-1);
  run = Stream(stub_.get(), request);
  EXPECT_EQ(run.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(run.status.error_message(), HasSubstr("t_end = -1; must be >= the session's t"));
}

TEST_F(ServiceTest, OneStreamPerSession) {
  MustCreate("pendulum", "busy", 1.0);
  v1::StreamStatesRequest request;
  request.set_name("sessions/busy");
  request.set_indefinite(true);
  request.set_frame_samples(1);
  grpc::ClientContext context;
  SetDeadline(&context);
  auto reader = stub_->StreamStates(&context, request);
  v1::StateChunk chunk;
  ASSERT_TRUE(reader->Read(&chunk));  // header: the stream holds the session now
  ASSERT_TRUE(chunk.has_header());

  request.set_indefinite(false);
  const Collected second = Stream(stub_.get(), request);
  EXPECT_EQ(second.status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(second.status.error_message(), HasSubstr("already has an open StreamStates call"));

  auto expect_busy = [](const grpc::Status& status) {
    EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
    EXPECT_THAT(status.error_message(), HasSubstr("has an open StreamStates call; cancel it"));
  };
  {
    grpc::ClientContext c;
    SetDeadline(&c);
    v1::UpdateSessionRequest update;
    update.set_name("sessions/busy");
    v1::Session s;
    expect_busy(stub_->UpdateSession(&c, update, &s));
  }
  {
    grpc::ClientContext c;
    SetDeadline(&c);
    v1::DeleteSessionRequest remove;
    remove.set_name("sessions/busy");
    google::protobuf::Empty e;
    expect_busy(stub_->DeleteSession(&c, remove, &e));
  }
  EXPECT_EQ(Get("sessions/busy").state(), v1::SESSION_STATE_RUNNING);
  context.TryCancel();
  while (reader->Read(&chunk)) {
  }
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::CANCELLED);
  EXPECT_EQ(WaitNotRunning("sessions/busy").state(), v1::SESSION_STATE_PAUSED);
}

// A stream cancelled mid-run and resumed from its last received sample + 1 yields exactly
// (bitwise) the samples of an uninterrupted run: the core's Advance continues after the last
// emitted sample, and the server replays samples it computed but the client never read.
TEST_F(ServiceTest, ResumeAfterCancelEqualsAnUninterruptedRun) {
  MustCreate("pendulum", "whole", 2.0);
  MustCreate("pendulum", "broken", 2.0);
  v1::StreamStatesRequest request;
  request.set_frame_samples(7);
  request.set_name("sessions/whole");
  const Collected whole = Stream(stub_.get(), request);
  ASSERT_TRUE(whole.status.ok()) << whole.status.error_message();

  request.set_name("sessions/broken");
  Collected joined = Stream(stub_.get(), request, 40);
  EXPECT_EQ(joined.status.error_code(), grpc::StatusCode::CANCELLED);
  ASSERT_GE(joined.t.size(), 40u);
  WaitNotRunning("sessions/broken");
  for (int round = 0; round < 2 && !joined.has_summary; ++round) {
    request.set_start_sample_index(joined.index.back() + 1);
    const Collected part = Stream(stub_.get(), request, round == 0 ? 60 : SIZE_MAX);
    ASSERT_FALSE(part.index.empty());
    EXPECT_EQ(part.index.front(), joined.index.back() + 1);
    Join(part, &joined);
    WaitNotRunning("sessions/broken");
  }
  ASSERT_TRUE(joined.has_summary);
  EXPECT_EQ(joined.index, whole.index);
  ASSERT_EQ(joined.t.size(), whole.t.size());
  ASSERT_EQ(joined.values.size(), whole.values.size());
  for (std::size_t i = 0; i < whole.t.size(); ++i) EXPECT_EQ(joined.t[i], whole.t[i]) << i;
  for (std::size_t i = 0; i < whole.values.size(); ++i) {
    EXPECT_EQ(joined.values[i], whole.values[i]) << i;
  }
}

// A client that cancels a stream and at once resumes, updates, forks or deletes the session is
// not refused because the server has not finished the cancelled stream yet (nor seen its
// cancel): the new call waits, boundedly, for the old one to let go. No WaitNotRunning here.
// Every stream names the replica that runs it in its initial metadata (x-tether-replica):
// ServerConfig::replica_name, else the host name.
TEST_F(ServiceTest, StreamsNameTheirReplica) {
  auto replica_of = [](grpc::ClientContext* context, auto* reader) {
    v1::StateChunk chunk;
    EXPECT_TRUE(reader->Read(&chunk));
    const auto& metadata = context->GetServerInitialMetadata();
    const auto named = metadata.find("x-tether-replica");
    std::string name =
        named == metadata.end() ? "" : std::string(named->second.data(), named->second.size());
    context->TryCancel();
    while (reader->Read(&chunk)) {
    }
    reader->Finish();
    return name;
  };
  MustCreate("pendulum", "named", 1.0);
  v1::StreamStatesRequest request;
  request.set_name("sessions/named");
  {
    grpc::ClientContext context;
    SetDeadline(&context);
    auto reader = stub_->StreamStates(&context, request);
    std::array<char, 256> host{};
    ASSERT_EQ(gethostname(host.data(), host.size() - 1), 0);
    EXPECT_EQ(replica_of(&context, reader.get()), std::string(host.data()));
  }
  ServerConfig config = TestConfig();
  config.replica_name = "tether-7f9c-abcde";
  Restart(config);
  MustCreate("pendulum", "named", 1.0);
  {
    grpc::ClientContext context;
    SetDeadline(&context);
    auto reader = stub_->StreamStates(&context, request);
    EXPECT_EQ(replica_of(&context, reader.get()), "tether-7f9c-abcde");
  }
  {
    v1::SimulateRequest simulate;
    simulate.set_model("models/pendulum");
    grpc::ClientContext context;
    SetDeadline(&context);
    auto reader = stub_->Simulate(&context, simulate);
    EXPECT_EQ(replica_of(&context, reader.get()), "tether-7f9c-abcde");
  }
}

TEST_F(ServiceTest, CallsRightAfterACancelAreNotRefused) {
  MustCreate("pendulum", "quick", 100.0);
  v1::StreamStatesRequest request;
  request.set_name("sessions/quick");
  request.set_frame_samples(4);
  std::uint64_t next = 0;
  for (int round = 0; round < 10; ++round) {
    const Collected part = Stream(stub_.get(), request, 8);
    ASSERT_EQ(part.status.error_code(), grpc::StatusCode::CANCELLED)
        << "round " << round << ": " << part.status.error_message();
    ASSERT_FALSE(part.index.empty());
    EXPECT_EQ(part.index.front(), next) << "round " << round;  // no gap, no duplicate
    next = part.index.back() + 1;
    request.set_start_sample_index(next);
    if (round % 3 == 1) {
      grpc::ClientContext c;
      SetDeadline(&c);
      v1::UpdateSessionRequest update;
      update.set_name("sessions/quick");
      v1::Session s;
      const grpc::Status updated = stub_->UpdateSession(&c, update, &s);
      EXPECT_TRUE(updated.ok()) << "round " << round << ": " << updated.error_message();
    } else if (round % 3 == 2) {
      grpc::ClientContext c;
      SetDeadline(&c);
      v1::ForkSessionRequest fork;
      fork.set_name("sessions/quick");
      fork.set_session_id("quick-fork-" + std::to_string(round));
      v1::Session s;
      const grpc::Status forked = stub_->ForkSession(&c, fork, &s);
      EXPECT_TRUE(forked.ok()) << "round " << round << ": " << forked.error_message();
    }
  }
  const Collected last = Stream(stub_.get(), request, 8);
  EXPECT_EQ(last.status.error_code(), grpc::StatusCode::CANCELLED) << last.status.error_message();
  grpc::ClientContext c;
  SetDeadline(&c);
  v1::DeleteSessionRequest remove;
  remove.set_name("sessions/quick");
  google::protobuf::Empty e;
  const grpc::Status deleted = stub_->DeleteSession(&c, remove, &e);
  EXPECT_TRUE(deleted.ok()) << deleted.error_message();
}

TEST_F(ServiceTest, UpdateSessionReprojectsAndTheIndexContinues) {
  MustCreate("pendulum", "upd", 0.5);
  v1::StreamStatesRequest request;
  request.set_name("sessions/upd");
  const Collected first = Stream(stub_.get(), request);
  ASSERT_TRUE(first.status.ok()) << first.status.error_message();

  grpc::ClientContext context;
  SetDeadline(&context);
  v1::UpdateSessionRequest update;
  update.set_name("sessions/upd");
  (*update.mutable_parameters())["l"] = 2.0;
  v1::Session updated;
  const grpc::Status status = stub_->UpdateSession(&context, update, &updated);
  ASSERT_TRUE(status.ok()) << status.error_message();
  // A shorter rod: the state is re-projected onto the circle of radius 2.
  EXPECT_NEAR(std::hypot(updated.values(0), updated.values(1)), 2.0, 1e-9);
  EXPECT_DOUBLE_EQ(updated.parameters().at("l"), 2.0);

  request.set_t_end(1.0);
  const Collected second = Stream(stub_.get(), request);
  ASSERT_TRUE(second.status.ok()) << second.status.error_message();
  ASSERT_FALSE(second.index.empty());
  EXPECT_EQ(second.index.front(), first.index.back() + 1);
  bool saw_update = false;
  for (const v1::Event& e : second.events) saw_update |= e.kind() == v1::EVENT_KIND_UPDATED;
  EXPECT_TRUE(saw_update);
  for (double r : second.residual_position) EXPECT_LE(r, kResidualTolerance);

  grpc::ClientContext bad_context;
  SetDeadline(&bad_context);
  update.mutable_parameters()->clear();
  (*update.mutable_parameters())["nope"] = 1.0;
  const grpc::Status bad = stub_->UpdateSession(&bad_context, update, &updated);
  EXPECT_EQ(bad.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(bad.error_message(), HasSubstr("nope"));
}

TEST_F(ServiceTest, UpdateSessionReinitializesFromFarOffTheManifold) {
  MustCreate("pendulum", "far", 0.5);
  v1::StreamStatesRequest request;
  request.set_name("sessions/far");
  ASSERT_TRUE(Stream(stub_.get(), request).status.ok());
  // 2.5 → 0.01 (250 rod lengths out: the globalized Newton) and back out to 10; each state is
  // on its circle to the projection tolerance 1e-12 relative to the scale max(1, ℓ²).
  for (const double l : {0.01, 10.0}) {
    grpc::ClientContext context;
    SetDeadline(&context);
    v1::UpdateSessionRequest update;
    update.set_name("sessions/far");
    (*update.mutable_parameters())["l"] = l;
    v1::Session updated;
    const grpc::Status status = stub_->UpdateSession(&context, update, &updated);
    ASSERT_TRUE(status.ok()) << "l = " << l << ": " << status.error_message();
    const double r2 = updated.values(0) * updated.values(0) + updated.values(1) * updated.values(1);
    EXPECT_NEAR(r2, l * l, 1e-12 * std::max(1.0, l * l) + 4e-16 * l * l) << "l = " << l;
  }
  // At the pivot the constraint gradient vanishes: a failure that says so, not a crash.
  grpc::ClientContext context;
  SetDeadline(&context);
  v1::UpdateSessionRequest update;
  update.set_name("sessions/far");
  (*update.mutable_values())["x"] = 0.0;
  (*update.mutable_values())["y"] = 0.0;
  v1::Session updated;
  const grpc::Status status = stub_->UpdateSession(&context, update, &updated);
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.error_message() + status.error_details(),
              HasSubstr("rank-deficient at x = 0, y = 0"));
}

TEST_F(ServiceTest, ForkSessionBranchesAtTheCurrentState) {
  MustCreate("pendulum", "trunk", 0.5);
  v1::StreamStatesRequest request;
  request.set_name("sessions/trunk");
  ASSERT_TRUE(Stream(stub_.get(), request).status.ok());

  grpc::ClientContext context;
  SetDeadline(&context);
  v1::ForkSessionRequest fork;
  fork.set_name("sessions/trunk");
  fork.set_session_id("branch");
  v1::Session branch;
  ASSERT_TRUE(stub_->ForkSession(&context, fork, &branch).ok());
  EXPECT_EQ(branch.name(), "sessions/branch");
  EXPECT_EQ(branch.t(), Get("sessions/trunk").t());
  // A fork lives on its parent's replica: its routing key is the root session's id, through
  // any depth of forks.
  EXPECT_EQ(Get("sessions/trunk").routing_key(), "trunk");
  EXPECT_EQ(branch.routing_key(), "trunk");
  grpc::ClientContext twig_context;
  SetDeadline(&twig_context);
  fork.set_name("sessions/branch");
  fork.set_session_id("twig");
  v1::Session twig;
  ASSERT_TRUE(stub_->ForkSession(&twig_context, fork, &twig).ok());
  EXPECT_EQ(twig.routing_key(), "trunk");
  EXPECT_EQ(Get("sessions/twig").routing_key(), "trunk");

  request.set_t_end(1.0);
  const Collected a = Stream(stub_.get(), request);
  request.set_name("sessions/branch");
  const Collected b = Stream(stub_.get(), request);
  ASSERT_TRUE(a.status.ok() && b.status.ok());
  EXPECT_EQ(a.t, b.t);
  EXPECT_EQ(a.values, b.values);

  grpc::ClientContext missing_context;
  SetDeadline(&missing_context);
  fork.set_name("sessions/nope");
  const grpc::Status missing = stub_->ForkSession(&missing_context, fork, &branch);
  EXPECT_EQ(missing.error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST_F(ServiceTest, NumericalFailureDeliversGoodSamplesThenAborts) {
  ASSERT_TRUE(Register(kFailingSpec).ok());
  v1::CreateSessionRequest create;
  create.set_model("fold");
  create.set_session_id("fold");
  // x' = 1 has no local error: without a cap the adaptive step would leap towards the fold.
  create.mutable_options()->set_max_step(0.01);
  v1::Session session;
  ASSERT_TRUE(CreateSession(create, &session).ok());
  v1::StreamStatesRequest request;
  request.set_name("sessions/fold");
  const Collected run = Stream(stub_.get(), request);
  EXPECT_EQ(run.status.error_code(), grpc::StatusCode::ABORTED) << run.status.error_message();
  const google::rpc::ErrorInfo info = ErrorInfoOf(run.status);
  EXPECT_EQ(info.domain(), "tether.dev");
  EXPECT_THAT(info.reason(), ::testing::AnyOf("PROJECTION_FAILED", "SINGULAR_CONSTRAINTS",
                                              "STEP_SIZE_UNDERFLOW", "NON_FINITE"));
  EXPECT_TRUE(info.metadata().contains("t"));
  EXPECT_TRUE(info.metadata().contains("residual_position"));
  // Good samples up to the fold at t = 1 were delivered first; none past t = 1 (y would be
  // imaginary) can be good.
  ASSERT_FALSE(run.t.empty());
  EXPECT_GT(run.t.back(), 0.5);
  EXPECT_LE(run.t.back(), 1.0 + 1e-9);
  ASSERT_TRUE(run.has_summary);
  EXPECT_NE(run.summary.termination(), v1::TERMINATION_REACHED_END);

  const v1::Session failed = WaitNotRunning("sessions/fold");
  EXPECT_EQ(failed.state(), v1::SESSION_STATE_FAILED);
  // The session keeps its last good state and resumes after an update.
  grpc::ClientContext context;
  SetDeadline(&context);
  v1::UpdateSessionRequest update;
  update.set_name("sessions/fold");
  (*update.mutable_values())["x"] = 0.0;
  (*update.mutable_values())["y"] = 1.0;
  v1::Session updated;
  const grpc::Status status = stub_->UpdateSession(&context, update, &updated);
  ASSERT_TRUE(status.ok()) << status.error_message();
  request.set_t_end(failed.t() + 0.2);
  const Collected resumed = Stream(stub_.get(), request);
  EXPECT_TRUE(resumed.status.ok()) << resumed.status.error_message();
  ASSERT_FALSE(resumed.index.empty());
  EXPECT_EQ(resumed.index.front(), run.index.back() + 1);
}

// A session's stream and Simulate report one failure alike: StreamSummary.t is the last good
// state, where the failing step started (after the last sample), on both paths, and the CLI's
// "simulation failed at t = …" quotes it.
TEST_F(ServiceTest, AFailedStreamReportsTheFailureTimeAsSimulateDoes) {
  const Collected session = StreamSingular("sing");
  ASSERT_EQ(session.status.error_code(), grpc::StatusCode::ABORTED)
      << session.status.error_message();
  v1::SimulateRequest simulate;
  simulate.set_model("sing");
  simulate.mutable_options()->set_method("radau5");
  const Collected one_shot = RunSimulate(stub_.get(), simulate);
  ASSERT_EQ(one_shot.status.error_code(), grpc::StatusCode::ABORTED);
  ASSERT_TRUE(session.has_summary && one_shot.has_summary);
  ASSERT_FALSE(session.t.empty());
  EXPECT_DOUBLE_EQ(session.t.back(), 0.9);
  EXPECT_GT(session.summary.t(), 0.99);
  EXPECT_LT(session.summary.t(), 1.0);
  EXPECT_EQ(session.summary.t(), one_shot.summary.t());
}

// A failed session cannot go on, nor could a copy of it (its first stream would fail at once):
// the fork is refused, naming the failure, and nothing is created.
TEST_F(ServiceTest, AFailedSessionIsNotForked) {
  ASSERT_EQ(StreamSingular("sing").status.error_code(), grpc::StatusCode::ABORTED);
  ASSERT_EQ(WaitNotRunning("sessions/sing").state(), v1::SESSION_STATE_FAILED);
  grpc::ClientContext context;
  SetDeadline(&context);
  v1::ForkSessionRequest fork;
  fork.set_name("sessions/sing");
  fork.set_session_id("branch");
  v1::Session branch;
  const grpc::Status refused = stub_->ForkSession(&context, fork, &branch);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(refused.error_message(),
              HasSubstr("session 'sessions/sing' failed and cannot be forked (step size "
                        "underflow at t = 0.99"));
  grpc::Status missing;
  Get("sessions/branch", &missing);
  EXPECT_EQ(missing.error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST_F(ServiceTest, SimulateByNameAndInlineSpecKeepsNothing) {
  v1::SimulateRequest request;
  request.set_model("models/pendulum");
  request.mutable_options()->set_t_end(0.5);
  request.mutable_options()->set_output_interval(0.05);
  const Collected by_name = RunSimulate(stub_.get(), request);
  ASSERT_TRUE(by_name.status.ok()) << by_name.status.error_message();
  EXPECT_EQ(by_name.t.size(), 11u);
  EXPECT_EQ(by_name.summary.termination(), v1::TERMINATION_REACHED_END);
  for (double r : by_name.residual_position) EXPECT_LE(r, kResidualTolerance);

  request.set_spec_json(kOscillatorSpec);
  const Collected inline_spec = RunSimulate(stub_.get(), request);
  ASSERT_TRUE(inline_spec.status.ok()) << inline_spec.status.error_message();
  EXPECT_FALSE(inline_spec.t.empty());

  grpc::ClientContext context;
  SetDeadline(&context);
  v1::ListSessionsResponse sessions;
  ASSERT_TRUE(stub_->ListSessions(&context, v1::ListSessionsRequest(), &sessions).ok());
  EXPECT_EQ(sessions.sessions_size(), 0);
  // The inline spec was not registered.
  grpc::ClientContext get_context;
  SetDeadline(&get_context);
  v1::GetModelRequest get;
  get.set_name("oscillator");
  v1::Model model;
  EXPECT_EQ(stub_->GetModel(&get_context, get, &model).error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST_F(ServiceTest, SimulateErrors) {
  v1::SimulateRequest request;
  Collected run = RunSimulate(stub_.get(), request);
  EXPECT_EQ(run.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(run.status.error_message(), HasSubstr("set model or spec_json"));

  request.set_model("nope");
  run = RunSimulate(stub_.get(), request);
  EXPECT_EQ(run.status.error_code(), grpc::StatusCode::NOT_FOUND);

  request.set_spec_json("{\"name\": 3}");
  run = RunSimulate(stub_.get(), request);
  EXPECT_EQ(run.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(run.status.error_message(), HasSubstr("spec_json: "));
  EXPECT_GE(BadRequestOf(run.status).field_violations_size(), 1);
}

TEST_F(ServiceTest, StepLimitPerStreamPausesTheSession) {
  ServerConfig config = TestConfig();
  config.max_steps_per_stream = 5;
  Restart(config);
  MustCreate("pendulum", "limited", 1.0);
  v1::StreamStatesRequest request;
  request.set_name("sessions/limited");
  request.set_frame_samples(1);
  const Collected run = Stream(stub_.get(), request);
  EXPECT_EQ(run.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(run.status.error_message(), HasSubstr("max_steps_per_stream = 5"));
  EXPECT_FALSE(run.t.empty());
  EXPECT_EQ(WaitNotRunning("sessions/limited").state(), v1::SESSION_STATE_PAUSED);
}

TEST_F(ServiceTest, RealtimePacingFollowsTheWallClock) {
  MustCreate("pendulum", "paced", 0.2);
  v1::StreamStatesRequest request;
  request.set_name("sessions/paced");
  request.set_frame_samples(5);
  request.set_realtime_factor(1.0);
  const auto start = std::chrono::steady_clock::now();
  const Collected run = Stream(stub_.get(), request);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(run.status.ok()) << run.status.error_message();
  // 0.2 simulated seconds at factor 1: the last frame is due 0.2 s after the start.
  EXPECT_GE(wall, 0.19);
}

TEST_F(ServiceTest, HealthIsServingAndTurnsNotServingOnShutdown) {
  const auto channel = server_->InProcessChannel();
  const std::string kService = "tether.v1.SimulationService";
  EXPECT_EQ(HealthStatus(channel), 1);
  EXPECT_EQ(HealthStatus(channel, kService), 1);
  // A name no manifest uses stays unknown (NOT_FOUND), so the two above are served on purpose.
  EXPECT_EQ(HealthStatus(channel, "tether.v1.NoSuchService"), -1);
  MustCreate("pendulum", "draining", 1.0);
  v1::StreamStatesRequest request;
  request.set_name("sessions/draining");
  request.set_indefinite(true);
  request.set_realtime_factor(1.0);
  grpc::ClientContext context;
  SetDeadline(&context);
  auto reader = stub_->StreamStates(&context, request);
  v1::StateChunk chunk;
  ASSERT_TRUE(reader->Read(&chunk));
  std::thread drain([this] { server_->Shutdown(std::chrono::milliseconds(300)); });
  // During the grace period: NOT_SERVING, and new sessions are refused.
  int health = 1;
  for (int i = 0; i < 100 && health == 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    health = HealthStatus(channel);
  }
  EXPECT_EQ(health, 2);
  // Both names flip together: Shutdown sets every registered name in one call.
  EXPECT_EQ(HealthStatus(channel, kService), 2);
  v1::CreateSessionRequest create;
  create.set_model("pendulum");
  v1::Session session;
  const grpc::Status refused = CreateSession(create, &session);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_THAT(refused.error_message(), HasSubstr("draining"));
  while (reader->Read(&chunk)) {
  }
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::UNAVAILABLE);
  drain.join();
}

}  // namespace
}  // namespace tether::server::testing
