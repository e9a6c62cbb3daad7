// Session::Verify, speculative decoding's batch check: result[i] is what step-by-step
// decoding would sample after tokens[0..i], whatever the chunking (several chunks,
// overlapping or padded ones, a separate decode function), seeded sampling included;
// capacity is refused before any prediction; a model whose logits hold only the last
// position is verified token by token, and the state after verify + truncate is exact.
#include <memory>

#include <gtest/gtest.h>

#include "../src/core/native_error.h"
#include "../src/core/session.h"
#include "../src/core/simulated_model.h"

using namespace statefulchat;

namespace {
SamplingOptions Greedy() { return SamplingOptions{}; }

SamplingOptions Seeded() {
  SamplingOptions options;
  options.temperature = 1.4f;
  options.topP = 0.95f;
  options.seed = 4242;
  return options;
}

std::vector<int32_t> Tokens(int count, int salt = 0) {
  std::vector<int32_t> tokens;
  for (int i = 0; i < count; ++i) tokens.push_back((i * 13 + salt) % 50);
  return tokens;
}

QueryLengths Allowed(std::vector<int64_t> allowed) { return QueryLengths{false, 1, 1, std::move(allowed)}; }

// What the model says follows each prefix prompt + draft[0..i].
std::vector<int32_t> Expected(const std::vector<int32_t>& prompt, const std::vector<int32_t>& draft) {
  std::vector<int32_t> ledger = prompt;
  std::vector<int32_t> next;
  for (int32_t token : draft) {
    ledger.push_back(token);
    next.push_back(SimulatedModel::NextTokenFor(ledger, 64));
  }
  return next;
}

// The same, sampled by single-token Evaluate calls on a fresh session of `spec`.
std::vector<int32_t> StepByStep(const SimulatedModelSpec& spec, const std::vector<int32_t>& prompt,
                                const std::vector<int32_t>& draft, const SamplingOptions& sampling) {
  Session session(std::make_shared<SimulatedModel>(spec), 16);
  if (!prompt.empty()) session.Evaluate(prompt, std::nullopt);
  std::vector<int32_t> next;
  for (int32_t token : draft) next.push_back(*session.Evaluate({token}, sampling));
  return next;
}
}  // namespace

TEST(SessionVerify, GreedyEqualsStepByStepAcrossChunkShapes) {
  SimulatedModelSpec range;
  SimulatedModelSpec decodeAndChunk;  // {1, 16}: overlapping q=16 chunks once 16 - k tokens are cached
  decodeAndChunk.queryLengths = Allowed({1, 16});
  decodeAndChunk.logitsType = DType::kFloat16;
  decodeAndChunk.logitsRowPadding = 3;
  SimulatedModelSpec padOnly;  // {8}: a padded chunk at the start, overlapping ones later
  padOnly.queryLengths = Allowed({8});
  SimulatedModelSpec multifunction;  // prefill q=16 and a decode function, like the Neural Engine package
  multifunction.queryLengths = Allowed({16});
  multifunction.decodeFunction = true;
  multifunction.decodeMaskType = DType::kFloat32;
  SimulatedModelSpec fixedWidth = multifunction;
  fixedWidth.maskWidthFixed = true;
  fixedWidth.positionInput = true;
  for (const SimulatedModelSpec& spec : {range, decodeAndChunk, padOnly, multifunction, fixedWidth}) {
    for (int promptLength : {0, 2, 9, 20}) {
      for (int draftLength : {1, 2, 5, 11}) {
        const auto prompt = Tokens(promptLength);
        const auto draft = Tokens(draftLength, 7);
        Session session(std::make_shared<SimulatedModel>(spec), 4);  // range models: chunks of 4
        if (!prompt.empty()) session.Evaluate(prompt, std::nullopt);
        const auto verified = session.Verify(draft, Greedy());
        EXPECT_EQ(verified, Expected(prompt, draft)) << "prompt " << promptLength << ", draft " << draftLength;
        EXPECT_EQ(verified, StepByStep(spec, prompt, draft, Greedy()));
        EXPECT_EQ(session.position(), promptLength + draftLength);
      }
    }
  }
}

TEST(SessionVerify, SeededVerifySamplesEachPositionAsSeededEvaluateWould) {
  const auto prompt = Tokens(6);
  for (const auto& draft : {std::vector<int32_t>{3, 9, 27}, Tokens(12, 1)}) {
    Session session(std::make_shared<SimulatedModel>(SimulatedModelSpec{}), 16);
    session.Evaluate(prompt, std::nullopt);
    const auto verified = session.Verify(draft, Seeded());
    EXPECT_EQ(verified, StepByStep(SimulatedModelSpec{}, prompt, draft, Seeded()));
    // The temperature is high enough that some draw is not the argmax (else this proves nothing).
    EXPECT_NE(verified, Expected(prompt, draft));
  }
}

TEST(SessionVerify, CapacityIsRefusedBeforeAnyPrediction) {
  SimulatedModelSpec small;
  small.capacity = 16;
  auto model = std::make_shared<SimulatedModel>(small);
  Session session(model, 8);
  session.Evaluate(Tokens(10), std::nullopt);
  const int64_t before = model->predictions();
  EXPECT_THROW(session.Verify(Tokens(7), Greedy()), CapacityError);
  EXPECT_EQ(model->predictions(), before);
  EXPECT_EQ(session.position(), 10);
  EXPECT_THROW(session.Verify({}, Greedy()), NativeError);
  EXPECT_EQ(session.Verify(Tokens(6, 3), Greedy()), Expected(Tokens(10), Tokens(6, 3)));
  EXPECT_EQ(session.position(), 16);
}

TEST(SessionVerify, TruncatingTheRejectedTailLeavesAnExactState) {
  const auto prompt = Tokens(9);
  const auto draft = Tokens(7, 2);
  Session session(std::make_shared<SimulatedModel>(SimulatedModelSpec{}), 4);
  session.Evaluate(prompt, std::nullopt);
  const auto verified = session.Verify(draft, Greedy());
  // Keep three drafted tokens, then the target's own token after them.
  session.Truncate(9 + 3);
  const auto afterTruncate = session.Evaluate({verified[2]}, Greedy());

  std::vector<int32_t> ledger = prompt;
  ledger.insert(ledger.end(), draft.begin(), draft.begin() + 3);
  ledger.push_back(verified[2]);
  Session fresh(std::make_shared<SimulatedModel>(SimulatedModelSpec{}), 64);
  EXPECT_EQ(afterTruncate, fresh.Evaluate(ledger, Greedy()));
  EXPECT_EQ(session.position(), 13);
}

// Logits [1, 1, vocab] whatever q: known from the prefill's q=16 chunk, so verify goes
// token by token at once (q=1 through the planner), one prediction per drafted token.
TEST(SessionVerify, LastRowOnlyModelIsVerifiedTokenByToken) {
  SimulatedModelSpec spec;
  spec.queryLengths = Allowed({1, 16});
  spec.lastLogitsOnly = true;
  auto model = std::make_shared<SimulatedModel>(spec);
  Session session(model, 16);
  const auto prompt = Tokens(20);
  session.Evaluate(prompt, std::nullopt);
  const int64_t before = model->predictions();
  const auto draft = Tokens(5, 4);
  EXPECT_EQ(session.Verify(draft, Greedy()), Expected(prompt, draft));
  EXPECT_EQ(model->predictions() - before, 5);
  EXPECT_EQ(session.position(), 25);
  SimulatedModelSpec allRows = spec;
  allRows.lastLogitsOnly = false;
  Session seeded(std::make_shared<SimulatedModel>(spec), 16);
  seeded.Evaluate(prompt, std::nullopt);
  EXPECT_EQ(seeded.Verify(draft, Seeded()), StepByStep(allRows, prompt, draft, Seeded()));
}

// Not yet known (the prefill ran only q=1 steps): the verify batch's overlapping q=16 chunk
// finds one row, its writes are truncated away, and the batch is redone token by token.
TEST(SessionVerify, LastRowOnlyDiscoveredOnTheBatchFallsBackExactly) {
  SimulatedModelSpec spec;
  spec.queryLengths = Allowed({1, 16});
  spec.lastLogitsOnly = true;
  auto model = std::make_shared<SimulatedModel>(spec);
  Session session(model, 16);
  const auto prompt = Tokens(12);
  session.Evaluate(prompt, std::nullopt);
  EXPECT_EQ(model->predictions(), 12);  // too little history to overlap a q=16 chunk: q=1 steps
  const auto draft = Tokens(5, 6);
  EXPECT_EQ(session.Verify(draft, Greedy()), Expected(prompt, draft));
  EXPECT_EQ(model->predictions(), 12 + 1 + 5);  // the discovering chunk, then one step per token
  EXPECT_EQ(session.position(), 17);
  std::vector<int32_t> ledger = prompt;
  ledger.insert(ledger.end(), draft.begin(), draft.end());
  EXPECT_EQ(session.Evaluate({1}, Greedy()), Expected(ledger, {1})[0]);
}

// {16} only, last row only, 3 tokens cached: a single step would need padding, whose only
// row is not the token's. Refused before any prediction, position unchanged.
TEST(SessionVerify, LastRowOnlyWithoutASmallEnoughQueryIsRefusedBeforeAnyPrediction) {
  SimulatedModelSpec spec;
  spec.queryLengths = Allowed({16});
  spec.lastLogitsOnly = true;
  auto model = std::make_shared<SimulatedModel>(spec);
  Session session(model, 16);
  session.Evaluate(Tokens(3), std::nullopt);  // a padded q=16 chunk: now known to be last-row-only
  const int64_t before = model->predictions();
  EXPECT_THROW(session.Verify(Tokens(2), Greedy()), NativeError);
  EXPECT_EQ(model->predictions(), before);
  EXPECT_EQ(session.position(), 3);
  // With 15 tokens cached every step overlaps instead: verify works (one q=16 step each).
  session.Evaluate(Tokens(12, 1), std::nullopt);
  auto prompt = Tokens(3);
  const auto more = Tokens(12, 1);
  prompt.insert(prompt.end(), more.begin(), more.end());
  EXPECT_EQ(session.Verify(Tokens(3, 2), Greedy()), Expected(prompt, Tokens(3, 2)));
}
