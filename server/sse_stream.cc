#include "sse_stream.h"

#include <microhttpd.h>

#include <algorithm>
#include <cstring>

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
  if (detached_) {
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
    if (in_flight) {
      Written(false);  // the client went away with a chunk unsent
    } else {
      Cancelled();  // the driver is computing or parked: it ends at its next look
    }
  }
  bool last = false;
  {
    std::lock_guard lock(mutex_);
    last = --holders_ == 0;
  }
  if (last) Destroy();
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
