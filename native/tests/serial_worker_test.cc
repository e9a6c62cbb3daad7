#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include <gtest/gtest.h>

#include "../src/core/serial_worker.h"

using namespace statefulchat;

TEST(SerialWorker, RunsWorkThenDoneOffTheCallingThread) {
  SerialWorker worker;
  std::promise<std::thread::id> ran;
  std::promise<void> finished;
  ASSERT_TRUE(worker.TrySubmit([&] { ran.set_value(std::this_thread::get_id()); }, [&] { finished.set_value(); }));
  finished.get_future().wait();
  EXPECT_NE(ran.get_future().get(), std::this_thread::get_id());
}

TEST(SerialWorker, RefusesOverlappingCalls) {
  SerialWorker worker;
  std::promise<void> release;
  std::shared_future<void> gate = release.get_future().share();
  std::promise<void> finished;
  ASSERT_TRUE(worker.TrySubmit([gate] { gate.wait(); }, [&] { finished.set_value(); }));
  EXPECT_TRUE(worker.Busy());
  EXPECT_FALSE(worker.TrySubmit([] {}, [] {}));
  release.set_value();
  finished.get_future().wait();
}

TEST(SerialWorker, IdleBeforeDoneSoTheCallerMayChain) {
  SerialWorker worker;
  std::promise<bool> resubmitted;
  std::promise<void> second;
  ASSERT_TRUE(worker.TrySubmit([] {}, [&] {
    resubmitted.set_value(worker.TrySubmit([] {}, [&] { second.set_value(); }));
  }));
  EXPECT_TRUE(resubmitted.get_future().get());
  second.get_future().wait();
}

TEST(SerialWorker, FinalTaskRunsAfterCurrentAndStopsIntake) {
  SerialWorker worker;
  std::atomic<int> order{0};
  int workAt = -1, finalAt = -1;
  std::promise<void> finalDone;
  ASSERT_TRUE(worker.TrySubmit(
      [&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        workAt = order++;
      },
      [] {}));
  ASSERT_TRUE(worker.SubmitFinal([&] {
    finalAt = order++;
    finalDone.set_value();
  }));
  EXPECT_FALSE(worker.TrySubmit([] {}, [] {}));
  finalDone.get_future().wait();
  EXPECT_EQ(workAt, 0);
  EXPECT_EQ(finalAt, 1);
}
