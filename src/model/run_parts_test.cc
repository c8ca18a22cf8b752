// Tests of run_parts.h: every part runs once, part 0 on the calling thread
// and the others on threads of their own; exceptions reach the caller.
#include "model/run_parts.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include <gtest/gtest.h>

namespace kubeon::model {
namespace {

TEST(RunParts, EveryPartOnceAndPartZeroHere) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{5}}) {
    std::mutex mu;
    std::multiset<size_t> ran;
    std::set<std::thread::id> threads;
    std::thread::id zero;
    RunParts(n, [&](size_t k) {
      std::lock_guard<std::mutex> lock(mu);
      ran.insert(k);
      threads.insert(std::this_thread::get_id());
      if (k == 0) zero = std::this_thread::get_id();
    });
    std::multiset<size_t> expected;
    for (size_t k = 0; k < n; ++k) expected.insert(k);
    EXPECT_EQ(ran, expected) << n;
    if (n > 0) {
      EXPECT_EQ(zero, std::this_thread::get_id()) << n;
    }
    EXPECT_EQ(threads.size(), n) << n;
  }
}

TEST(RunParts, ExceptionsReachTheCallerAfterEveryPart) {
  std::atomic<int> finished{0};
  EXPECT_THROW(RunParts(3,
                        [&](size_t k) {
                          if (k == 0) throw std::runtime_error("part 0");
                          std::this_thread::sleep_for(std::chrono::milliseconds(20));
                          ++finished;
                        }),
               std::runtime_error);
  EXPECT_EQ(finished.load(), 2);
  try {
    RunParts(3, [&](size_t k) {
      if (k == 2) throw std::runtime_error("part 2");
    });
    ADD_FAILURE() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "part 2");
  }
}

}  // namespace
}  // namespace kubeon::model
