// tether-server's TETHER_* environment variables: a limit set by one takes effect, the flag
// overrides it, and an invalid value stops the start with a message naming the variable.
// Runs the real binary on 127.0.0.1 port 0; every wait is bounded.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "test_support.h"

extern char** environ;

namespace tether::server::testing {
namespace {

using ::testing::HasSubstr;

// tether-server with extra environment variables and arguments; stderr goes to a file.
class EnvServerProcess {
 public:
  EnvServerProcess(const std::vector<std::string>& env, const std::vector<std::string>& args) {
    static std::atomic<int> counter{0};
    log_ = ::testing::TempDir() + "tether_env_" + std::to_string(::getpid()) + "_" +
           std::to_string(counter++) + ".log";
    // Built before fork: the child may only exec (the test process has gRPC threads).
    for (char** e = environ; *e != nullptr; ++e) {
      if (std::string(*e).rfind("TETHER_", 0) != 0) env_.emplace_back(*e);
    }
    env_.insert(env_.end(), env.begin(), env.end());
    args_ = {TETHER_SERVER_BINARY, "--listen", "127.0.0.1:0", "--worker-threads", "1", "--quiet"};
    args_.insert(args_.end(), args.begin(), args.end());
    std::vector<char*> argv = Pointers(&args_);
    std::vector<char*> envp = Pointers(&env_);
    const int fd = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive a crashed test
      ::dup2(fd, STDERR_FILENO);
      ::execve(TETHER_SERVER_BINARY, argv.data(), envp.data());
      ::_exit(127);
    }
    ::close(fd);
  }
  ~EnvServerProcess() {
    if (pid_ > 0 && !exited_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  EnvServerProcess(const EnvServerProcess&) = delete;
  EnvServerProcess& operator=(const EnvServerProcess&) = delete;

  // The port of the {"event":"serving"} line; 0 if none within 10 s or the process exited.
  int WaitForPort() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      std::istringstream in(Log());
      std::string line;
      while (std::getline(in, line)) {
        const auto json = nlohmann::json::parse(line, nullptr, false);
        if (json.is_object() && json.value("event", "") == "serving") return json.value("port", 0);
      }
      if (exited_ || ::waitpid(pid_, &status_, WNOHANG) == pid_) {
        exited_ = true;
        return 0;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return 0;
  }

  // Exit code, or -1 if the process did not exit within 10 s.
  int WaitForExit() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!exited_ && std::chrono::steady_clock::now() < deadline) {
      if (::waitpid(pid_, &status_, WNOHANG) == pid_) exited_ = true;
      else std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!exited_) return -1;
    return WIFEXITED(status_) ? WEXITSTATUS(status_) : 128 + WTERMSIG(status_);
  }

  [[nodiscard]] std::string Log() const {
    std::ifstream in(log_);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

 private:
  static std::vector<char*> Pointers(std::vector<std::string>* strings) {
    std::vector<char*> out;
    for (std::string& s : *strings) out.push_back(s.data());
    out.push_back(nullptr);
    return out;
  }

  std::string log_;
  std::vector<std::string> args_;
  std::vector<std::string> env_;
  pid_t pid_ = -1;
  int status_ = 0;
  bool exited_ = false;
};

// Creates sessions on the server at `port` until one is refused; how many were created (at
// most `limit`, so that a limit not in effect fails instead of running on).
int SessionsUntilRefused(int port, int limit, grpc::Status* refusal) {
  auto stub = v1::SimulationService::NewStub(grpc::CreateChannel(
      "127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
  for (int i = 0; i < limit; ++i) {
    grpc::ClientContext context;
    SetDeadline(&context);
    v1::CreateSessionRequest request;
    request.set_model("models/pendulum");
    v1::Session session;
    *refusal = stub->CreateSession(&context, request, &session);
    if (!refusal->ok()) return i;
  }
  return limit;
}

TEST(EnvTest, MaxSessionsFromEnvironmentTakesEffect) {
  EnvServerProcess process({"TETHER_MAX_SESSIONS=2"}, {});
  const int port = process.WaitForPort();
  ASSERT_GT(port, 0) << process.Log();
  grpc::Status refusal;
  EXPECT_EQ(SessionsUntilRefused(port, 5, &refusal), 2);
  EXPECT_EQ(refusal.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refusal.error_message(), HasSubstr("max_sessions = 2 live sessions reached"));
}

TEST(EnvTest, FlagOverridesEnvironment) {
  EnvServerProcess process({"TETHER_MAX_SESSIONS=1"}, {"--max-sessions", "3"});
  const int port = process.WaitForPort();
  ASSERT_GT(port, 0) << process.Log();
  grpc::Status refusal;
  EXPECT_EQ(SessionsUntilRefused(port, 5, &refusal), 3);
  EXPECT_THAT(refusal.error_message(), HasSubstr("max_sessions = 3 live sessions reached"));
}

TEST(EnvTest, InvalidValueIsRefusedNamingTheVariable) {
  EnvServerProcess process({"TETHER_MAX_SESSIONS=many"}, {});
  const int code = process.WaitForExit();
  EXPECT_GT(code, 0) << process.Log();
  EXPECT_THAT(process.Log(), HasSubstr("TETHER_MAX_SESSIONS"));
  EXPECT_THAT(process.Log(), HasSubstr("many"));
}

TEST(EnvTest, ZeroLimitFromEnvironmentIsRefusedNamingTheVariable) {
  EnvServerProcess process({"TETHER_MAX_SESSIONS=0"}, {});
  const int code = process.WaitForExit();
  EXPECT_GT(code, 0) << process.Log();
  EXPECT_THAT(process.Log(), HasSubstr("TETHER_MAX_SESSIONS"));
}

}  // namespace
}  // namespace tether::server::testing
