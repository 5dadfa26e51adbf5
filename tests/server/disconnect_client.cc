// A client to be killed: opens `connections` connections to a tether-server on 127.0.0.1, each
// with a unary call (CreateSession) and an open StreamStates stream of that session (paced, so
// frames keep coming and the client stops reading them after the first message), prints
// "ready", and waits to be killed (SIGKILL: the kernel closes every socket at once, with RST
// where unread data remains). Used by disconnect_storm_test; "unpaced" for a manual measurement
// of streams blocked on flow control.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "tether/v1/simulation_service.grpc.pb.h"

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: disconnect_client PORT CONNECTIONS [unpaced]\n");
    return 2;
  }
  // "unpaced": the streams run as fast as they can, so that the server is blocked on flow
  // control, with a write in flight, when the client dies (megabytes of socket buffer each).
  const bool unpaced = argc == 4 && std::string(argv[3]) == "unpaced";
  const std::string target = std::string("127.0.0.1:") + argv[1];
  const int connections = std::atoi(argv[2]);
  struct Open {
    std::unique_ptr<tether::v1::SimulationService::Stub> stub;
    std::unique_ptr<grpc::ClientContext> context;
    std::unique_ptr<grpc::ClientReader<tether::v1::StateChunk>> reader;
  };
  std::vector<Open> open;
  open.reserve(static_cast<std::size_t>(connections));
  for (int i = 0; i < connections; ++i) {
    // A subchannel pool per channel: every channel is a TCP connection of its own.
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    auto channel = grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
    Open o;
    o.stub = tether::v1::SimulationService::NewStub(channel);
    // The unary call: a session for the stream (it outlives the client, paused).
    tether::v1::Session session;
    {
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
      tether::v1::CreateSessionRequest request;
      request.set_model("pendulum");
      const grpc::Status status = o.stub->CreateSession(&context, request, &session);
      if (!status.ok()) {
        std::fprintf(stderr, "CreateSession %d: %s\n", i, status.error_message().c_str());
        return 1;
      }
    }
    // Paced at real time, one sample per frame: the server holds the stream open with little
    // in its buffers (an unpaced stream would fill megabytes of socket buffer per connection).
    tether::v1::StreamStatesRequest request;
    request.set_name(session.name());
    request.set_indefinite(true);
    request.set_realtime_factor(unpaced ? 0.0 : 1.0);
    request.set_frame_samples(1);
    o.context = std::make_unique<grpc::ClientContext>();
    o.reader = o.stub->StreamStates(o.context.get(), request);
    tether::v1::StateChunk chunk;
    if (!o.reader->Read(&chunk)) {
      std::fprintf(stderr, "StreamStates %d: no first message\n", i);
      return 1;
    }
    open.push_back(std::move(o));
  }
  std::printf("ready\n");
  std::fflush(stdout);
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(60));
}
