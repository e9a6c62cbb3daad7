#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "../src/core/fp16.h"

using namespace statefulchat;

TEST(Fp16, KnownValuesRoundTrip) {
  EXPECT_EQ(FloatToHalf(0.0f), 0x0000);
  EXPECT_EQ(FloatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(FloatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(FloatToHalf(-2.0f), 0xC000);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7BFF);
  EXPECT_EQ(FloatToHalf(1e6f), 0x7C00);  // overflow -> +inf
  EXPECT_EQ(FloatToHalf(-std::numeric_limits<float>::infinity()), kHalfNegativeInfinity);
  EXPECT_FLOAT_EQ(HalfToFloat(0x3C00), 1.0f);
  EXPECT_FLOAT_EQ(HalfToFloat(0x3555), 0.333251953125f);
  EXPECT_TRUE(std::isinf(HalfToFloat(0xFC00)) && HalfToFloat(0xFC00) < 0);
  EXPECT_TRUE(std::isnan(HalfToFloat(FloatToHalf(std::nanf("")))));
}

TEST(Fp16, SubnormalsAndRounding) {
  EXPECT_EQ(FloatToHalf(5.960464477539063e-08f), 0x0001);  // smallest subnormal
  EXPECT_FLOAT_EQ(HalfToFloat(0x0001), 5.960464477539063e-08f);
  EXPECT_FLOAT_EQ(HalfToFloat(0x03FF), 6.097555160522461e-05f);
  EXPECT_EQ(FloatToHalf(1.0f + 1.0f / 2048.0f), 0x3C00);  // tie -> even
  EXPECT_EQ(FloatToHalf(1.0f + 3.0f / 2048.0f), 0x3C02);  // tie -> even (up)
}

TEST(Fp16, EveryFiniteHalfRoundTripsExactly) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const auto half = static_cast<uint16_t>(bits);
    if (((half >> 10) & 0x1F) == 0x1F) continue;  // inf/NaN
    ASSERT_EQ(FloatToHalf(HalfToFloat(half)), half) << bits;
  }
}
