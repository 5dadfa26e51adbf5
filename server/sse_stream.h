// The server-sent-events face of a state stream: a StreamDriver (stream_driver.h: one write in
// flight and at most one frame computed ahead) whose writes go to a libmicrohttpd response of
// unknown length (chunked), as the events of http_transcoding.h.
//
// Back-pressure: libmicrohttpd calls Read only when the connection's write buffer has room.
// Read copies the pending event; once all of it is in the buffer, the write counts as accepted
// (Written) and the driver computes the next frame while the connection is suspended (a
// connection with nothing to send must be suspended: returning 0 otherwise makes
// libmicrohttpd's thread spin). Send resumes it. So a browser that does not read holds one
// event and the connection's buffer, and stalls only its own run.
//
// A suspended connection does not notice its client leaving: libmicrohttpd does not look at
// its socket. WatchClient (called every kClientCheckPeriod by the listener) does, and ends the
// stream as a cancellation once the client closed it, whether the driver computes a frame,
// waits for samples, or waits for libmicrohttpd's thread to write. KeepAlive (every
// kKeepAlivePeriod) writes a comment line to an idle stream, which keeps proxies from closing
// it.
//
// Lifetime: two holders, the driver (until it closes the call) and libmicrohttpd (until it
// releases the response: Detached); the last to let go deletes the object, after `on_release`.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>

#include <sys/types.h>

#include "stream_driver.h"

struct MHD_Connection;

namespace tether::server {

// How often an idle stream gets a keep-alive comment.
inline constexpr std::chrono::seconds kKeepAlivePeriod{15};
// How often a stream's socket is looked at for a client gone: the delay before a closed
// connection frees its place under the stream limits (and its session), against one
// non-blocking peek per stream per period.
inline constexpr std::chrono::milliseconds kClientCheckPeriod{250};

class SseStream final : public StreamDriver {
 public:
  // `on_release` runs once, just before the object deletes itself (the listener forgets it).
  SseStream(WorkerPool* pool, StreamCounters* counters, std::unique_ptr<RunSource> source,
            Settings settings, RpcLog log, std::function<void(StreamDriver*)> on_done,
            MHD_Connection* connection, std::function<void(SseStream*)> on_release);

  // libmicrohttpd's content reader (its thread): at most `max` bytes of the pending events into
  // `buffer`; 0 after suspending the connection when nothing is pending; the end-of-stream
  // marker once the call was closed and everything sent.
  ssize_t Read(char* buffer, std::size_t max);
  // libmicrohttpd released the response: the stream ended or the client went away.
  void Detached();
  // Peeks at the connection's socket: a client that closed it (end of file, or an error)
  // cancels the stream and fails the write in flight. Pipelined bytes count as a client still
  // there.
  void WatchClient();
  // Writes a keep-alive comment if the stream is idle (suspended with nothing pending).
  void KeepAlive();
  // The listener stops: a suspended connection is resumed and its next read with nothing
  // pending ends it with an error (libmicrohttpd may not stop with suspended connections).
  void Abandon();

 private:
  void Send(const v1::StateChunk* chunk) override;
  void Close(const grpc::Status& status) override;
  // Caller holds mutex_: lets libmicrohttpd write what is pending.
  void ResumeLocked();
  // Deletes the object (after Release and on_release_).
  void Destroy();

  WorkerPool* pool_;
  MHD_Connection* connection_;
  std::function<void(SseStream*)> on_release_;

  std::mutex mutex_;
  std::string pending_;          // event bytes not yet handed to libmicrohttpd
  std::size_t offset_ = 0;       // of pending_, already handed over
  bool write_in_flight_ = false;  // pending_ holds the driver's chunk (Written when drained)
  bool suspended_ = false;
  bool closed_ = false;    // the driver closed the call: end after pending_
  bool detached_ = false;  // libmicrohttpd released the response
  bool abandoned_ = false;
  bool client_gone_ = false;  // WatchClient saw the connection closed
  int holders_ = 2;        // the driver and libmicrohttpd
};

}  // namespace tether::server
