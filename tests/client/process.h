// Child processes for end-to-end tests: run a command with a bounded wait and capture its
// output, or keep a server process running for the length of a test (always killed).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace tether::test {

struct ProcessResult {
  int exit_code = -1;  // -1 when killed by a signal or the timeout
  bool timed_out = false;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs argv[0] with the given arguments; `env` entries are set ("" value = unset) on top of
// this process's environment. The child is killed after `timeout`.
ProcessResult RunProcess(const std::vector<std::string>& argv,
                         const std::map<std::string, std::string>& env = {},
                         std::chrono::seconds timeout = std::chrono::seconds(60));

// A process that runs until Stop() or destruction (SIGTERM, then SIGKILL after a grace).
class ChildProcess {
 public:
  // Starts it with stdout and stderr going to `log_file`.
  ChildProcess(const std::vector<std::string>& argv, const std::string& log_file);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  [[nodiscard]] bool running();
  // SIGTERM, wait up to `grace`, then SIGKILL; returns the exit code (-1 if signalled).
  int Stop(std::chrono::milliseconds grace = std::chrono::milliseconds(3000));

 private:
  pid_t pid_ = -1;
  int exit_code_ = -1;
};

// A TCP port on 127.0.0.1 that was free a moment ago (bound to port 0, then released).
int FreeLoopbackPort();

// The whole text of a file ("" if unreadable).
std::string ReadWholeFile(const std::string& path);

}  // namespace tether::test
