#include "test_support.h"

#include <fcntl.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/sha.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include <grpcpp/generic/generic_stub.h>

namespace tether::server::testing {

int ConnectLoopback(int port, int receive_buffer) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (receive_buffer > 0) {
    ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
  }
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval timeout{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

std::string HttpExchange(int port, const std::string& request) {
  const int fd = ConnectLoopback(port);
  if (fd < 0) return {};
  ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string response;
  char buffer[4096];
  for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) {
    response.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return response;
}

std::map<std::string, double> ParseExposition(const std::string& body) {
  std::map<std::string, double> samples;
  std::istringstream in(body);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const std::size_t space = line.rfind(' ');
    EXPECT_NE(space, std::string::npos) << line;
    if (space == std::string::npos) continue;
    samples[line.substr(0, space)] = std::stod(line.substr(space + 1));
  }
  return samples;
}

std::map<std::string, double> ScrapeMetrics(int port) {
  const std::string response = HttpExchange(port, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(response.rfind("HTTP/1.1 200 OK\r\n", 0), 0U) << response.substr(0, 200);
  const std::size_t body = response.find("\r\n\r\n");
  return body == std::string::npos ? std::map<std::string, double>{}
                                   : ParseExposition(response.substr(body + 4));
}

std::map<std::string, double> ScrapeMetricsWhenIdle(int port) {
  std::map<std::string, double> samples = ScrapeMetrics(port);
  for (int i = 0; i < 1000 && samples["tether_open_streams"] != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    samples = ScrapeMetrics(port);
  }
  return samples;
}

int HealthStatus(const std::shared_ptr<grpc::Channel>& channel, const std::string& service) {
  grpc::GenericStub stub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  // HealthCheckRequest{service}: field 1, length-delimited (tag 0x0a, a one-byte length for
  // names under 128 bytes, the bytes); service "" encodes to zero bytes. A default ByteBuffer
  // is not a message at all, so the request always holds one slice.
  EXPECT_LT(service.size(), 128U) << "HealthStatus encodes one-byte lengths only";
  std::string encoded;
  if (!service.empty()) {
    encoded.push_back(0x0a);
    encoded.push_back(static_cast<char>(service.size()));
    encoded += service;
  }
  grpc::Slice request_slice(encoded);
  grpc::ByteBuffer request(&request_slice, 1);
  grpc::ByteBuffer response;
  std::promise<grpc::Status> done;
  stub.UnaryCall(&context, "/grpc.health.v1.Health/Check", grpc::StubOptions(), &request,
                 &response, [&done](grpc::Status status) { done.set_value(status); });
  const grpc::Status status = done.get_future().get();
  if (!status.ok()) return -1;
  std::vector<grpc::Slice> slices;
  if (!response.Dump(&slices).ok()) return -1;
  std::string bytes;
  for (const grpc::Slice& s : slices) bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
  // Field 1, varint: tag byte 0x08 then the value; an absent field is UNKNOWN = 0.
  if (bytes.size() >= 2 && bytes[0] == 0x08) return bytes[1];
  return 0;
}

std::string TokenLine(const std::string& tenant, const std::string& token,
                      const std::string& salt) {
  const std::string input = salt + token;
  unsigned char hash[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(input.data()), input.size(), hash);
  char hex[2 * SHA256_DIGEST_LENGTH + 1];
  for (int i = 0; i < SHA256_DIGEST_LENGTH; ++i) std::snprintf(hex + 2 * i, 3, "%02x", hash[i]);
  return tenant + ":" + salt + ":" + hex;
}

ServerProcess::ServerProcess(const std::string& binary, const std::vector<std::string>& args) {
  static std::atomic<int> started = 0;  // servers may be started from several threads
  log_ = ::testing::TempDir() + "tether_server_" + std::to_string(::getpid()) + "_" +
         std::to_string(started++) + ".log";
  std::vector<std::string> argv = {binary, "--listen", "127.0.0.1:0", "--worker-threads", "2"};
  argv.insert(argv.end(), args.begin(), args.end());
  // Truncated here, before the fork: with pids recycled (pid_max 32768), a log of an earlier
  // test process with this pid may still be there, and WaitForPort would read its port.
  const int fd = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_ = ::fork();
  if (pid_ == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive a crashed test
    ::dup2(fd, STDERR_FILENO);
    std::vector<char*> pointers;
    for (std::string& a : argv) pointers.push_back(a.data());
    pointers.push_back(nullptr);
    ::execv(binary.c_str(), pointers.data());
    ::_exit(127);
  }
  ::close(fd);
}

ServerProcess::~ServerProcess() {
  if (pid_ > 0 && !exited_) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
}

int ServerProcess::WaitForPort() {
  for (int i = 0; i < 1000; ++i) {
    std::ifstream in(log_);
    std::string line;
    while (std::getline(in, line)) {
      const auto json = nlohmann::json::parse(line, nullptr, false);
      if (json.is_object() && json.value("event", "") == "serving") return json.value("port", 0);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return 0;
}

int ServerProcess::WaitForExit(std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      exited_ = true;
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return -1;
}

void ServerProcess::Signal(int number) { ::kill(pid_, number); }

std::string ServerProcess::Log() const {
  std::ifstream in(log_);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int ServerProcess::OpenFileDescriptors() const {
  std::error_code ec;
  int count = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/" + std::to_string(pid_) + "/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++count;
  }
  return ec ? -1 : count;
}

}  // namespace tether::server::testing
