#include "client/process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace tether::test {
namespace {

constexpr std::chrono::milliseconds kPollInterval{10};

// In the child: redirects stdout/stderr, applies `env`, execs. Never returns.
[[noreturn]] void ExecChild(const std::vector<std::string>& argv, const std::string& out_path,
                            const std::string& err_path, const std::map<std::string, std::string>& env) {
  const int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const int err = err_path == out_path ? out : open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const int null_in = open("/dev/null", O_RDONLY);
  if (out < 0 || err < 0 || null_in < 0) _exit(126);
  dup2(null_in, STDIN_FILENO);
  dup2(out, STDOUT_FILENO);
  dup2(err, STDERR_FILENO);
  for (const auto& [name, value] : env) {
    if (value.empty()) {
      unsetenv(name.c_str());
    } else {
      setenv(name.c_str(), value.c_str(), 1);
    }
  }
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  execv(args[0], args.data());
  _exit(127);
}

int DecodeStatus(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

std::string TempPath(const std::string& stem) {
  // Atomic: tests run processes from several threads at once (TSan found the race).
  static std::atomic<int> counter = 0;
  return (std::filesystem::temp_directory_path() /
          ("tether_e2e_" + std::to_string(getpid()) + "_" + std::to_string(counter++) + stem))
      .string();
}

}  // namespace

std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

ProcessResult RunProcess(const std::vector<std::string>& argv,
                         const std::map<std::string, std::string>& env, std::chrono::seconds timeout) {
  const std::string out_path = TempPath(".out");
  const std::string err_path = TempPath(".err");
  ProcessResult result;
  const pid_t pid = fork();
  if (pid == 0) ExecChild(argv, out_path, err_path, env);
  if (pid < 0) return result;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      result.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(kPollInterval);
  }
  result.exit_code = result.timed_out ? -1 : DecodeStatus(status);
  result.out = ReadWholeFile(out_path);
  result.err = ReadWholeFile(err_path);
  std::filesystem::remove(out_path);
  std::filesystem::remove(err_path);
  return result;
}

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::string& log_file) {
  pid_ = fork();
  if (pid_ == 0) ExecChild(argv, log_file, log_file, {{"TETHER_SERVER", ""}});
}

ChildProcess::~ChildProcess() { Stop(); }

bool ChildProcess::running() {
  if (pid_ <= 0) return false;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) == 0) return true;
  exit_code_ = DecodeStatus(status);
  pid_ = -1;
  return false;
}

int ChildProcess::Stop(std::chrono::milliseconds grace) {
  if (!running()) return exit_code_;
  kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + grace;
  int status = 0;
  while (waitpid(pid_, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(kPollInterval);
  }
  exit_code_ = DecodeStatus(status);
  pid_ = -1;
  return exit_code_;
}

int FreeLoopbackPort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof(address);
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  close(fd);
  return port;
}

}  // namespace tether::test
