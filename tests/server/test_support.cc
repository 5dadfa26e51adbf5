#include "test_support.h"

#include <future>

#include <grpcpp/generic/generic_stub.h>

namespace tether::server::testing {

int HealthStatus(const std::shared_ptr<grpc::Channel>& channel) {
  grpc::GenericStub stub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  // HealthCheckRequest{service: ""} encodes to zero bytes; a default ByteBuffer is not a
  // message at all, so it holds one empty slice.
  grpc::Slice empty_slice("");
  grpc::ByteBuffer request(&empty_slice, 1);
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

}  // namespace tether::server::testing
