// What `--server` names for `tether sweep`, and the channel that reaches it. The Python client
// reads targets the same way (client/python/tether/_channel.py):
//
//   host:port                  one server (gRPC's default pick_first policy)
//   host:port,host:port,...    a list of replicas: each name is resolved once, here, and the
//                              addresses become one ipv4:/ipv6: target whose calls gRPC's own
//                              round_robin policy spreads over the replicas
//   dns:///name:port           every address of a DNS name (a Kubernetes headless Service),
//                              re-resolved by gRPC when a connection fails, with round_robin
//   any other gRPC URI         as given (ipv4:/ipv6: lists with round_robin)
//
// No balancer of our own: a replica that fails leaves round_robin's ready set, so the next call
// goes to another one.
#pragma once

#include <grpcpp/channel.h>

#include <chrono>
#include <memory>
#include <string>

#include "tether/client/client_options.h"

namespace tether::cli {

struct ReplicaTarget {
  std::string uri;           // what gRPC dials
  bool balanced = false;     // several replicas: round_robin
  std::string authority;     // for a resolved list: the first entry's host:port (HTTP/2 :authority)
  std::size_t replicas = 1;  // addresses of a resolved list; 0 = unknown (dns:///, other URIs)
};

// The service config selecting gRPC's round_robin load-balancing policy.
inline constexpr const char* kRoundRobinServiceConfig =
    R"({"loadBalancingConfig": [{"round_robin": {}}]})";

// Resolves `target` (header comment); false with *why ("'a:b' is not HOST:PORT", "cannot
// resolve 'x': Name or service not known", a list mixing IPv4 and IPv6).
bool ResolveReplicaTarget(const std::string& target, ReplicaTarget* resolved, std::string* why);

// A channel to `target`, with round_robin when it is balanced, and the transport security of
// `options` (channel_credentials, tls_server_name; plaintext without).
std::shared_ptr<grpc::Channel> CreateReplicaChannel(const ReplicaTarget& target,
                                                    const client::ClientOptions& options);

// Connects a balanced channel to its replicas before a burst of calls. round_robin picks only
// among replicas already connected, and connecting takes a round trip or more, so K calls issued
// at once on a fresh channel would all go to the first replica that answered. Makes cheap unary
// calls (ListModels of one model) until `target.replicas` distinct peers answered, or — when the
// count is unknown — until kQuietCalls calls in a row brought no new one, within `budget`.
// Returns the replicas seen (0 when none answered: the calls of the sweep then report why).
std::size_t WarmUpReplicas(grpc::Channel& channel, const ReplicaTarget& target,
                           std::chrono::milliseconds budget);

}  // namespace tether::cli
