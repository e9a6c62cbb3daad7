// The session against the simulated model: the ledger == cache invariant (chunked,
// truncated and padded histories give the same next token as one fresh prefill).
#include <memory>

#include <gtest/gtest.h>

#include "../src/core/native_error.h"
#include "../src/core/session.h"
#include "../src/core/simulated_model.h"

using namespace statefulchat;

namespace {
SamplingOptions Greedy() { return SamplingOptions{}; }

std::shared_ptr<SimulatedModel> Model(SimulatedModelSpec spec = {}) {
  return std::make_shared<SimulatedModel>(spec);
}

std::vector<int32_t> Tokens(int count, int salt = 0) {
  std::vector<int32_t> tokens;
  for (int i = 0; i < count; ++i) tokens.push_back((i * 7 + salt) % 50);
  return tokens;
}
}  // namespace

TEST(Session, GreedyNextTokenMatchesTheVisiblePrefix) {
  Session session(Model(), 16);
  const auto tokens = Tokens(10);
  const auto next = session.Evaluate(tokens, Greedy());
  ASSERT_TRUE(next);
  EXPECT_EQ(*next, SimulatedModel::NextTokenFor(tokens, 64));
  EXPECT_EQ(session.position(), 10);
}

TEST(Session, ChunkedEqualsOneShot) {
  const auto tokens = Tokens(45);
  Session oneShot(Model(), 64);
  Session chunked(Model(), 4);
  EXPECT_EQ(oneShot.Evaluate(tokens, Greedy()), chunked.Evaluate(tokens, Greedy()));
}

TEST(Session, TruncateIsExactDespiteStaleSlots) {
  const auto history = Tokens(30);
  Session session(Model(), 8);
  session.Evaluate(history, std::nullopt);
  session.Truncate(12);
  const std::vector<int32_t> replacement = {3, 1, 4};
  const auto afterTruncate = session.Evaluate(replacement, Greedy());

  std::vector<int32_t> ledger(history.begin(), history.begin() + 12);
  ledger.insert(ledger.end(), replacement.begin(), replacement.end());
  Session fresh(Model(), 64);
  EXPECT_EQ(afterTruncate, fresh.Evaluate(ledger, Greedy()));
  EXPECT_EQ(session.position(), 15);
}

TEST(Session, PaddedFixedShapeModelIsExact) {
  SimulatedModelSpec fixed;
  fixed.queryLengths.isRange = false;
  fixed.queryLengths.allowed = {1, 8};
  fixed.logitsType = DType::kFloat16;
  fixed.logitsRowPadding = 3;
  SimulatedModelSpec padOnly = fixed;
  padOnly.queryLengths.allowed = {8};
  const auto tokens = Tokens(21, 5);
  Session withDecode(Model(fixed), 8);
  Session padded(Model(padOnly), 8);
  Session reference(Model(), 64);
  const auto expected = reference.Evaluate(tokens, Greedy());
  EXPECT_EQ(withDecode.Evaluate(tokens, Greedy()), expected);
  EXPECT_EQ(padded.Evaluate(tokens, Greedy()), expected);
  EXPECT_EQ(padded.position(), 21);
}

TEST(Session, CapacityIsRefusedBeforeAnyPrediction) {
  SimulatedModelSpec small;
  small.capacity = 16;
  auto model = Model(small);
  Session session(model, 8);
  session.Evaluate(Tokens(10), std::nullopt);
  const int64_t before = model->predictions();
  EXPECT_THROW(session.Evaluate(Tokens(7), Greedy()), CapacityError);
  EXPECT_EQ(model->predictions(), before);
  EXPECT_EQ(session.position(), 10);
  EXPECT_TRUE(session.Evaluate(Tokens(6), Greedy()));
  EXPECT_EQ(session.position(), 16);
}

TEST(Session, FailureMidPrefillKeepsCompletedChunks) {
  SimulatedModelSpec failing;
  failing.failOnPrediction = 2;
  Session session(Model(failing), 4);
  EXPECT_THROW(session.Evaluate(Tokens(16), Greedy()), NativeError);
  EXPECT_EQ(session.position(), 8);  // two chunks of 4 completed
}

TEST(Session, ResetStartsFromAZeroedState) {
  Session session(Model(), 8);
  session.Evaluate(Tokens(20), std::nullopt);
  session.Reset();
  EXPECT_EQ(session.position(), 0);
  Session fresh(Model(), 8);
  EXPECT_EQ(session.Evaluate(Tokens(5, 9), Greedy()), fresh.Evaluate(Tokens(5, 9), Greedy()));
}

TEST(Session, SeededSamplingReplays) {
  SamplingOptions seeded;
  seeded.temperature = 1.5f;
  seeded.topP = 0.9f;
  seeded.seed = 1234;
  Session a(Model(), 8);
  Session b(Model(), 8);
  for (int step = 0; step < 5; ++step) {
    const std::vector<int32_t> token = {step};
    EXPECT_EQ(a.Evaluate(token, seeded), b.Evaluate(token, seeded));
  }
}

TEST(Session, RejectsBadTruncateAndEmptySampling) {
  Session session(Model(), 8);
  session.Evaluate(Tokens(4), std::nullopt);
  EXPECT_THROW(session.Truncate(5), NativeError);
  EXPECT_THROW(session.Evaluate({}, Greedy()), NativeError);
  EXPECT_FALSE(session.Evaluate({}, std::nullopt));
}

TEST(Session, TopKRanksTheGreedyTokenFirst) {
  Session a(Model(), 8);
  Session b(Model(), 8);
  const auto tokens = Tokens(12);
  const auto top = a.EvaluateTopK(tokens, 3);
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].first, *b.Evaluate(tokens, Greedy()));
  EXPECT_GE(top[0].second, top[1].second);
  EXPECT_EQ(a.position(), 12);
}
