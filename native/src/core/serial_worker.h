// One thread per session that runs that session's calls one at a time, and refuses a
// call while another is queued or running: the native half of invariant 4 ("at most one
// operation touches a session's state"), whatever the JS side does.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace statefulchat {

class SerialWorker {
 public:
  SerialWorker();
  ~SerialWorker();  // finishes the running task, then joins
  SerialWorker(const SerialWorker&) = delete;
  SerialWorker& operator=(const SerialWorker&) = delete;

  // Runs `work` then `done` on the worker thread. The worker counts as idle again
  // before `done` runs, so a caller notified by `done` may submit at once. Returns false,
  // without running anything, when a task is already queued or running or after Stop().
  bool TrySubmit(std::function<void()> work, std::function<void()> done);

  // Queues `task` after whatever is running (never refused unless stopped) and stops
  // accepting work; used to release a state on dispose.
  bool SubmitFinal(std::function<void()> task);

  bool Busy() const;

 private:
  void Run();

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  bool busy_ = false;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace statefulchat
