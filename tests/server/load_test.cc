// Flow control and cleanup over real loopback TCP: a reader that does not read holds the
// server's memory flat, and clients that vanish mid-stream leave nothing running.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <dirent.h>

#include <fstream>
#include <thread>

#include "test_support.h"

namespace tether::server::testing {
namespace {

std::size_t ThreadCount() {
  std::size_t count = 0;
  if (DIR* dir = opendir("/proc/self/task")) {
    while (dirent* entry = readdir(dir)) count += entry->d_name[0] != '.';
    closedir(dir);
  }
  return count;
}

// Resident set size [bytes] from /proc/self/statm (second field, in pages).
std::size_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * 4096;
}

class LoopbackTest : public ::testing::Test {
 public:
  Server* server() { return server_.get(); }

  void SetUp() override {
    ServerConfig config = TestConfig();
    config.listen = "127.0.0.1:0";
    std::string error;
    server_ = Server::Start(config, &error);
    ASSERT_NE(server_, nullptr) << error;
    ASSERT_GT(server_->port(), 0);
    target_ = "127.0.0.1:" + std::to_string(server_->port());
  }

  std::unique_ptr<v1::SimulationService::Stub> NewStub() {
    // A channel of its own per client: dropping it is a disconnect.
    grpc::ChannelArguments args;
    args.SetInt("grpc.use_local_subchannel_pool", 1);
    return v1::SimulationService::NewStub(
        grpc::CreateCustomChannel(target_, grpc::InsecureChannelCredentials(), args));
  }

  void Create(v1::SimulationService::Stub* stub, const std::string& id) {
    grpc::ClientContext context;
    SetDeadline(&context);
    v1::CreateSessionRequest request;
    request.set_model("pendulum");
    request.set_session_id(id);
    request.mutable_options()->set_output_interval(0.001);
    v1::Session session;
    ASSERT_TRUE(stub->CreateSession(&context, request, &session).ok());
  }

  v1::Session Get(v1::SimulationService::Stub* stub, const std::string& id) {
    grpc::ClientContext context;
    SetDeadline(&context);
    v1::GetSessionRequest request;
    request.set_name("sessions/" + id);
    v1::Session session;
    EXPECT_TRUE(stub->GetSession(&context, request, &session).ok());
    return session;
  }


 protected:
  std::unique_ptr<Server> server_;
  std::string target_;
};

// One write in flight per stream and one frame computed ahead of it: once HTTP/2 flow control
// stops accepting the unread frames, OnWriteDone no longer fires, so no further frame is
// computed — the session's index stops growing and the server holds at most two frames for it.
TEST_F(LoopbackTest, ASlowReaderHoldsServerMemoryFlat) {
  auto stub = NewStub();
  Create(stub.get(), "slow");
  v1::StreamStatesRequest request;
  request.set_name("sessions/slow");
  request.set_indefinite(true);
  request.set_frame_samples(1024);
  grpc::ClientContext context;
  SetDeadline(&context);
  auto reader = stub->StreamStates(&context, request);
  v1::StateChunk chunk;
  ASSERT_TRUE(reader->Read(&chunk));  // header; then stop reading

  // The run advances until the flow-control windows are full, then stops: three equal
  // readings of its sample index, 100 ms apart, at most 30 s of polling (a sanitizer build
  // computes the first frames 10x slower).
  std::uint64_t stalled = 0;
  int equal = 0;
  for (int i = 0; i < 300 && equal < 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const std::uint64_t index = Get(stub.get(), "slow").next_sample_index();
    equal = index == stalled ? equal + 1 : 0;
    stalled = index;
  }
  ASSERT_EQ(equal, 3) << "the session kept computing for a reader that does not read";
  const std::size_t rss = ResidentBytes();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const std::uint64_t later = Get(stub.get(), "slow").next_sample_index();
  const std::size_t rss_later = ResidentBytes();
  const ServerMetrics metrics = server_->metrics();

  EXPECT_EQ(later, stalled) << "the session kept computing for a reader that does not read";
  // 1024 samples × 7 columns × 8 B ≈ 57 kB per frame; the stall bounds what can accumulate.
  EXPECT_LT(rss_later, rss + (8u << 20));
  // Stalled, the pipeline is full: the frame whose write waits and the one computed ahead.
  EXPECT_EQ(metrics.max_frames_buffered_per_stream, 2u);
  EXPECT_EQ(metrics.frames_buffered, 2u);
  std::printf("slow reader: stalled at sample %llu; RSS %zu -> %zu kB\n",
              static_cast<unsigned long long>(stalled), rss / 1024, rss_later / 1024);

  // The reader resumes and the session moves on.
  for (int i = 0; i < 200 && reader->Read(&chunk); ++i) {
  }
  EXPECT_GT(Get(stub.get(), "slow").next_sample_index(), stalled);
  context.TryCancel();
  while (reader->Read(&chunk)) {
  }
  reader->Finish();
}

// Opens kClients indefinite streams, reads a frame of each, then the clients vanish.
void VanishRound(LoopbackTest* test, const std::string& prefix, int clients);

TEST_F(LoopbackTest, VanishedClientsLeaveNothingRunning) {
  constexpr int kClients = 16;
  auto control = NewStub();
  // gRPC starts some threads of its own lazily (executor, timer, event engine) and keeps them;
  // a first round brings them up, so the second round measures what the server leaves behind.
  VanishRound(this, "warm-", kClients);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const std::size_t threads_before = ThreadCount();
  VanishRound(this, "gone-", kClients);

  ServerMetrics metrics = server_->metrics();
  for (int i = 0; i < 500 && (metrics.open_streams > 0 || metrics.busy_workers > 0); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    metrics = server_->metrics();
  }
  EXPECT_EQ(metrics.open_streams, 0u);
  EXPECT_EQ(metrics.busy_workers, 0u);
  EXPECT_EQ(metrics.queued_tasks, 0u);
  EXPECT_EQ(metrics.frames_buffered, 0u);
  for (int i = 0; i < kClients; ++i) {
    EXPECT_NE(Get(control.get(), "gone-" + std::to_string(i)).state(), v1::SESSION_STATE_RUNNING);
  }
  // gRPC's own threads may linger briefly after the channels close; allow them to go.
  std::size_t threads_after = ThreadCount();
  for (int i = 0; i < 300 && threads_after > threads_before; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    threads_after = ThreadCount();
  }
  std::printf("threads: %zu before, %zu after %d vanished clients\n", threads_before,
              threads_after, kClients);
  // The server's own threads are fixed (worker pool + expiry sweeper). gRPC's executor adds a
  // thread when all of its threads are busy (under CPU contention from other processes) and
  // retires it only after an idle timeout, so up to kGrpcBurstThreads extra ones are gRPC's.
  constexpr std::size_t kGrpcBurstThreads = 2;
  EXPECT_LE(threads_after, threads_before + kGrpcBurstThreads);
}

void VanishRound(LoopbackTest* test, const std::string& prefix, int clients) {
  std::vector<std::unique_ptr<v1::SimulationService::Stub>> stubs;
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  std::vector<std::unique_ptr<grpc::ClientReader<v1::StateChunk>>> readers;
  for (int i = 0; i < clients; ++i) {
    stubs.push_back(test->NewStub());
    test->Create(stubs.back().get(), prefix + std::to_string(i));
    v1::StreamStatesRequest request;
    request.set_name("sessions/" + prefix + std::to_string(i));
    request.set_indefinite(true);
    contexts.push_back(std::make_unique<grpc::ClientContext>());
    SetDeadline(contexts.back().get());
    readers.push_back(stubs.back()->StreamStates(contexts.back().get(), request));
    v1::StateChunk chunk;
    ASSERT_TRUE(readers.back()->Read(&chunk));
    ASSERT_TRUE(readers.back()->Read(&chunk));  // a first frame: the stream is running
  }
  EXPECT_EQ(test->server()->metrics().open_streams, static_cast<std::size_t>(clients));
  // Vanish: cancel without reading the rest, then drop readers, stubs and channels.
  for (auto& context : contexts) context->TryCancel();
  for (auto& reader : readers) reader->Finish();
}

}  // namespace
}  // namespace tether::server::testing
