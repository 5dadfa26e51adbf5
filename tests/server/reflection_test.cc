// Server reflection (grpc.reflection.v1alpha): the services are listed and the file of
// tether.v1.SimulationService resolves with its dependencies into a descriptor pool.
//
// Debian's libgrpc++-dev ships the server plugin but not the client-side
// ProtoReflectionDescriptorDatabase, and linking stubs generated from reflection.proto would
// register the same message names twice (libgrpc++_reflection already holds them). So the test
// speaks the protocol over raw bytes, encoding and decoding with protobuf's UnknownFieldSet.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/unknown_field_set.h>
#include <grpcpp/support/sync_stream.h>

#include "test_support.h"

namespace tether::server::testing {
namespace {

using google::protobuf::UnknownField;
using google::protobuf::UnknownFieldSet;
using ::testing::Contains;

constexpr const char* kReflectionMethod =
    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo";
// Field numbers of reflection.proto (/usr/share/grpc-proto/grpc/reflection/v1alpha/).
constexpr int kRequestFileContainingSymbol = 4;
constexpr int kRequestListServices = 7;
constexpr int kResponseFileDescriptor = 4;   // FileDescriptorResponse
constexpr int kResponseListServices = 6;     // ListServiceResponse
constexpr int kResponseError = 7;            // ErrorResponse
constexpr int kFileDescriptorProtoBytes = 1;  // FileDescriptorResponse.file_descriptor_proto
constexpr int kListedService = 1;             // ListServiceResponse.service
constexpr int kServiceName = 1;               // ServiceResponse.name

grpc::ByteBuffer ToBuffer(const std::string& bytes) {
  grpc::Slice slice(bytes);
  return grpc::ByteBuffer(&slice, 1);
}

std::string FromBuffer(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  std::string bytes;
  if (!buffer.Dump(&slices).ok()) return bytes;
  for (const grpc::Slice& s : slices) {
    bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
  }
  return bytes;
}

// The length-delimited values of field `number` in `message`.
std::vector<std::string> Field(const std::string& message, int number) {
  UnknownFieldSet fields;
  std::vector<std::string> out;
  if (!fields.ParseFromString(message)) return out;
  for (int i = 0; i < fields.field_count(); ++i) {
    const UnknownField& f = fields.field(i);
    if (f.number() == number && f.type() == UnknownField::TYPE_LENGTH_DELIMITED) {
      out.push_back(f.length_delimited());
    }
  }
  return out;
}

class ReflectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    server_ = Server::Start(TestConfig(), &error);
    ASSERT_NE(server_, nullptr) << error;
  }

  // One request on a fresh ServerReflectionInfo stream; the response bytes ("" on failure).
  std::string Ask(int field, const std::string& value) {
    std::shared_ptr<grpc::Channel> channel = server_->InProcessChannel();
    grpc::ClientContext context;
    SetDeadline(&context);
    // What generated stubs call for a bidi stream; ByteBuffer needs no message type.
    const grpc::internal::RpcMethod method(kReflectionMethod,
                                           grpc::internal::RpcMethod::BIDI_STREAMING);
    std::unique_ptr<grpc::ClientReaderWriter<grpc::ByteBuffer, grpc::ByteBuffer>> stream(
        grpc::internal::ClientReaderWriterFactory<grpc::ByteBuffer, grpc::ByteBuffer>::Create(
            channel.get(), method, &context));
    UnknownFieldSet request;
    request.AddLengthDelimited(field, value);
    std::string bytes;
    request.SerializeToString(&bytes);
    EXPECT_TRUE(stream->Write(ToBuffer(bytes)));
    stream->WritesDone();
    grpc::ByteBuffer response;
    std::string out;
    if (stream->Read(&response)) out = FromBuffer(response);
    while (stream->Read(&response)) {
    }
    const grpc::Status status = stream->Finish();
    EXPECT_TRUE(status.ok()) << status.error_message();
    return out;
  }

  std::unique_ptr<Server> server_;
};

TEST_F(ReflectionTest, ListsSimulationServiceHealthAndReflection) {
  const std::string response = Ask(kRequestListServices, "");
  EXPECT_TRUE(Field(response, kResponseError).empty());
  const std::vector<std::string> lists = Field(response, kResponseListServices);
  ASSERT_EQ(lists.size(), 1U) << "no ListServiceResponse";
  std::vector<std::string> names;
  for (const std::string& service : Field(lists[0], kListedService)) {
    for (const std::string& name : Field(service, kServiceName)) names.push_back(name);
  }
  EXPECT_THAT(names, Contains("tether.v1.SimulationService"));
  EXPECT_THAT(names, Contains("grpc.health.v1.Health"));
  EXPECT_THAT(names, Contains("grpc.reflection.v1alpha.ServerReflection"));
}

TEST_F(ReflectionTest, SimulationServiceFileResolvesWithItsDependencies) {
  const std::string response = Ask(kRequestFileContainingSymbol, "tether.v1.SimulationService");
  EXPECT_TRUE(Field(response, kResponseError).empty());
  const std::vector<std::string> answers = Field(response, kResponseFileDescriptor);
  ASSERT_EQ(answers.size(), 1U) << "no FileDescriptorResponse";
  // The server sends the file and its transitive imports; the well-known types it imports come
  // from the generated pool, the rest must be in the response for BuildFile to succeed.
  std::vector<google::protobuf::FileDescriptorProto> files;
  for (const std::string& bytes : Field(answers[0], kFileDescriptorProtoBytes)) {
    files.emplace_back();
    ASSERT_TRUE(files.back().ParseFromString(bytes));
  }
  google::protobuf::DescriptorPool pool;
  // Imports first: keep building until every file resolved or no progress is made.
  std::vector<bool> built(files.size(), false);
  for (bool progress = true; progress;) {
    progress = false;
    for (std::size_t i = 0; i < files.size(); ++i) {
      if (built[i]) continue;
      bool ready = true;
      for (const std::string& dep : files[i].dependency()) {
        ready = ready && pool.FindFileByName(dep) != nullptr;
        if (pool.FindFileByName(dep) == nullptr &&
            google::protobuf::DescriptorPool::generated_pool()->FindFileByName(dep) != nullptr) {
          google::protobuf::FileDescriptorProto wkt;
          google::protobuf::DescriptorPool::generated_pool()->FindFileByName(dep)->CopyTo(&wkt);
          ready = pool.BuildFile(wkt) != nullptr;
        }
      }
      if (ready && pool.BuildFile(files[i]) != nullptr) built[i] = progress = true;
    }
  }
  const google::protobuf::ServiceDescriptor* service =
      pool.FindServiceByName("tether.v1.SimulationService");
  ASSERT_NE(service, nullptr) << "tether.v1.SimulationService did not resolve from "
                              << files.size() << " file(s)";
  EXPECT_EQ(service->file()->name(), "tether/v1/simulation_service.proto");
  EXPECT_NE(service->FindMethodByName("StreamStates"), nullptr);
  EXPECT_NE(service->FindMethodByName("CreateSession"), nullptr);
}

TEST_F(ReflectionTest, UnknownSymbolIsAnError) {
  const std::string response = Ask(kRequestFileContainingSymbol, "tether.v1.NoSuchService");
  EXPECT_EQ(Field(response, kResponseError).size(), 1U);
}

}  // namespace
}  // namespace tether::server::testing
