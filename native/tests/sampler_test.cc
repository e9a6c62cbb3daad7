#include <cmath>
#include <map>

#include <gtest/gtest.h>

#include "../src/core/sampler.h"

using namespace statefulchat;

TEST(Sampler, GreedyTakesArgmaxLowestOnTies) {
  SamplingOptions greedy;
  EXPECT_EQ(SampleToken({0.1f, 3.0f, 3.0f, -1.0f}, greedy, 0.99), 1);
}

TEST(Sampler, TopKOneIsGreedy) {
  SamplingOptions options;
  options.temperature = 1.0f;
  options.topK = 1;
  for (double u : {0.0, 0.5, 0.999}) EXPECT_EQ(SampleToken({1.0f, 2.0f, 0.5f}, options, u), 1);
}

TEST(Sampler, TopPKeepsTheNucleus) {
  // Probabilities ~ {0.66, 0.24, 0.09, 0.01}: topP 0.8 keeps the first two.
  SamplingOptions options;
  options.temperature = 1.0f;
  options.topP = 0.8f;
  const std::vector<float> logits = {3.0f, 2.0f, 1.0f, -1.0f};
  std::map<int32_t, int> seen;
  for (int i = 0; i < 1000; ++i) seen[SampleToken(logits, options, SeededUniform(7, static_cast<uint64_t>(i)))]++;
  EXPECT_GT(seen[0], 600);
  EXPECT_GT(seen[1], 150);
  EXPECT_EQ(seen.count(2), 0u);
  EXPECT_EQ(seen.count(3), 0u);
}

TEST(Sampler, UniformSelectsByCumulativeMass) {
  SamplingOptions options;
  options.temperature = 1.0f;
  const std::vector<float> logits = {0.0f, 0.0f};  // 50/50, sorted order keeps index order
  EXPECT_EQ(SampleToken(logits, options, 0.25), 0);
  EXPECT_EQ(SampleToken(logits, options, 0.75), 1);
}

TEST(Sampler, SeededUniformIsDeterministicAndSpread) {
  EXPECT_EQ(SeededUniform(42, 10), SeededUniform(42, 10));
  EXPECT_NE(SeededUniform(42, 10), SeededUniform(42, 11));
  EXPECT_NE(SeededUniform(42, 10), SeededUniform(43, 10));
  double sum = 0;
  for (uint64_t i = 0; i < 10000; ++i) {
    const double u = SeededUniform(1, i);
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
  }
  EXPECT_NEAR(sum / 10000, 0.5, 0.02);
}

TEST(Sampler, TopKProbabilitiesAreSoftmaxOfRawLogits) {
  const auto top = TopKProbabilities({0.0f, 2.0f, 1.0f}, 2);
  ASSERT_EQ(top.size(), 2u);
  const double total = 1.0 + std::exp(2.0) + std::exp(1.0);
  EXPECT_EQ(top[0].first, 1);
  EXPECT_NEAR(top[0].second, std::exp(2.0) / total, 1e-12);
  EXPECT_EQ(top[1].first, 2);
  EXPECT_EQ(TopKProbabilities({1.0f}, 5).size(), 1u);
}
