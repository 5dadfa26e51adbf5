#include "cli/replica_target.h"

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/channel_arguments.h>
#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <set>
#include <thread>
#include <vector>

#include "tether/v1/simulation_service.grpc.pb.h"

namespace tether::cli {
namespace {

struct Resolved {
  int family = AF_INET;
  std::string address;  // "1.2.3.4:50051" or "[::1]:50051"
};

bool SplitHostPort(const std::string& entry, std::string* host, std::string* port) {
  const auto colon = entry.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == entry.size()) return false;
  *port = entry.substr(colon + 1);
  if (!std::all_of(port->begin(), port->end(), [](unsigned char c) { return std::isdigit(c); })) {
    return false;
  }
  *host = entry.substr(0, colon);
  if (host->size() >= 2 && host->front() == '[' && host->back() == ']') {
    *host = host->substr(1, host->size() - 2);
  }
  return true;
}

// The first address the system resolver gives for `entry` (its preferred one).
bool Resolve(const std::string& entry, Resolved* resolved, std::string* why) {
  std::string host;
  std::string port;
  if (!SplitHostPort(entry, &host, &port)) {
    *why = "'" + entry + "' is not HOST:PORT";
    return false;
  }
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  if (const int code = getaddrinfo(host.c_str(), port.c_str(), &hints, &list); code != 0) {
    *why = "cannot resolve '" + host + "': " + gai_strerror(code);
    return false;
  }
  std::array<char, NI_MAXHOST> text{};
  const int code = getnameinfo(list->ai_addr, list->ai_addrlen, text.data(), text.size(), nullptr,
                               0, NI_NUMERICHOST);
  resolved->family = list->ai_family;
  freeaddrinfo(list);
  if (code != 0) {
    *why = "cannot resolve '" + host + "': " + gai_strerror(code);
    return false;
  }
  const std::string ip = text.data();
  resolved->address = resolved->family == AF_INET6 ? "[" + ip + "]:" + port : ip + ":" + port;
  return true;
}

std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> entries;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = std::min(text.find(',', start), text.size());
    if (comma > start) entries.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return entries;
}

bool StartsWith(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

bool ResolveReplicaTarget(const std::string& target, ReplicaTarget* resolved, std::string* why) {
  *resolved = ReplicaTarget{};
  if (target.empty()) {
    *why = "empty server: give HOST:PORT, a comma-separated list, or dns:///NAME:PORT";
    return false;
  }
  const bool list = target.find(',') != std::string::npos;
  if (StartsWith(target, "dns:")) {
    *resolved = {target, true, "", 0};
    return true;
  }
  if (!list || StartsWith(target, "ipv4:") || StartsWith(target, "ipv6:") ||
      StartsWith(target, "unix:")) {
    *resolved = {target, list, "", list ? std::size_t{0} : std::size_t{1}};
    return true;
  }
  const std::vector<std::string> entries = SplitList(target);
  std::string uri;
  int family = AF_UNSPEC;
  for (const std::string& entry : entries) {
    Resolved one;
    if (!Resolve(entry, &one, why)) return false;
    if (family != AF_UNSPEC && one.family != family) {
      *why = "'" + target +
             "' mixes IPv4 and IPv6 addresses; gRPC's ipv4:/ipv6: targets hold one "
             "family (use dns:/// or one family)";
      return false;
    }
    family = one.family;
    uri += (uri.empty() ? "" : ",") + one.address;
  }
  resolved->uri = (family == AF_INET6 ? "ipv6:" : "ipv4:") + uri;
  resolved->balanced = true;
  resolved->authority = entries.front();
  resolved->replicas = entries.size();
  return true;
}

std::shared_ptr<grpc::Channel> CreateReplicaChannel(const ReplicaTarget& target,
                                                    const client::ClientOptions& options) {
  grpc::ChannelArguments arguments;
  if (target.balanced) arguments.SetServiceConfigJSON(kRoundRobinServiceConfig);
  if (!target.authority.empty()) arguments.SetString(GRPC_ARG_DEFAULT_AUTHORITY, target.authority);
  if (!options.tls_server_name.empty()) arguments.SetSslTargetNameOverride(options.tls_server_name);
  return grpc::CreateCustomChannel(target.uri,
                                   options.channel_credentials != nullptr
                                       ? options.channel_credentials
                                       : grpc::InsecureChannelCredentials(),
                                   arguments);
}

}  // namespace tether::cli

namespace tether::cli {

std::size_t WarmUpReplicas(grpc::Channel& channel, const ReplicaTarget& target,
                           std::chrono::milliseconds budget) {
  // Unknown count: this many answers in a row from known replicas end the warm-up; with the pause
  // below that leaves ~kQuietCalls·kPause for slower connections to come up.
  constexpr int kQuietCalls = 8;
  constexpr std::chrono::milliseconds kPause{10};
  const auto deadline = std::chrono::system_clock::now() + budget;
  if (!target.balanced) return channel.WaitForConnected(deadline) ? 1 : 0;
  auto stub = v1::SimulationService::NewStub(
      std::shared_ptr<grpc::Channel>(&channel, [](grpc::Channel*) {}));
  std::set<std::string> seen;
  int quiet = 0;
  while (std::chrono::system_clock::now() < deadline && quiet < kQuietCalls &&
         (target.replicas == 0 || seen.size() < target.replicas)) {
    grpc::ClientContext context;
    context.set_deadline(deadline);
    context.set_wait_for_ready(true);  // the first call waits for the first connection
    v1::ListModelsRequest request;
    request.set_page_size(1);
    v1::ListModelsResponse response;
    if (!stub->ListModels(&context, request, &response).ok()) break;
    quiet = seen.insert(context.peer()).second ? 0 : quiet + 1;
    std::this_thread::sleep_for(kPause);
  }
  return seen.size();
}

}  // namespace tether::cli
