// A tiny deterministic "language model" with Core ML's stateful contract, for tests on
// machines without Core ML. It keeps one token per cache slot, writes slots
// [end - q, end) like the slice-update recipe, and derives each row's logits only from
// the slots its causal-mask row marks visible, so a wrong mask, a wrong write position
// or a stale slot that leaks into attention changes the output.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "stateful_model.h"

namespace statefulchat {

struct SimulatedModelSpec {
  int64_t vocabSize = 64;
  int64_t capacity = 64;
  QueryLengths queryLengths;          // default: range 1..capacity
  DType maskType = DType::kFloat16;
  DType logitsType = DType::kFloat32;
  int64_t logitsRowPadding = 0;       // extra elements per row, to exercise strides
  int64_t predictDelayMs = 0;         // makes overlap tests deterministic
  int64_t failOnPrediction = -1;      // the n-th prediction (0-based) throws, like an NSError
};

class SimulatedModel : public StatefulModel {
 public:
  explicit SimulatedModel(const SimulatedModelSpec& spec);
  const ModelIO& io() const override { return io_; }
  std::unique_ptr<ModelState> NewState() override;
  void Predict(ModelState& state, const PredictInput& input, const LogitsCallback& onLogits) override;
  std::string Details() const override { return "simulated"; }

  // The token the model predicts after a visible prefix; tests compute expectations with it.
  static int32_t NextTokenFor(const std::vector<int32_t>& visible, int64_t vocabSize);
  int64_t predictions() const { return predictions_.load(); }

 private:
  SimulatedModelSpec spec_;
  ModelIO io_;
  std::atomic<int64_t> predictions_{0};
};

}  // namespace statefulchat
