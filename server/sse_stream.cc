#include "sse_stream.h"

#include <microhttpd.h>
#include <sys/socket.h>

#include <cerrno>

#include <algorithm>
#include <cstring>
#include <utility>

#include "http_transcoding.h"

namespace tether::server {

SseStream::SseStream(WorkerPool* pool, StreamCounters* counters,
                     std::unique_ptr<RunSource> source, Settings settings, RpcLog log,
                     std::function<void(StreamDriver*)> on_done, MHD_Connection* connection,
                     std::function<void(SseStream*)> on_release)
    : StreamDriver(pool, counters, std::move(source), settings, std::move(log), std::move(on_done)),
      pool_(pool),
      connection_(connection),
      on_release_(std::move(on_release)) {}

void SseStream::ResumeLocked() {
  if (!suspended_ || detached_) return;
  suspended_ = false;
  MHD_resume_connection(connection_);
}

ssize_t SseStream::Read(char* buffer, std::size_t max) {
  bool written = false;
  ssize_t count = 0;
  {
    std::lock_guard lock(mutex_);
    if (offset_ < pending_.size()) {
      const std::size_t n = std::min(max, pending_.size() - offset_);
      std::memcpy(buffer, pending_.data() + offset_, n);
      offset_ += n;
      if (offset_ == pending_.size()) {
        pending_.clear();
        offset_ = 0;
        written = write_in_flight_;
        write_in_flight_ = false;
      }
      count = static_cast<ssize_t>(n);
    } else if (closed_) {
      return MHD_CONTENT_READER_END_OF_STREAM;
    } else if (abandoned_) {
      return MHD_CONTENT_READER_END_WITH_ERROR;
    } else {
      // Suspended under the lock, so that a Send cannot resume it before it is suspended.
      suspended_ = true;
      MHD_suspend_connection(connection_);
      return 0;
    }
  }
  // Outside the lock: the driver may Send (or Close) from here at once.
  if (written) Written(true);
  return count;
}

void SseStream::Send(const v1::StateChunk* chunk) {
  std::lock_guard lock(mutex_);
  if (detached_ || client_gone_) {
    // The client left after the driver's last look; report it as a failed write, from the pool
    // (the driver must not be re-entered from its own Send).
    pool_->Post([this] { Written(false); });
    return;
  }
  pending_ += SseEvent(*chunk);
  write_in_flight_ = true;
  ResumeLocked();
}

void SseStream::Close(const grpc::Status& status) {
  bool last = false;
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    if (!detached_) {
      if (!status.ok()) pending_ += SseErrorEvent(status);
      ResumeLocked();
    }
    last = --holders_ == 0;
  }
  // The driver's End called this as its last act; finish the object from the pool.
  if (last) pool_->Post([this] { Destroy(); });
}

void SseStream::Detached() {
  bool in_flight = false;
  bool closed = false;
  {
    std::lock_guard lock(mutex_);
    detached_ = true;
    in_flight = write_in_flight_;
    write_in_flight_ = false;
    closed = closed_;
  }
  // libmicrohttpd's hold keeps the object alive through these calls.
  if (!closed) {
    // The client is gone: a run computing the next frame, also one computed ahead of a write
    // in flight, stops at its next step (it polls this flag), not at its next sample.
    Cancelled();
    if (in_flight) Written(false);  // with a chunk unsent
  }
  bool last = false;
  {
    std::lock_guard lock(mutex_);
    last = --holders_ == 0;
  }
  if (last) Destroy();
}

namespace {

// Whether the peer closed `connection`'s socket: end of file or an error on a peek that neither
// blocks nor takes a byte.
bool ClientClosed(MHD_Connection* connection) {
  const MHD_ConnectionInfo* info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  if (info == nullptr) return false;
  char byte = 0;
  const ssize_t n = ::recv(info->connect_fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

}  // namespace

void SseStream::WatchClient() {
  bool in_flight = false;
  {
    // Under the lock, Detached has not run: libmicrohttpd closes the socket only after it
    // released the response, so the descriptor is still the connection's.
    std::lock_guard lock(mutex_);
    if (detached_ || closed_ || client_gone_) return;
    if (!ClientClosed(connection_)) return;
    client_gone_ = true;
    // What is pending cannot reach the client: its write fails now, not once libmicrohttpd's
    // thread gets to the connection (it may be busy with another call for a while).
    in_flight = std::exchange(write_in_flight_, false);
    pending_.clear();
    offset_ = 0;
  }
  Cancelled();
  if (in_flight) Written(false);
}

void SseStream::KeepAlive() {
  std::lock_guard lock(mutex_);
  if (detached_ || closed_ || !suspended_ || !pending_.empty()) return;
  pending_ = std::string(kSseKeepAlive);
  ResumeLocked();
}

void SseStream::Abandon() {
  std::lock_guard lock(mutex_);
  abandoned_ = true;
  ResumeLocked();
}

void SseStream::Destroy() {
  Release();
  if (on_release_) on_release_(this);
  delete this;
}

}  // namespace tether::server
