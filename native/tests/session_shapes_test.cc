// The session on simulated models shaped like each public model family (issue 9, items
// 3–5): the next token equals a fresh reference model's whatever the shape constraints,
// the logits layout or the per-function mask dtype, or the model is refused at load.
#include <memory>

#include <gtest/gtest.h>

#include "../src/core/native_error.h"
#include "../src/core/session.h"
#include "../src/core/simulated_model.h"

using namespace statefulchat;

namespace {
SamplingOptions Greedy() { return SamplingOptions{}; }

std::vector<int32_t> Tokens(int count, int salt = 0) {
  std::vector<int32_t> tokens;
  for (int i = 0; i < count; ++i) tokens.push_back((i * 11 + salt) % 50);
  return tokens;
}

QueryLengths Allowed(std::vector<int64_t> allowed) { return QueryLengths{false, 1, 1, std::move(allowed)}; }

// Greedy next tokens after `prompt` and then after each of `steps` single tokens.
std::vector<int32_t> Generate(const SimulatedModelSpec& spec, const std::vector<int32_t>& prompt, int steps) {
  Session session(std::make_shared<SimulatedModel>(spec), 16);
  std::vector<int32_t> produced = {*session.Evaluate(prompt, Greedy())};
  for (int step = 0; step < steps; ++step) produced.push_back(*session.Evaluate({produced.back()}, Greedy()));
  return produced;
}

std::vector<int32_t> Reference(const std::vector<int32_t>& prompt, int steps) { return Generate(SimulatedModelSpec{}, prompt, steps); }
}  // namespace

TEST(SessionShapes, CoreMLPipelinesFamilyRangeShaped) {
  SimulatedModelSpec spec;
  spec.camelCaseNames = true;
  EXPECT_EQ(Generate(spec, Tokens(40), 5), Reference(Tokens(40), 5));
}

TEST(SessionShapes, MaskFixedAtOneRowPrefillsTokenByToken) {
  SimulatedModelSpec spec;
  spec.camelCaseNames = true;
  spec.maskRowsFixed = 1;  // [1, 1, 1, end], as swift-transformers sends
  auto model = std::make_shared<SimulatedModel>(spec);
  EXPECT_EQ(model->io().queryLengths.allowed, (std::vector<int64_t>{1}));
  EXPECT_EQ(Generate(spec, Tokens(12), 3), Reference(Tokens(12), 3));
}

TEST(SessionShapes, FixedShapeWithPositionInput) {
  SimulatedModelSpec spec;
  spec.queryLengths = Allowed({1, 16});
  spec.maskWidthFixed = true;
  spec.positionInput = true;
  EXPECT_EQ(Generate(spec, Tokens(37), 4), Reference(Tokens(37), 4));
}

TEST(SessionShapes, FixedMaskWidthWithoutPositionIsRefusedAtLoad) {
  SimulatedModelSpec spec;
  spec.queryLengths = Allowed({16});
  spec.maskWidthFixed = true;
  try {
    SimulatedModel model(spec);
    FAIL() << "loaded a model whose mask cannot carry the write position";
  } catch (const NativeError& error) {
    EXPECT_EQ(error.code(), ErrorCode::kModelInvalid);
  }
}

// Item 4: a model returning only the last position's logits, with no q small enough for
// the tail and no q = 1, so every decode step needs 16 rows.
TEST(SessionShapes, LastPositionLogitsAfterAnUnfilledChunkBelongToTheLastRealToken) {
  SimulatedModelSpec spec;
  spec.queryLengths = Allowed({16});
  spec.lastLogitsOnly = true;
  spec.logitsType = DType::kFloat16;
  EXPECT_EQ(Generate(spec, Tokens(21), 6), Reference(Tokens(21), 6));
  spec.maskWidthFixed = true;
  spec.positionInput = true;
  EXPECT_EQ(Generate(spec, Tokens(21), 6), Reference(Tokens(21), 6));
}

TEST(SessionShapes, LastPositionLogitsOfPaddingAreRefusedNotSampled) {
  SimulatedModelSpec spec;
  spec.queryLengths = Allowed({16});
  spec.lastLogitsOnly = true;
  Session session(std::make_shared<SimulatedModel>(spec), 16);
  EXPECT_THROW(session.Evaluate(Tokens(5), Greedy()), NativeError);  // nothing to overlap yet
  Session prefillOnly(std::make_shared<SimulatedModel>(spec), 16);
  EXPECT_FALSE(prefillOnly.Evaluate(Tokens(5), std::nullopt));  // no logits needed: padding is fine
  EXPECT_FALSE(prefillOnly.Evaluate(Tokens(15, 1), std::nullopt));
  // Now 20 tokens are cached: a step overlaps 15 of them instead of padding.
  auto ledger = Tokens(5);
  const auto more = Tokens(15, 1);
  ledger.insert(ledger.end(), more.begin(), more.end());
  ledger.push_back(7);
  EXPECT_EQ(prefillOnly.Evaluate({7}, Greedy()), SimulatedModel::NextTokenFor(ledger, 64));
}

// Item 5: the decode function's mask dtype differs from the prefill function's.
TEST(SessionShapes, EachFunctionGetsItsOwnMaskDtype) {
  SimulatedModelSpec spec;
  spec.queryLengths = Allowed({16});
  spec.maskType = DType::kFloat16;
  spec.decodeMaskType = DType::kFloat32;
  spec.decodeFunction = true;
  EXPECT_EQ(Generate(spec, Tokens(35), 5), Reference(Tokens(35), 5));
  spec.maskType = DType::kFloat32;
  spec.decodeMaskType = DType::kFloat16;
  EXPECT_EQ(Generate(spec, Tokens(35), 5), Reference(Tokens(35), 5));
}
