#include "worker_pool.h"

#include <utility>

namespace tether::server {

WorkerPool::WorkerPool(std::size_t threads) {
  threads_.reserve(threads);
  for (std::size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { Run(); });
}

WorkerPool::~WorkerPool() { Stop(); }

void WorkerPool::Post(Task task) { PostAt(Clock::now(), std::move(task)); }

void WorkerPool::PostAt(Clock::time_point due, Task task) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    queue_.push(Entry{due, next_sequence_++, std::move(task)});
  }
  wake_.notify_one();
}

void WorkerPool::Stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && threads_.empty()) return;
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
  threads_.clear();
}

std::size_t WorkerPool::busy() const {
  std::lock_guard lock(mutex_);
  return busy_;
}

std::size_t WorkerPool::queued() const {
  std::lock_guard lock(mutex_);
  return queue_.size();
}

void WorkerPool::Run() {
  std::unique_lock lock(mutex_);
  while (true) {
    if (queue_.empty()) {
      if (stopping_) return;
      wake_.wait(lock);
      continue;
    }
    const Clock::time_point due = queue_.top().due;
    if (due > Clock::now()) {
      // A stopping pool drops delayed tasks: their streams are being cancelled anyway.
      if (stopping_) return;
      wake_.wait_until(lock, due);
      continue;
    }
    Task task = std::move(const_cast<Entry&>(queue_.top()).task);
    queue_.pop();
    ++busy_;
    lock.unlock();
    task();
    lock.lock();
    --busy_;
  }
}

}  // namespace tether::server
