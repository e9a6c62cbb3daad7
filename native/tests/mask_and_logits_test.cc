#include <cmath>
#include <algorithm>
#include <cstring>
#include <iterator>
#include <limits>

#include <gtest/gtest.h>

#include "../src/core/causal_mask.h"
#include "../src/core/fp16.h"
#include "../src/core/logits_reader.h"
#include "../src/core/native_error.h"

using namespace statefulchat;

TEST(CausalMask, Fp32RowsSeeTheirPrefix) {
  const auto bytes = BuildCausalMask(3, 2, 5, DType::kFloat32);  // q=2, end=5
  ASSERT_EQ(bytes.size(), 2u * 5u * 4u);
  std::vector<float> values(10);
  std::memcpy(values.data(), bytes.data(), bytes.size());
  for (int row = 0; row < 2; ++row) {
    for (int key = 0; key < 5; ++key) {
      const float value = values[static_cast<size_t>(row * 5 + key)];
      if (key <= 3 + row) EXPECT_EQ(value, 0.0f) << row << "," << key;
      else EXPECT_EQ(value, -65504.0f) << row << "," << key;
    }
  }
}

// Item 8 of issue 9, decided: masked entries are -65504 (fp16's most negative finite
// value, what the public runtimes send), never -inf.
TEST(CausalMask, Fp16UsesTheMostNegativeFiniteHalf) {
  const auto bytes = BuildCausalMask(0, 3, 3, DType::kFloat16);
  std::vector<uint16_t> values(9);
  std::memcpy(values.data(), bytes.data(), bytes.size());
  EXPECT_EQ(values[0], kHalfZero);
  EXPECT_EQ(values[1], 0xFBFF);  // -65504
  EXPECT_EQ(HalfToFloat(values[5]), -65504.0f);
  EXPECT_EQ(values[8], kHalfZero);
  for (uint16_t value : values) EXPECT_TRUE(std::isfinite(HalfToFloat(value)));
}

// Why the finite value is safe and -inf is not: an additive mask gives masked keys
// exactly zero softmax weight, and stays finite through the scaling and subtraction an
// attention kernel may apply, where -inf yields NaN (-inf * 0, -inf - -inf).
TEST(CausalMask, MaskedKeysGetZeroWeightAndNoNaN) {
  const auto bytes = BuildCausalMask(1, 1, 4, DType::kFloat16);  // row sees keys 0..1
  std::vector<uint16_t> half(4);
  std::memcpy(half.data(), bytes.data(), bytes.size());
  const float scores[] = {3.5f, -2.0f, 60.0f, 1000.0f};  // large scores on masked keys
  float biased[4];
  float maxValue = -std::numeric_limits<float>::infinity();
  for (int key = 0; key < 4; ++key) {
    biased[key] = scores[key] + HalfToFloat(half[static_cast<size_t>(key)]);
    maxValue = std::max(maxValue, biased[key]);
  }
  float weights[4];
  float total = 0;
  for (int key = 0; key < 4; ++key) total += weights[key] = std::exp(biased[key] - maxValue);
  EXPECT_EQ(weights[2], 0.0f);
  EXPECT_EQ(weights[3], 0.0f);
  EXPECT_NEAR(weights[0] / total, 1.0f / (1.0f + std::exp(-5.5f)), 1e-6);
  for (int key = 0; key < 4; ++key) {
    const float mask = HalfToFloat(half[static_cast<size_t>(key)]);
    EXPECT_FALSE(std::isnan(mask * 0.0f));
    EXPECT_FALSE(std::isnan(mask - mask));
  }
}

TEST(CausalMask, RejectsOtherTypes) {
  EXPECT_THROW(BuildCausalMask(0, 1, 1, DType::kInt32), NativeError);
  EXPECT_THROW(BuildCausalMask(0, 0, 0, DType::kFloat16), NativeError);
  EXPECT_THROW(BuildCausalMask(4, 2, 5, DType::kFloat16), NativeError);  // narrower than end
}

TEST(CausalMask, FixedWidthMasksHideEverythingPastEachRow) {
  const auto bytes = BuildCausalMask(2, 2, 6, DType::kFloat32);  // q=2 at 2, cache of 6
  std::vector<float> values(12);
  std::memcpy(values.data(), bytes.data(), bytes.size());
  for (int row = 0; row < 2; ++row) {
    for (int key = 0; key < 6; ++key) {
      EXPECT_EQ(values[static_cast<size_t>(row * 6 + key)] == 0.0f, key <= 2 + row) << row << "," << key;
    }
  }
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
