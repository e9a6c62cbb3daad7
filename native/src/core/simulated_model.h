// A tiny deterministic "language model" with Core ML's stateful contract, for tests on
// machines without Core ML. It keeps one token per cache slot, writes slots
// [start, start + q) like the slice-update recipe, and derives each row's logits only
// from the slots its causal-mask row marks visible, so a wrong mask, a wrong write
// position or a stale slot that leaks into attention changes the output.
//
// The cache slots live in the two state buffers themselves (key_cache holds each token's
// low 16 bits, value_cache its high 16 bits, in padded rows so their strides are not
// row-major), so a snapshot that restores either state wrongly changes the output.
//
// It describes itself the way Core ML would (FeatureDescriptions with shape constraints)
// and resolves its I/O with the same ResolveModelIO as a real model, so it can be shaped
// like each public model family; each prediction is then checked against those
// descriptions, failing like Core ML does on a shape it does not accept.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "stateful_model.h"

namespace statefulchat {

struct SimulatedModelSpec {
  int64_t vocabSize = 64;
  int64_t capacity = 64;
  QueryLengths queryLengths;          // of the token input; default: range 1..capacity
  DType maskType = DType::kFloat16;
  DType logitsType = DType::kFloat32;
  int64_t logitsRowPadding = 0;       // extra elements per row, to exercise strides
  int64_t predictDelayMs = 0;         // makes overlap tests deterministic
  int64_t failOnPrediction = -1;      // the n-th prediction (0-based) throws, like an NSError
  bool camelCaseNames = false;        // inputIds / causalMask / keyCache / valueCache
  int64_t maskRowsFixed = 0;          // > 0: the mask's row axis is fixed ([1,1,1,end] when 1)
  bool maskWidthFixed = false;        // the mask's last axis is fixed at capacity
  bool positionInput = false;         // an int32 [1] "position" input carries the write position
  bool lastLogitsOnly = false;        // logits [1,1,vocab] for the last position only
  // When set: q == 1 is served by a second ("decode") function whose mask has this dtype.
  bool decodeFunction = false;
  DType decodeMaskType = DType::kFloat16;
  DType stateType = DType::kFloat16;  // of key_cache / value_cache (float16 or float32)
};

class SimulatedModel : public StatefulModel {
 public:
  // Throws NativeError(kModelInvalid) when ResolveModelIO refuses the described shapes.
  explicit SimulatedModel(const SimulatedModelSpec& spec);
  const ModelIO& io() const override { return io_; }
  const ModelIO& IOFor(int64_t q) const override { return spec_.decodeFunction && q == 1 ? decodeIO_ : io_; }
  std::unique_ptr<ModelState> NewState() override;
  void Predict(ModelState& state, const PredictInput& input, const LogitsCallback& onLogits) override;
  std::string Details() const override { return "simulated"; }
  std::vector<FeatureDescription> StateDescriptions() const override;
  void ReadState(ModelState& state, const std::string& name, const StateReader& read) override;
  void WriteState(ModelState& state, const std::string& name, const StateWriter& write) override;

  // The token the model predicts after a visible prefix; tests compute expectations with it.
  static int32_t NextTokenFor(const std::vector<int32_t>& visible, int64_t vocabSize);
  int64_t predictions() const { return predictions_.load(); }

 private:
  SimulatedModelSpec spec_;
  std::vector<FeatureDescription> features_;        // as Core ML would describe the model
  std::vector<FeatureDescription> decodeFeatures_;  // the decode function's (decodeFunction)
  ModelIO io_;
  ModelIO decodeIO_;
  std::atomic<int64_t> predictions_{0};
};

}  // namespace statefulchat
