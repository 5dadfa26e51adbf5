// A fixed set of threads that run the simulation work of every call, so that no simulation
// ever runs inside a gRPC reaction. Tasks run in FIFO order of their due time; a task posted
// with a due time (real-time pacing) waits in the queue without holding a thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

namespace tether::server {

class WorkerPool {
 public:
  using Clock = std::chrono::steady_clock;
  using Task = std::function<void()>;

  explicit WorkerPool(std::size_t threads);
  ~WorkerPool();  // Stop()
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Runs `task` on a worker as soon as one is free.
  void Post(Task task);
  // Runs `task` on a worker at `due` or later.
  void PostAt(Clock::time_point due, Task task);
  // Runs the tasks already due, drops the delayed ones, joins the threads. Idempotent.
  void Stop();

  [[nodiscard]] std::size_t busy() const;    // threads running a task now
  [[nodiscard]] std::size_t queued() const;  // tasks waiting
  [[nodiscard]] std::size_t size() const { return threads_.size(); }

 private:
  struct Entry {
    Clock::time_point due;
    std::uint64_t sequence;  // FIFO among equal due times
    Task task;
    bool operator>(const Entry& other) const {
      return due != other.due ? due > other.due : sequence > other.sequence;
    }
  };

  void Run();

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue_;
  std::uint64_t next_sequence_ = 0;
  std::size_t busy_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace tether::server
