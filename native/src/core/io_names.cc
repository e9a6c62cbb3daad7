#include "io_names.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>

#include "native_error.h"

namespace statefulchat {

namespace {
const FeatureDescription* FindRole(const std::vector<FeatureDescription>& features, FeatureKind kind,
                                   std::initializer_list<const char*> spellings) {
  for (const char* spelling : spellings) {
    const std::string wanted = NormalizeFeatureName(spelling);
    for (const auto& feature : features) {
      if (feature.kind == kind && NormalizeFeatureName(feature.name) == wanted) return &feature;
    }
  }
  return nullptr;
}

std::string ListNames(const std::vector<FeatureDescription>& features, FeatureKind kind) {
  std::string names;
  for (const auto& feature : features) {
    if (feature.kind != kind) continue;
    if (!names.empty()) names += ", ";
    names += feature.name;
  }
  return names.empty() ? "none" : names;
}

[[noreturn]] void Missing(const std::string& role, const std::vector<FeatureDescription>& features,
                          FeatureKind kind) {
  const char* kindName = kind == FeatureKind::kInput ? "inputs" : kind == FeatureKind::kState ? "states" : "outputs";
  throw NativeError(ErrorCode::kModelInvalid,
                    "no " + role + " found; the model's " + kindName + " are: " + ListNames(features, kind));
}

QueryLengths QueryLengthsOf(const FeatureDescription& ids) {
  QueryLengths lengths;
  const size_t axis = ids.shape.size() >= 2 ? ids.shape.size() - 1 : 0;
  if (!ids.enumeratedShapes.empty()) {
    lengths.isRange = false;
    for (const auto& shape : ids.enumeratedShapes) {
      if (shape.size() > axis) lengths.allowed.push_back(shape[axis]);
    }
    std::sort(lengths.allowed.begin(), lengths.allowed.end());
    lengths.allowed.erase(std::unique(lengths.allowed.begin(), lengths.allowed.end()), lengths.allowed.end());
  } else if (ids.ranges.size() > axis) {
    lengths.isRange = true;
    lengths.min = std::max<int64_t>(1, ids.ranges[axis].min);
    lengths.max = ids.ranges[axis].max;
  } else {
    lengths.isRange = false;
    lengths.allowed.push_back(ids.shape.empty() ? 1 : ids.shape[axis]);
  }
  if (lengths.isRange ? lengths.max < lengths.min : lengths.allowed.empty()) {
    throw NativeError(ErrorCode::kModelInvalid, "input '" + ids.name + "' accepts no query length");
  }
  return lengths;
}
}  // namespace

bool QueryLengths::Allows(int64_t q) const {
  if (isRange) return q >= min && q <= max;
  return std::binary_search(allowed.begin(), allowed.end(), q);
}

std::string NormalizeFeatureName(const std::string& name) {
  std::string normalized;
  for (char c : name) {
    if (c == '_') continue;
    normalized += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return normalized;
}

int64_t CacheSequenceLength(const std::vector<int64_t>& bufferShape) {
  if (bufferShape.size() < 3) {
    throw NativeError(ErrorCode::kModelInvalid, "a KV-cache state must have rank >= 3");
  }
  return bufferShape[bufferShape.size() - 2];
}

ModelIO ResolveModelIO(const std::vector<FeatureDescription>& features) {
  ModelIO io;
  const auto* ids = FindRole(features, FeatureKind::kInput, {"input_ids", "inputIds"});
  if (!ids) Missing("token input (input_ids / inputIds)", features, FeatureKind::kInput);
  if (ids->dtype != DType::kInt32) {
    throw NativeError(ErrorCode::kModelInvalid, "input '" + ids->name + "' must be int32, not " + DTypeName(ids->dtype));
  }
  const auto* mask = FindRole(features, FeatureKind::kInput, {"causal_mask", "causalMask"});
  if (!mask) Missing("causal mask input (causal_mask / causalMask)", features, FeatureKind::kInput);
  if (mask->dtype != DType::kFloat16 && mask->dtype != DType::kFloat32) {
    throw NativeError(ErrorCode::kModelInvalid, "input '" + mask->name + "' must be float16 or float32");
  }
  for (const auto& feature : features) {
    if (feature.kind == FeatureKind::kInput && &feature != ids && &feature != mask) {
      throw NativeError(ErrorCode::kModelInvalid,
                        "unexpected input '" + feature.name + "': only a token input and a causal mask are supported");
    }
  }
  const auto* keys = FindRole(features, FeatureKind::kState, {"key_cache", "keyCache"});
  const auto* values = FindRole(features, FeatureKind::kState, {"value_cache", "valueCache"});
  if (!keys) Missing("key cache state (key_cache / keyCache): is this a stateful model?", features, FeatureKind::kState);
  if (!values) Missing("value cache state (value_cache / valueCache)", features, FeatureKind::kState);
  const auto* logits = FindRole(features, FeatureKind::kOutput, {"logits"});
  if (!logits) Missing("logits output", features, FeatureKind::kOutput);

  io.inputIds = ids->name;
  io.causalMask = mask->name;
  io.causalMaskType = mask->dtype;
  io.keyCache = keys->name;
  io.valueCache = values->name;
  io.logits = logits->name;
  io.capacity = CacheSequenceLength(keys->shape);
  if (CacheSequenceLength(values->shape) != io.capacity) {
    throw NativeError(ErrorCode::kModelInvalid, "key and value caches disagree on max_seq_len");
  }
  // The mask's last axis is `end`; a tighter upper bound there also bounds capacity.
  if (mask->shape.size() == 4 && mask->ranges.size() == 4 && mask->ranges[3].max > 0) {
    io.capacity = std::min(io.capacity, mask->ranges[3].max);
  }
  io.queryLengths = QueryLengthsOf(*ids);
  if (io.queryLengths.isRange) io.queryLengths.max = std::min(io.queryLengths.max, io.capacity);
  return io;
}

}  // namespace statefulchat
