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

void Invalid(const std::string& message) { throw NativeError(ErrorCode::kModelInvalid, message); }

// Which q the model takes: the token input's axis 1 intersected with the mask's row
// axis (a mask fixed at [1,1,1,end] allows single-token steps only, whatever the ids say).
QueryLengths QueryLengthsOf(const FeatureDescription& ids, const FeatureDescription& mask) {
  if (ids.shape.size() != 2) Invalid("input '" + ids.name + "' must be [1, q]");
  const QueryLengths fromIds = AxisLengths(ids, 1);
  const QueryLengths fromMask = AxisLengths(mask, 2);
  QueryLengths lengths = Intersect(fromIds, fromMask);
  if (lengths.isRange) lengths.min = std::max<int64_t>(1, lengths.min);
  else lengths.allowed.erase(std::remove_if(lengths.allowed.begin(), lengths.allowed.end(), [](int64_t q) { return q < 1; }),
                             lengths.allowed.end());
  if (lengths.Empty()) {
    Invalid("no query length fits both '" + ids.name + "' (q " + fromIds.Describe() + ") and '" + mask.name +
            "' (rows " + fromMask.Describe() + ")");
  }
  return lengths;
}

// The mask's last axis: flexible (it carries the write position: end = position + q) or
// fixed at the cache length (then a `position` input must carry it).
void ResolveMaskWidth(const FeatureDescription& mask, const FeatureDescription* position, ModelIO& io) {
  const QueryLengths ends = AxisLengths(mask, 3);
  if (ends.isRange) {
    if (ends.min > io.queryLengths.Smallest()) {
      Invalid("mask '" + mask.name + "' needs a length >= " + std::to_string(ends.min) +
              ", so a short first prompt could not be written at position 0");
    }
    io.capacity = std::min(io.capacity, ends.max);
    return;
  }
  if (ends.allowed.size() != 1 || ends.allowed.front() != io.capacity) {
    Invalid("mask '" + mask.name + "' has fixed lengths " + ends.Describe() + "; a fixed-shape mask must span the cache (" +
            std::to_string(io.capacity) + ")");
  }
  if (position == nullptr) {
    Invalid("mask '" + mask.name + "' has a fixed length, so it cannot carry the write position, and the model has no "
            "'position' input");
  }
  io.maskWidth = io.capacity;
}
}  // namespace

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
  if (ids->dtype != DType::kInt32) Invalid("input '" + ids->name + "' must be int32, not " + DTypeName(ids->dtype));
  const auto* mask = FindRole(features, FeatureKind::kInput, {"causal_mask", "causalMask"});
  if (!mask) Missing("causal mask input (causal_mask / causalMask)", features, FeatureKind::kInput);
  if (mask->dtype != DType::kFloat16 && mask->dtype != DType::kFloat32) {
    Invalid("input '" + mask->name + "' must be float16 or float32, not " + DTypeName(mask->dtype));
  }
  if (mask->shape.size() != 4) Invalid("input '" + mask->name + "' must be [1, 1, q, end]");
  const auto* position = FindRole(features, FeatureKind::kInput, {"position"});
  if (position && position->dtype != DType::kInt32) Invalid("input '" + position->name + "' must be int32");
  for (const auto& feature : features) {
    if (feature.kind == FeatureKind::kInput && &feature != ids && &feature != mask && &feature != position) {
      Invalid("unexpected input '" + feature.name + "': only a token input, a causal mask and a position are supported");
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
  if (position) io.position = position->name;
  io.capacity = CacheSequenceLength(keys->shape);
  if (CacheSequenceLength(values->shape) != io.capacity) Invalid("key and value caches disagree on max_seq_len");
  io.queryLengths = QueryLengthsOf(*ids, *mask);
  ResolveMaskWidth(*mask, position, io);
  if (io.queryLengths.isRange) io.queryLengths.max = std::min(io.queryLengths.max, io.capacity);
  return io;
}

}  // namespace statefulchat
