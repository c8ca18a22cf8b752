// Tests of projected_capacity.h: the bounds of one step, and whole streams
// (one kind in a block, two blocks far apart, kinds interleaved, item sizes
// that change) appended item by item, counting the elements a vector would
// move, against std::vector's doubling.
#include "model/projected_capacity.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace kubeon::model {
namespace {

TEST(ProjectedCapacity, DoublesWhenTheLengthIsUnknown) {
  EXPECT_EQ(ProjectedCapacity(0, {}), 1u);
  EXPECT_EQ(ProjectedCapacity(5, {0, 100, 0}), 10u);
  EXPECT_EQ(ProjectedCapacity(5, {100, 100, 1000}), 10u);  // an empty span
  EXPECT_EQ(ProjectedCapacity(5, {0, 2000, 1000}), 10u);   // a span past the end: the hint was wrong
}

TEST(ProjectedCapacity, ProjectsTheDensitySeenSoFar) {
  // 100 items (99 held + the one being added) in the first 1,000 of 10,000
  // bytes: 1,000 in all, plus 1/16.
  EXPECT_EQ(ProjectedCapacity(99, {0, 1000, 10000}), 1062u);
  // The same from a later first item: 100 items in 1,000 of the 5,000 bytes
  // from the first one.
  EXPECT_EQ(ProjectedCapacity(99, {5000, 6000, 10000}), 531u);
}

TEST(ProjectedCapacity, GrowsAtLeastByHalfAndAtMostSixteenfold) {
  // The stream is nearly over: still room for half as many again.
  EXPECT_EQ(ProjectedCapacity(1000, {0, 9999, 10000}), 1501u);
  // A dense start in a long stream: no more than 16x at once.
  EXPECT_EQ(ProjectedCapacity(10, {0, 110, 1u << 30}), 176u);
  EXPECT_EQ(ProjectedCapacity(0, {0, 100, 1u << 30}), 16u);
  // Stream lengths whose product with the count overflows 64 bits.
  EXPECT_EQ(ProjectedCapacity(size_t{1} << 40, {0, size_t{1} << 50, size_t{1} << 62}), size_t{1} << 44 | 16);
}

struct Growth {
  size_t moved = 0;     // elements moved into a larger block, in all
  size_t capacity = 0;  // at the end
};

// Appends items of one kind whose [start, end) spans are `items`, growing
// like the snapshot reader (total 0: like std::vector).
Growth Append(const std::vector<std::pair<size_t, size_t>>& items, size_t total) {
  Growth g;
  size_t size = 0;
  for (const auto& [start, end] : items) {
    if (size == g.capacity) {
      const size_t next = ProjectedCapacity(size, {items.front().first, end, total});
      EXPECT_GT(next, size);
      g.moved += size;
      g.capacity = next;
    }
    ++size;
  }
  return g;
}

TEST(ProjectedCapacity, OneBlockOfOneKindMovesFewElements) {
  // 1 MB of other items, then 60,000 items of 2,300 to 2,500 bytes, then 2 MB more.
  std::mt19937 rng(3);
  std::vector<std::pair<size_t, size_t>> items;
  size_t at = 1 << 20;
  for (int i = 0; i < 60000; ++i) {
    const size_t len = 2300 + rng() % 200;
    items.emplace_back(at, at + len);
    at += len;
  }
  const size_t total = at + (2 << 20);
  const Growth projected = Append(items, total);
  const Growth doubled = Append(items, 0);
  EXPECT_GE(projected.capacity, items.size());
  EXPECT_LE(projected.capacity, items.size() + items.size() / 10);  // 1/16 of slack, and the noise
  EXPECT_LT(projected.moved, items.size() / 10);
  EXPECT_GE(doubled.moved, items.size() / 2);  // what it replaces: doubling moves ~ every element once
}

TEST(ProjectedCapacity, KindsInterleavedOrInTwoBlocksStayAmortised) {
  std::mt19937 rng(11);
  // Two blocks of 20,000 small items, 100 MB apart: the first block projects
  // too few, the gap too many; every element is still moved at most ~3 times.
  std::vector<std::pair<size_t, size_t>> blocks;
  size_t at = 0;
  for (int b = 0; b < 2; ++b) {
    for (int i = 0; i < 20000; ++i) {
      const size_t len = 100 + rng() % 900;
      blocks.emplace_back(at, at + len);
      at += len;
    }
    at += 100 << 20;
  }
  Growth g = Append(blocks, at);
  EXPECT_GE(g.capacity, blocks.size());
  EXPECT_LE(g.moved, 3 * blocks.size());
  // One kind in every third item, the others' bytes between: the density
  // holds, so the projection is close.
  std::vector<std::pair<size_t, size_t>> every_third;
  at = 0;
  for (int i = 0; i < 90000; ++i) {
    const size_t len = 500 + rng() % 500;
    if (i % 3 == 0) every_third.emplace_back(at, at + len);
    at += len;
  }
  g = Append(every_third, at);
  EXPECT_GE(g.capacity, every_third.size());
  EXPECT_LE(g.capacity, every_third.size() + every_third.size() / 8);
  EXPECT_LT(g.moved, every_third.size() / 4);  // the 16x steps up to the projection
  // Items that get 10x larger halfway: the projection overshoots, which costs
  // address space only, and never more than 16x the size at a step.
  std::vector<std::pair<size_t, size_t>> growing;
  at = 0;
  for (int i = 0; i < 20000; ++i) {
    const size_t len = i < 10000 ? 100 : 1000;
    growing.emplace_back(at, at + len);
    at += len;
  }
  g = Append(growing, at);
  EXPECT_GE(g.capacity, growing.size());
  EXPECT_LE(g.capacity, 16 * growing.size());
  EXPECT_LT(g.moved, growing.size());
}

}  // namespace
}  // namespace kubeon::model
