// The causal mask is how a stateful Core ML LLM learns where to write: its shape
// [1, 1, q, end] makes the model update cache slots [end - q, end) and attend to [0, end).
// Query row i sits at absolute position start + i and may see keys 0..start + i.
// Fixed-shape models take a mask of fixed width (the cache length) and a position input.
#pragma once

#include <cstdint>
#include <vector>

#include "tensor.h"

namespace statefulchat {

// The value of a masked entry: the most negative finite fp16 number, in either dtype, as
// the public runtimes (swift-transformers, CoreMLPipelines) send. Not -inf: softmax
// gives a masked key exactly zero weight either way (exp(-65504 - max) underflows to 0),
// but -inf turns into NaN in any kernel that scales the mask (-inf * 0) or subtracts
// two masked scores (-inf - -inf), which a finite value never does.
constexpr float kMaskedValue = -65504.0f;

// Row-major [q, width] values: 0 where visible, kMaskedValue where masked, encoded in
// `dtype` (kFloat16 or kFloat32). `width` is start + q for models whose mask carries the
// position, or the fixed cache length. Returned as raw bytes so the caller can copy them
// into an MLMultiArray honouring its strides.
std::vector<uint8_t> BuildCausalMask(int64_t start, int64_t queryLength, int64_t width, DType dtype);

// Whether key `key` is visible to query row `row` of a mask built at `start`.
inline bool IsVisible(int64_t start, int64_t row, int64_t key) { return key <= start + row; }

// Whether a mask value means "visible" (the decoder's side of the convention above).
inline bool IsVisibleValue(float value) { return value > kMaskedValue / 2; }

}  // namespace statefulchat
