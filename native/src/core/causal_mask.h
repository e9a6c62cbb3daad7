// The causal mask is how a stateful Core ML LLM learns where to write: its shape
// [1, 1, q, end] makes the model update cache slots [end - q, end) and attend to [0, end).
// Query row i sits at absolute position start + i and may see keys 0..start + i.
#pragma once

#include <cstdint>
#include <vector>

#include "tensor.h"

namespace statefulchat {

struct CausalMaskShape {
  int64_t queryLength = 0;  // q
  int64_t end = 0;          // start + q
};

// Row-major [q, end] values: 0 where visible, -inf where masked, encoded in `dtype`
// (kFloat16 or kFloat32). Returned as raw bytes so the caller can copy them into an
// MLMultiArray honouring its strides.
std::vector<uint8_t> BuildCausalMask(int64_t start, int64_t queryLength, DType dtype);

// Whether key `key` is visible to query row `row` of a mask built at `start`.
inline bool IsVisible(int64_t start, int64_t row, int64_t key) { return key <= start + row; }

}  // namespace statefulchat
