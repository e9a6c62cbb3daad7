#include "sampler.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "native_error.h"

namespace statefulchat {

namespace {
uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
}  // namespace

double SeededUniform(uint64_t seed, uint64_t position) {
  const uint64_t bits = SplitMix64(SplitMix64(seed) ^ (position * 0xD1B54A32D192ED03ull));
  return static_cast<double>(bits >> 11) * (1.0 / 9007199254740992.0);  // 53 bits
}

int32_t ArgMax(const std::vector<float>& logits) {
  if (logits.empty()) throw NativeError(ErrorCode::kEngineFailed, "empty logits");
  int32_t best = 0;
  for (size_t i = 1; i < logits.size(); ++i) {
    // NaN never wins: the comparison is false.
    if (logits[i] > logits[static_cast<size_t>(best)]) best = static_cast<int32_t>(i);
  }
  return best;
}

std::vector<std::pair<int32_t, double>> TopKProbabilities(const std::vector<float>& logits, int32_t k) {
  if (logits.empty()) throw NativeError(ErrorCode::kEngineFailed, "empty logits");
  const float maxLogit = logits[static_cast<size_t>(ArgMax(logits))];
  double total = 0.0;
  for (float logit : logits) total += std::isfinite(logit) ? std::exp(static_cast<double>(logit) - maxLogit) : 0.0;
  std::vector<int32_t> order(logits.size());
  std::iota(order.begin(), order.end(), 0);
  const size_t kept = std::min(order.size(), static_cast<size_t>(std::max<int32_t>(k, 0)));
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(kept), order.end(), [&](int32_t a, int32_t b) {
    const float la = logits[static_cast<size_t>(a)];
    const float lb = logits[static_cast<size_t>(b)];
    return la > lb || (la == lb && a < b);
  });
  std::vector<std::pair<int32_t, double>> top;
  for (size_t i = 0; i < kept; ++i) {
    const float logit = logits[static_cast<size_t>(order[i])];
    top.emplace_back(order[i], std::isfinite(logit) ? std::exp(static_cast<double>(logit) - maxLogit) / total : 0.0);
  }
  return top;
}

int32_t SampleToken(const std::vector<float>& logits, const SamplingOptions& options, double uniform) {
  if (options.temperature <= 0.0f) return ArgMax(logits);
  if (logits.empty()) throw NativeError(ErrorCode::kEngineFailed, "empty logits");

  std::vector<int32_t> order(logits.size());
  std::iota(order.begin(), order.end(), 0);
  auto byLogitDesc = [&](int32_t a, int32_t b) {
    const float la = logits[static_cast<size_t>(a)];
    const float lb = logits[static_cast<size_t>(b)];
    return la > lb || (la == lb && a < b);
  };
  size_t kept = logits.size();
  if (options.topK > 0 && static_cast<size_t>(options.topK) < kept) {
    kept = static_cast<size_t>(options.topK);
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(kept), order.end(), byLogitDesc);
  } else {
    std::sort(order.begin(), order.end(), byLogitDesc);
  }

  // Softmax over the kept candidates, in double for stability on 50k+ vocabularies.
  const double maxLogit = logits[static_cast<size_t>(order[0])];
  std::vector<double> probabilities(kept);
  double total = 0.0;
  for (size_t i = 0; i < kept; ++i) {
    const double scaled = (logits[static_cast<size_t>(order[i])] - maxLogit) / options.temperature;
    probabilities[i] = std::isfinite(scaled) ? std::exp(scaled) : 0.0;
    total += probabilities[i];
  }
  if (!(total > 0.0)) return order[0];

  // Nucleus: the smallest prefix whose mass reaches topP (always at least one token).
  const double topP = options.topP > 0.0f && options.topP < 1.0f ? options.topP : 1.0;
  size_t nucleus = kept;
  if (topP < 1.0) {
    double mass = 0.0;
    for (size_t i = 0; i < kept; ++i) {
      mass += probabilities[i] / total;
      if (mass >= topP) {
        nucleus = i + 1;
        break;
      }
    }
  }
  double nucleusMass = 0.0;
  for (size_t i = 0; i < nucleus; ++i) nucleusMass += probabilities[i];
  const double target = std::clamp(uniform, 0.0, 1.0) * nucleusMass;
  double cumulative = 0.0;
  for (size_t i = 0; i < nucleus; ++i) {
    cumulative += probabilities[i];
    if (target < cumulative) return order[i];
  }
  return order[nucleus - 1];
}

}  // namespace statefulchat
