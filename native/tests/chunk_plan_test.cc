#include <gtest/gtest.h>

#include "../src/core/capacity_guard.h"
#include "../src/core/chunk_plan.h"
#include "../src/core/native_error.h"

using namespace statefulchat;

namespace {
QueryLengths Range(int64_t min, int64_t max) {
  QueryLengths lengths;
  lengths.isRange = true;
  lengths.min = min;
  lengths.max = max;
  return lengths;
}
QueryLengths Allowed(std::vector<int64_t> allowed) {
  QueryLengths lengths;
  lengths.isRange = false;
  lengths.allowed = std::move(allowed);
  return lengths;
}
}  // namespace

TEST(CapacityGuard, RefusesPastCapacity) {
  EXPECT_NO_THROW(EnsureCapacity(500, 12, 512));
  try {
    EnsureCapacity(500, 13, 512);
    FAIL();
  } catch (const CapacityError& error) {
    EXPECT_EQ(error.position(), 500);
    EXPECT_EQ(error.requested(), 13);
    EXPECT_EQ(error.capacity(), 512);
    EXPECT_EQ(error.code(), ErrorCode::kCapacityExceeded);
  }
}

TEST(ChunkPlan, RangeModelsSplitAtThePreferredChunk) {
  const auto chunks = PlanChunks(300, 0, 2048, Range(1, 2048), 128);
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[0].tokens, 128);
  EXPECT_EQ(chunks[2].tokens, 44);
  EXPECT_EQ(chunks[2].queryLength, 44);
}

TEST(ChunkPlan, EnumeratedModelsUseLargestFitThenOneOverlappingChunk) {
  const auto chunks = PlanChunks(70, 0, 512, Allowed({1, 64}), 128);
  ASSERT_EQ(chunks.size(), 2u);  // 64, then the 6-token tail inside one overlapping 64
  EXPECT_EQ(chunks[0].queryLength, 64);
  EXPECT_EQ(chunks[1].queryLength, 64);
  EXPECT_EQ(chunks[1].overlap, 58);
  // Without enough history the tail goes token by token; a decode step is q = 1.
  EXPECT_EQ(PlanChunks(6, 10, 512, Allowed({1, 64}), 128).size(), 6u);
  EXPECT_EQ(PlanChunks(1, 300, 512, Allowed({1, 64}), 128)[0].queryLength, 1);
}

TEST(ChunkPlan, FixedShapeOverlapsTheTailWhenTheCacheHoldsEnough) {
  // 64 + 6: the second chunk re-feeds the 58 tokens before it so its last row is real.
  const auto chunks = PlanChunks(70, 0, 512, Allowed({64}), 128);
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(chunks[1].tokens, 6);
  EXPECT_EQ(chunks[1].queryLength, 64);
  EXPECT_EQ(chunks[1].overlap, 58);
  EXPECT_EQ(chunks[1].Padding(), 0);
  // A single decode step on a model without q=1 is an overlapping chunk too.
  const auto step = PlanChunks(1, 300, 512, Allowed({16}), 128);
  ASSERT_EQ(step.size(), 1u);
  EXPECT_EQ(step[0].overlap, 15);
  // Overlap writes nothing new past the position, so it fits even at the very end.
  EXPECT_EQ(PlanChunks(6, 500, 512, Allowed({64}), 128)[0].overlap, 58);
}

TEST(ChunkPlan, FixedShapePadsOnlyWithoutHistory) {
  const auto chunks = PlanChunks(6, 0, 512, Allowed({64}), 128);
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0].overlap, 0);
  EXPECT_EQ(chunks[0].Padding(), 58);
}

TEST(ChunkPlan, PaddingMustFitCapacityToo) {
  EXPECT_THROW(PlanChunks(6, 0, 40, Allowed({64}), 128), CapacityError);
  EXPECT_THROW(PlanChunks(20, 500, 512, Range(1, 512), 128), CapacityError);
}
