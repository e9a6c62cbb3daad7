// Token sampling done natively, so a decode step hands JS one integer instead of copying
// the whole vocabulary's logits across the N-API boundary.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace statefulchat {

struct SamplingOptions {
  float temperature = 0.0f;  // <= 0: greedy (argmax)
  float topP = 1.0f;         // nucleus mass kept, (0, 1]
  int32_t topK = 0;          // 0: no top-k limit
  std::optional<uint64_t> seed;
};

// Deterministic uniform draw in [0, 1) for a (seed, position) pair: the same seed at the
// same cache position always draws the same number, so a seeded generation replays
// exactly while consecutive steps still differ.
double SeededUniform(uint64_t seed, uint64_t position);

// Picks a token. `uniform` is the random draw in [0, 1) (ignored when greedy).
int32_t SampleToken(const std::vector<float>& logits, const SamplingOptions& options, double uniform);

// The k most likely tokens with their probabilities (softmax of the raw logits, no
// temperature), most likely first: for diagnostics and numerical-equivalence tests.
std::vector<std::pair<int32_t, double>> TopKProbabilities(const std::vector<float>& logits, int32_t k);

// Index of the largest logit; ties go to the lowest index (matches llama.cpp greedy).
int32_t ArgMax(const std::vector<float>& logits);

}  // namespace statefulchat
