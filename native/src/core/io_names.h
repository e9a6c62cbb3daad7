// Which input, state and output of a model play which role. Public stateful models spell
// them differently (input_ids / inputIds, causal_mask / causalMask, key_cache / keyCache),
// so roles are resolved from the model description, never assumed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "shape_constraint.h"
#include "tensor.h"

namespace statefulchat {

struct ModelIO {
  std::string inputIds;
  std::string causalMask;
  DType causalMaskType = DType::kFloat16;
  std::string keyCache;
  std::string valueCache;
  std::string logits;
  int64_t capacity = 0;  // max_seq_len, from the key cache's sequence axis
  // The query lengths q that the token input *and* the mask's row axis both accept.
  QueryLengths queryLengths;
  // Fixed-shape models: an int32 [1] input carrying the write position, because a mask of
  // fixed width cannot. Empty when the mask's length `end` carries it.
  std::string position;
  // 0: the mask is [1,1,q,end] with end = position + q. Otherwise its fixed last axis
  // (== capacity), used with the `position` input.
  int64_t maskWidth = 0;
  // The width of the mask for a prediction of q tokens written at `start`.
  int64_t MaskWidthFor(int64_t start, int64_t q) const { return maskWidth > 0 ? maskWidth : start + q; }
};

// Lower-cases and drops '_' so input_ids, inputIds and InputIDs compare equal.
std::string NormalizeFeatureName(const std::string& name);

// Throws NativeError(kModelInvalid) naming what was found when a role is missing, or when
// the shapes the token input and the causal mask accept cannot work together (checked at
// load, so a model never loads only to fail its first prefill with a Core ML shape error).
ModelIO ResolveModelIO(const std::vector<FeatureDescription>& features);

// The sequence (max_seq_len) axis of a KV-cache state buffer: the one before head_dim in
// both public layouts ([layers, batch, kv_heads, seq, head_dim] and [batch, heads, seq, dim]).
int64_t CacheSequenceLength(const std::vector<int64_t>& bufferShape);

}  // namespace statefulchat
