// The HTTP/JSON face of the proto messages, following Google's HTTP/JSON transcoding
// (google/api/http.proto, AIP-127): bodies and responses are the messages' proto3 JSON
// (protobuf's own printer and parser, lowerCamelCase names, either name accepted on input),
// query parameters bind to the request's non-body fields, errors are google.rpc.Status JSON
// with the gRPC code mapped to an HTTP status as google/rpc/code.proto documents.
//
// Server-sent events (the text/event-stream of StreamStates and Simulate): one message per
// StateChunk, named after the chunk's member, `data:` its proto JSON on one line:
//   event: header            event: frame                 event: summary
//   data: {StreamHeader}     id: N                        data: {StreamSummary}
//                            data: {Frame}
// where N = first_sample_index + number of samples of the frame: the index of the next sample,
// so that a reconnect with `Last-Event-ID: N` (EventSource does this by itself) resumes with
// sample N, no gap and no duplicate. A stream that ends with a non-OK status sends
// `event: error` with the google.rpc.Status JSON last (after the summary, if any, as gRPC
// sends its trailers after the last message), then closes.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <google/protobuf/message.h>
#include <grpcpp/support/status.h>

#include "tether/v1/simulation_service.pb.h"

namespace tether::server {

// The HTTP status of a gRPC code: OK 200, INVALID_ARGUMENT / FAILED_PRECONDITION /
// OUT_OF_RANGE 400, UNAUTHENTICATED 401, PERMISSION_DENIED 403, NOT_FOUND 404,
// ALREADY_EXISTS / ABORTED 409, RESOURCE_EXHAUSTED 429, CANCELLED 499, UNIMPLEMENTED 501,
// UNAVAILABLE 503, DEADLINE_EXCEEDED 504, the rest 500.
unsigned HttpStatusOf(grpc::StatusCode code);

// google.rpc.Status of `status` as JSON: the code, the message and the details (BadRequest,
// ErrorInfo, RequestInfo as "@type"d objects) exactly as the gRPC trailers carry them.
std::string StatusJson(const grpc::Status& status);

// `message` as proto3 JSON on one line (default options: lowerCamelCase, defaults omitted).
std::string ToJson(const google::protobuf::Message& message);

// Parses a request body into `message` (empty = every field default); INVALID_ARGUMENT with a
// violation on "body" naming the parser's complaint (an unknown field, a wrong type).
grpc::Status ParseBody(std::string_view body, google::protobuf::Message* message);

// Binds query parameters (or a path's variables: `where` = "path") to `message`'s fields: a
// parameter names a field by its proto or JSON name, a dotted path for a field of a nested
// message; a repeated field takes the parameter once per value; a value is parsed as the
// field's type (a number, true/false, an enum's name or number). INVALID_ARGUMENT naming every
// parameter that fits no field or whose value does not parse, as `where`.NAME; maps and
// message-typed leaves cannot be bound (transcoding's rule).
grpc::Status BindQuery(const std::vector<std::pair<std::string, std::string>>& parameters,
                       google::protobuf::Message* message, std::string_view where = "query");

// The server-sent event of one chunk (above), ending with the blank line.
std::string SseEvent(const v1::StateChunk& chunk);
// The closing `event: error` of a non-OK end.
std::string SseErrorEvent(const grpc::Status& status);
// The comment line that keeps an idle stream open through proxies, and finds dead clients.
inline constexpr std::string_view kSseKeepAlive = ": keep-alive\n\n";

}  // namespace tether::server
