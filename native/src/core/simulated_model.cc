#include "simulated_model.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>

#include "causal_mask.h"
#include "fp16.h"
#include "native_error.h"

namespace statefulchat {

namespace {
// Elements per cache slot in memory: the described 4 plus padding, like a framework that
// aligns rows, so snapshots must honour strides.
constexpr int64_t kSlotStride = 6;
constexpr int64_t kHeadDim = 4;
constexpr int64_t kLayers = 2;

// One buffer per state, shaped [2, 1, 1, capacity, 4] with padded slot rows.
class SimulatedState : public ModelState {
 public:
  SimulatedState(int64_t capacity, DType dtype)
      : capacity(capacity),
        dtype(dtype),
        key(static_cast<size_t>(kLayers * capacity * kSlotStride) * DTypeSize(dtype), 0),
        value(key.size(), 0) {}

  std::vector<int64_t> Strides() const {
    const int64_t layer = capacity * kSlotStride;
    return {layer, layer, layer, kSlotStride, 1};
  }

  // A token sits in element 0 of its slot, in both layers; the last layer is read back.
  void Put(int64_t slot, int32_t token) {
    const auto bits = static_cast<uint32_t>(token);
    for (int64_t layer = 0; layer < kLayers; ++layer) {
      Store(key, layer, slot, bits & 0xFFFF);
      Store(value, layer, slot, bits >> 16);
    }
  }
  int32_t Get(int64_t slot) const {
    return static_cast<int32_t>(Load(key, kLayers - 1, slot) | (Load(value, kLayers - 1, slot) << 16));
  }

  int64_t capacity;
  DType dtype;
  std::vector<uint8_t> key;    // zeroed, like a fresh MLState
  std::vector<uint8_t> value;

 private:
  size_t Offset(int64_t layer, int64_t slot) const {
    return static_cast<size_t>((layer * capacity + slot) * kSlotStride) * DTypeSize(dtype);
  }
  // Raw 16-bit patterns, not numbers: any fp16 bit pattern survives a byte-exact copy.
  void Store(std::vector<uint8_t>& buffer, int64_t layer, int64_t slot, uint32_t half) {
    const uint32_t word = half & 0xFFFF;
    std::memcpy(&buffer[Offset(layer, slot)], &word, DTypeSize(dtype));  // little-endian low half first
  }
  uint32_t Load(const std::vector<uint8_t>& buffer, int64_t layer, int64_t slot) const {
    uint32_t word = 0;
    std::memcpy(&word, &buffer[Offset(layer, slot)], DTypeSize(dtype));
    return word & 0xFFFF;
  }
};

FeatureDescription Feature(const std::string& name, FeatureKind kind, DType dtype, std::vector<int64_t> shape) {
  FeatureDescription feature;
  feature.name = name;
  feature.kind = kind;
  feature.dtype = dtype;
  feature.shape = std::move(shape);
  return feature;
}

// Sets axis `axis` of a feature to `lengths`, as a range or (enumerated) as a fixed value
// when only one is allowed; several enumerated values become a range over them, the way a
// converter would have to express them on an axis that also has a flexible neighbour.
void ConstrainAxis(FeatureDescription& feature, size_t axis, const QueryLengths& lengths) {
  if (!lengths.isRange && lengths.allowed.size() == 1) {
    feature.shape[axis] = lengths.allowed.front();
    if (!feature.ranges.empty()) feature.ranges[axis] = {lengths.allowed.front(), lengths.allowed.front()};
    return;
  }
  if (feature.ranges.empty()) {
    for (int64_t size : feature.shape) feature.ranges.push_back({size, size});
  }
  feature.ranges[axis] = lengths.isRange ? DimensionRange{lengths.min, lengths.max}
                                         : DimensionRange{lengths.allowed.front(), lengths.allowed.back()};
  feature.shape[axis] = feature.ranges[axis].min;
}

std::vector<FeatureDescription> Describe(const SimulatedModelSpec& spec, DType maskType) {
  const bool camel = spec.camelCaseNames;
  FeatureDescription ids = Feature(camel ? "inputIds" : "input_ids", FeatureKind::kInput, DType::kInt32, {1, 1});
  if (spec.queryLengths.isRange || spec.queryLengths.allowed.size() == 1) {
    ConstrainAxis(ids, 1, spec.queryLengths);
  } else {
    for (int64_t q : spec.queryLengths.allowed) ids.enumeratedShapes.push_back({1, q});
    ids.shape[1] = spec.queryLengths.allowed.front();
  }
  FeatureDescription mask = Feature(camel ? "causalMask" : "causal_mask", FeatureKind::kInput, maskType, {1, 1, 1, 1});
  QueryLengths rows = spec.queryLengths;
  if (spec.maskRowsFixed > 0) {
    rows.isRange = false;
    rows.allowed = {spec.maskRowsFixed};
  }
  QueryLengths ends;
  if (spec.maskWidthFixed) {
    ends.isRange = false;
    ends.allowed = {spec.capacity};
  } else {
    ends.min = 1;
    ends.max = spec.capacity;
  }
  ConstrainAxis(mask, 2, rows);
  ConstrainAxis(mask, 3, ends);
  const std::vector<int64_t> cache = {kLayers, 1, 1, spec.capacity, kHeadDim};
  std::vector<FeatureDescription> features = {
      ids, mask, Feature(camel ? "keyCache" : "key_cache", FeatureKind::kState, spec.stateType, cache),
      Feature(camel ? "valueCache" : "value_cache", FeatureKind::kState, spec.stateType, cache),
      Feature("logits", FeatureKind::kOutput, spec.logitsType, {1, 1, spec.vocabSize})};
  if (spec.positionInput) features.push_back(Feature("position", FeatureKind::kInput, DType::kInt32, {1}));
  return features;
}

bool MaskAllows(const PredictInput& input, DType maskType, int64_t row, int64_t key) {
  const size_t index = static_cast<size_t>(row * input.maskWidth + key);
  if (maskType == DType::kFloat16) {
    uint16_t half;
    std::memcpy(&half, &input.mask[index * 2], sizeof half);
    return IsVisibleValue(HalfToFloat(half));
  }
  float value;
  std::memcpy(&value, &input.mask[index * 4], sizeof value);
  return IsVisibleValue(value);
}

void Reject(const std::string& message) {
  throw NativeError(ErrorCode::kEngineFailed, "simulated Core ML prediction failed: " + message);
}
}  // namespace

SimulatedModel::SimulatedModel(const SimulatedModelSpec& spec) : spec_(spec) {
  if (spec_.queryLengths.isRange && spec_.queryLengths.max <= 1 && spec_.queryLengths.min <= 1) {
    spec_.queryLengths.max = spec_.capacity;  // default: any q
  }
  features_ = Describe(spec_, spec_.maskType);
  io_ = ResolveModelIO(features_);
  decodeIO_ = io_;
  if (spec_.decodeFunction) {
    SimulatedModelSpec decode = spec_;
    decode.queryLengths = QueryLengths{false, 1, 1, {1}};
    decodeFeatures_ = Describe(decode, spec_.decodeMaskType);
    decodeIO_ = ResolveModelIO(decodeFeatures_);
    if (!io_.queryLengths.isRange && !io_.queryLengths.Allows(1)) {
      io_.queryLengths.allowed.insert(io_.queryLengths.allowed.begin(), 1);
    }
  }
}

std::unique_ptr<ModelState> SimulatedModel::NewState() {
  return std::make_unique<SimulatedState>(spec_.capacity, spec_.stateType);
}

std::vector<FeatureDescription> SimulatedModel::StateDescriptions() const {
  std::vector<FeatureDescription> states;
  for (const FeatureDescription& feature : features_) {
    if (feature.kind == FeatureKind::kState) states.push_back(feature);
  }
  std::sort(states.begin(), states.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return states;
}

namespace {
std::vector<uint8_t>& BufferNamed(SimulatedState& state, const ModelIO& io, const std::string& name) {
  if (name == io.keyCache) return state.key;
  if (name == io.valueCache) return state.value;
  throw NativeError(ErrorCode::kEngineFailed, "simulated model has no state named '" + name + "'");
}
}  // namespace

void SimulatedModel::ReadState(ModelState& baseState, const std::string& name, const StateReader& read) {
  auto& state = static_cast<SimulatedState&>(baseState);
  StridedView view;
  view.data = BufferNamed(state, io_, name).data();
  view.dtype = state.dtype;
  view.shape = {kLayers, 1, 1, state.capacity, kHeadDim};
  view.strides = state.Strides();
  read(view);
}

void SimulatedModel::WriteState(ModelState& baseState, const std::string& name, const StateWriter& write) {
  auto& state = static_cast<SimulatedState&>(baseState);
  MutableStridedView view;
  view.data = BufferNamed(state, io_, name).data();
  view.dtype = state.dtype;
  view.shape = {kLayers, 1, 1, state.capacity, kHeadDim};
  view.strides = state.Strides();
  write(view);
}

int32_t SimulatedModel::NextTokenFor(const std::vector<int32_t>& visible, int64_t vocabSize) {
  uint64_t hash = 1469598103934665603ull;
  for (size_t position = 0; position < visible.size(); ++position) {
    hash = (hash ^ static_cast<uint64_t>(visible[position] + 1)) * 1099511628211ull;
    hash = (hash ^ position) * 1099511628211ull;
  }
  return static_cast<int32_t>(hash % static_cast<uint64_t>(vocabSize));
}

void SimulatedModel::Predict(ModelState& baseState, const PredictInput& input, const LogitsCallback& onLogits) {
  const int64_t call = predictions_.fetch_add(1);
  if (spec_.predictDelayMs > 0) std::this_thread::sleep_for(std::chrono::milliseconds(spec_.predictDelayMs));
  if (call == spec_.failOnPrediction) {
    throw NativeError(ErrorCode::kEngineFailed, "simulated prediction failure (like an NSError)");
  }
  auto& state = static_cast<SimulatedState&>(baseState);
  const int64_t q = static_cast<int64_t>(input.ids.size());
  const bool decoding = spec_.decodeFunction && q == 1;
  const auto& features = decoding ? decodeFeatures_ : features_;
  const DType maskType = decoding ? spec_.decodeMaskType : spec_.maskType;
  // What Core ML checks: each input's shape against its constraint, and its byte count.
  if (q <= 0 || !AcceptsShape(features[0], {1, q})) Reject("input ids [1, " + std::to_string(q) + "] not accepted");
  if (!AcceptsShape(features[1], {1, 1, q, input.maskWidth})) {
    Reject("mask [1, 1, " + std::to_string(q) + ", " + std::to_string(input.maskWidth) + "] not accepted");
  }
  if (input.mask.size() != static_cast<size_t>(q * input.maskWidth) * DTypeSize(maskType)) {
    Reject("mask bytes do not match [1,1,q,width] in " + std::string(DTypeName(maskType)));
  }
  // Where the q rows go: the position input when the model has one, else end - q.
  const int64_t start = spec_.positionInput ? input.start : input.maskWidth - q;
  if (start != input.start || start < 0 || start + q > spec_.capacity) Reject("write position out of range");
  // Slice update first (as the Core ML recipe does), then attention over the mask's keys.
  for (int64_t i = 0; i < q; ++i) state.Put(start + i, input.ids[static_cast<size_t>(i)]);

  const int64_t vocab = spec_.vocabSize;
  const int64_t firstRow = spec_.lastLogitsOnly ? q - 1 : 0;
  const int64_t rows = q - firstRow;
  const int64_t rowStride = vocab + spec_.logitsRowPadding;
  const size_t elementSize = DTypeSize(spec_.logitsType);
  std::vector<uint8_t> bytes(static_cast<size_t>(rows * rowStride) * elementSize, 0xFF);
  for (int64_t row = firstRow; row < q; ++row) {
    std::vector<int32_t> visible;
    for (int64_t key = 0; key < input.maskWidth; ++key) {
      if (MaskAllows(input, maskType, row, key)) visible.push_back(state.Get(key));
    }
    const int32_t next = NextTokenFor(visible, vocab);
    for (int64_t token = 0; token < vocab; ++token) {
      const int64_t distance = std::min<int64_t>(std::llabs(token - next), vocab - std::llabs(token - next));
      const float logit = 8.0f - 0.5f * static_cast<float>(distance);
      const size_t offset = static_cast<size_t>((row - firstRow) * rowStride + token) * elementSize;
      if (spec_.logitsType == DType::kFloat16) {
        const uint16_t half = FloatToHalf(logit);
        std::memcpy(&bytes[offset], &half, sizeof half);
      } else {
        std::memcpy(&bytes[offset], &logit, sizeof logit);
      }
    }
  }
  StridedView view;
  view.data = bytes.data();
  view.dtype = spec_.logitsType;
  view.shape = {1, rows, vocab};
  view.strides = {rows * rowStride, rowStride, 1};
  onLogits(view);
}

}  // namespace statefulchat
