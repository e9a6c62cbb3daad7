#include <cmath>
#include <algorithm>
#include <cstring>
#include <iterator>

#include <gtest/gtest.h>

#include "../src/core/causal_mask.h"
#include "../src/core/fp16.h"
#include "../src/core/logits_reader.h"
#include "../src/core/native_error.h"

using namespace statefulchat;

TEST(CausalMask, Fp32RowsSeeTheirPrefix) {
  const auto bytes = BuildCausalMask(3, 2, DType::kFloat32);  // q=2, end=5
  ASSERT_EQ(bytes.size(), 2u * 5u * 4u);
  std::vector<float> values(10);
  std::memcpy(values.data(), bytes.data(), bytes.size());
  for (int row = 0; row < 2; ++row) {
    for (int key = 0; key < 5; ++key) {
      const float value = values[static_cast<size_t>(row * 5 + key)];
      if (key <= 3 + row) EXPECT_EQ(value, 0.0f) << row << "," << key;
      else EXPECT_TRUE(std::isinf(value) && value < 0) << row << "," << key;
    }
  }
}

TEST(CausalMask, Fp16UsesNegativeInfinity) {
  const auto bytes = BuildCausalMask(0, 3, DType::kFloat16);
  std::vector<uint16_t> values(9);
  std::memcpy(values.data(), bytes.data(), bytes.size());
  EXPECT_EQ(values[0], kHalfZero);
  EXPECT_EQ(values[1], kHalfNegativeInfinity);
  EXPECT_EQ(values[8], kHalfZero);
  EXPECT_EQ(values[5], kHalfNegativeInfinity);
}

TEST(CausalMask, RejectsOtherTypes) {
  EXPECT_THROW(BuildCausalMask(0, 1, DType::kInt32), NativeError);
  EXPECT_THROW(BuildCausalMask(0, 0, DType::kFloat16), NativeError);
}

TEST(LogitsReader, ReadsLastRowThroughPaddedStrides) {
  // [1, 2, 3] with rows padded to 4 elements.
  const float data[] = {1, 2, 3, -1, 7, 9, 8, -1};
  StridedView view{data, DType::kFloat32, {1, 2, 3}, {8, 4, 1}};
  EXPECT_EQ(ReadLogitsRow(view, 1), (std::vector<float>{7, 9, 8}));
  EXPECT_EQ(ReadLogitsRow(view, 0), (std::vector<float>{1, 2, 3}));
}

TEST(LogitsReader, ReadsFp16AndNonUnitVocabStride) {
  uint16_t data[6];
  const float values[] = {0.5f, 9.0f, -2.0f, 4.0f, 1.0f, 3.0f};
  for (int i = 0; i < 6; ++i) data[i] = FloatToHalf(values[i]);
  // [1, 3] stored column-major-ish: vocab stride 2.
  StridedView view{data, DType::kFloat16, {1, 3}, {1, 2}};
  EXPECT_EQ(ReadLogitsRow(view, 0), (std::vector<float>{0.5f, -2.0f, 1.0f}));
}

TEST(LogitsReader, SingleRowOutputServesAnyQuery) {
  const float data[] = {1, 5, 2};
  StridedView view{data, DType::kFloat32, {1, 1, 3}, {3, 3, 1}};
  EXPECT_EQ(ReadLogitsRow(view, 7), (std::vector<float>{1, 5, 2}));
}

TEST(LogitsReader, RejectsBatchAndIntegerOutputs) {
  const float data[] = {1, 2, 3, 4};
  StridedView batch{data, DType::kFloat32, {2, 1, 2}, {2, 2, 1}};
  EXPECT_THROW(ReadLogitsRow(batch, 0), NativeError);
  StridedView ints{data, DType::kInt32, {1, 4}, {4, 1}};
  EXPECT_THROW(ReadLogitsRow(ints, 0), NativeError);
}

#include "../src/core/strided_copy.h"

TEST(StridedCopy, HonoursDestinationStrides) {
  const int32_t source[] = {1, 2, 3, 4, 5, 6};  // [2, 3]
  int32_t padded[10];
  std::fill(std::begin(padded), std::end(padded), -1);
  CopyIntoStrided(padded, 5, 1, source, 2, 3, sizeof(int32_t));
  EXPECT_EQ(padded[0], 1);
  EXPECT_EQ(padded[2], 3);
  EXPECT_EQ(padded[3], -1);
  EXPECT_EQ(padded[5], 4);
  int32_t transposed[6];
  CopyIntoStrided(transposed, 1, 2, source, 2, 3, sizeof(int32_t));  // column-major
  EXPECT_EQ(transposed[0], 1);
  EXPECT_EQ(transposed[1], 4);
  EXPECT_EQ(transposed[2], 2);
}
