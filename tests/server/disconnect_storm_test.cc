// A disconnect storm leaves nothing behind: rounds of client processes, each holding a hundred
// connections with a completed unary call and an open stream, are killed with SIGKILL; after
// every round the real tether-server's open file descriptors (/proc/<pid>/fd) return to within
// a small bound of their baseline, and stay there round after round (no growth per round).
// TETHER_STORM_CONNECTIONS and TETHER_STORM_ROUNDS scale it up for a longer measurement.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "test_support.h"

namespace tether::server::testing {
namespace {

// Per round: kClients client processes × ConnectionsPerClient() abrupt disconnects; the
// defaults (2 × 100, 4 rounds) keep the test within ~30 s on a shared 2-core machine.
constexpr int kClients = 2;

int FromEnvironment(const char* name, int fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && std::atoi(value) > 0 ? std::atoi(value) : fallback;
}
int ConnectionsPerClient() { return FromEnvironment("TETHER_STORM_CONNECTIONS", 100); }
int Rounds() { return FromEnvironment("TETHER_STORM_ROUNDS", 4); }
// Descriptors the server may hold beyond its baseline once a round has settled: none is
// expected; the slack allows for a listener or timer fd gRPC may open lazily.
constexpr int kSlack = 2;

// disconnect_client, started with its stdout on a pipe; Ready() waits for its "ready" line.
class Client {
 public:
  Client(int port, int connections) {
    int pipe_fds[2];
    EXPECT_EQ(::pipe(pipe_fds), 0);
    const std::string port_text = std::to_string(port);
    const std::string count_text = std::to_string(connections);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      ::dup2(pipe_fds[1], STDOUT_FILENO);
      ::close(pipe_fds[0]);
      ::execl(DISCONNECT_CLIENT_BINARY, DISCONNECT_CLIENT_BINARY, port_text.c_str(),
              count_text.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(pipe_fds[1]);
    out_ = pipe_fds[0];
  }
  ~Client() {
    Kill();
    if (out_ >= 0) ::close(out_);
  }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // True once the client printed "ready" (within `limit`).
  bool Ready(std::chrono::milliseconds limit) {
    std::string text;
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (text.find("ready") == std::string::npos) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd p{out_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
      char buffer[64];
      const ssize_t n = ::read(out_, buffer, sizeof buffer);
      if (n <= 0) return false;  // exited without "ready"
      text.append(buffer, static_cast<std::size_t>(n));
    }
    return true;
  }

  void Kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

 private:
  int pid_ = -1;
  int out_ = -1;
};

// Polls (bounded: 10 s) until the server holds at most `bound` descriptors; the last count.
// Waiting for the baseline itself (not baseline + slack) shows a descriptor that stays.
int SettleTo(const ServerProcess& server, int bound) {
  int count = server.OpenFileDescriptors();
  for (int i = 0; i < 200 && count > bound; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    count = server.OpenFileDescriptors();
  }
  return count;
}

void Storm(const ServerProcess& server, int port) {
  std::vector<std::unique_ptr<Client>> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.push_back(std::make_unique<Client>(port, ConnectionsPerClient()));
  }
  for (auto& client : clients) {
    ASSERT_TRUE(client->Ready(std::chrono::seconds(60))) << server.Log();
  }
  // Every connection is open on the server side now.
  EXPECT_GE(server.OpenFileDescriptors(), kClients * ConnectionsPerClient());
  for (auto& client : clients) client->Kill();
}

TEST(DisconnectStormTest, KilledClientsLeaveNoDescriptorsBehind) {
  // Every connection leaves a paused session behind (sessions hold no descriptors).
  ServerProcess server(TETHER_SERVER_BINARY, {"--quiet", "--max-sessions", "100000"});
  const int port = server.WaitForPort();
  ASSERT_GT(port, 0) << server.Log();
  // A first, small storm lets gRPC open whatever it opens once (its pollers, timers), so that
  // the baseline holds them.
  {
    Client warm(port, 10);
    ASSERT_TRUE(warm.Ready(std::chrono::seconds(20))) << server.Log();
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const int baseline = server.OpenFileDescriptors();
  ASSERT_GT(baseline, 0);
  std::vector<int> after;
  for (int round = 0; round < Rounds(); ++round) {
    Storm(server, port);
    if (::testing::Test::HasFatalFailure()) return;
    after.push_back(SettleTo(server, baseline));
  }
  std::string counts;
  for (int c : after) counts += " " + std::to_string(c);
  for (int c : after) EXPECT_LE(c, baseline + kSlack) << "baseline " << baseline << ", after each round:" << counts;
  std::printf("open descriptors: baseline %d, after each round of %d disconnects:%s\n", baseline,
              kClients * ConnectionsPerClient(), counts.c_str());
}

}  // namespace
}  // namespace tether::server::testing
