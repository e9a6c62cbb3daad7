#include "serial_worker.h"

namespace statefulchat {

SerialWorker::SerialWorker() : thread_([this] { Run(); }) {}

SerialWorker::~SerialWorker() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool SerialWorker::TrySubmit(std::function<void()> work, std::function<void()> done) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (busy_ || stopping_) return false;
    busy_ = true;
    queue_.push_back([this, work = std::move(work), done = std::move(done)] {
      work();
      {
        std::lock_guard<std::mutex> idle(mutex_);
        busy_ = false;
      }
      done();
    });
  }
  wake_.notify_one();
  return true;
}

bool SerialWorker::SubmitFinal(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return false;
    stopping_ = true;
    busy_ = true;
    queue_.push_back(std::move(task));
  }
  wake_.notify_one();
  return true;
}

bool SerialWorker::Busy() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return busy_;
}

void SerialWorker::Run() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return !queue_.empty() || stopping_; });
      if (queue_.empty()) return;  // stopping and drained
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

}  // namespace statefulchat
