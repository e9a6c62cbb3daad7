// Which input, state and output of a model play which role. Public stateful models spell
// them differently (input_ids / inputIds, causal_mask / causalMask, key_cache / keyCache),
// so roles are resolved from the model description, never assumed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensor.h"

namespace statefulchat {

// The query lengths q that the token input accepts.
struct QueryLengths {
  bool isRange = true;
  int64_t min = 1;
  int64_t max = 1;               // inclusive (range)
  std::vector<int64_t> allowed;  // ascending (enumerated or fixed)
  bool Allows(int64_t q) const;
};

struct ModelIO {
  std::string inputIds;
  std::string causalMask;
  DType causalMaskType = DType::kFloat16;
  std::string keyCache;
  std::string valueCache;
  std::string logits;
  int64_t capacity = 0;  // max_seq_len, from the key cache's sequence axis
  QueryLengths queryLengths;
};

// Lower-cases and drops '_' so input_ids, inputIds and InputIDs compare equal.
std::string NormalizeFeatureName(const std::string& name);

// Throws NativeError(kModelInvalid) naming what was found when a role is missing.
ModelIO ResolveModelIO(const std::vector<FeatureDescription>& features);

// The sequence (max_seq_len) axis of a KV-cache state buffer: the one before head_dim in
// both public layouts ([layers, batch, kv_heads, seq, head_dim] and [batch, heads, seq, dim]).
int64_t CacheSequenceLength(const std::vector<int64_t>& bufferShape);

}  // namespace statefulchat
