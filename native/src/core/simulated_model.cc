#include "simulated_model.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>

#include "fp16.h"
#include "native_error.h"

namespace statefulchat {

namespace {
class SimulatedState : public ModelState {
 public:
  explicit SimulatedState(int64_t capacity) : slots(static_cast<size_t>(capacity), 0) {}
  std::vector<int32_t> slots;  // zeroed, like a fresh MLState
};

bool MaskAllows(const PredictInput& input, DType maskType, int64_t row, int64_t key, int64_t end) {
  const size_t index = static_cast<size_t>(row * end + key);
  if (maskType == DType::kFloat16) {
    uint16_t half;
    std::memcpy(&half, &input.mask[index * 2], sizeof half);
    return std::isfinite(HalfToFloat(half));
  }
  float value;
  std::memcpy(&value, &input.mask[index * 4], sizeof value);
  return std::isfinite(value);
}
}  // namespace

SimulatedModel::SimulatedModel(const SimulatedModelSpec& spec) : spec_(spec) {
  io_.inputIds = "input_ids";
  io_.causalMask = "causal_mask";
  io_.causalMaskType = spec.maskType;
  io_.keyCache = "key_cache";
  io_.valueCache = "value_cache";
  io_.logits = "logits";
  io_.capacity = spec.capacity;
  io_.queryLengths = spec.queryLengths;
  if (io_.queryLengths.isRange && io_.queryLengths.max <= 1 && io_.queryLengths.min <= 1) {
    io_.queryLengths.max = spec.capacity;  // default: any q
  }
}

std::unique_ptr<ModelState> SimulatedModel::NewState() {
  return std::make_unique<SimulatedState>(spec_.capacity);
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
  const int64_t end = input.start + q;
  if (q <= 0 || end > spec_.capacity || !io_.queryLengths.Allows(q)) {
    throw NativeError(ErrorCode::kEngineFailed, "simulated model rejects q=" + std::to_string(q));
  }
  if (input.mask.size() != static_cast<size_t>(q * end) * DTypeSize(spec_.maskType)) {
    throw NativeError(ErrorCode::kEngineFailed, "mask shape does not match [1,1,q,end]");
  }
  // Slice update first (as the Core ML recipe does), then attention over [0, end).
  for (int64_t i = 0; i < q; ++i) state.slots[static_cast<size_t>(input.start + i)] = input.ids[static_cast<size_t>(i)];

  const int64_t vocab = spec_.vocabSize;
  const int64_t rowStride = vocab + spec_.logitsRowPadding;
  const size_t elementSize = DTypeSize(spec_.logitsType);
  std::vector<uint8_t> bytes(static_cast<size_t>(q * rowStride) * elementSize, 0xFF);
  for (int64_t row = 0; row < q; ++row) {
    std::vector<int32_t> visible;
    for (int64_t key = 0; key < end; ++key) {
      if (MaskAllows(input, spec_.maskType, row, key, end)) visible.push_back(state.slots[static_cast<size_t>(key)]);
    }
    const int32_t next = NextTokenFor(visible, vocab);
    for (int64_t token = 0; token < vocab; ++token) {
      const int64_t distance = std::min<int64_t>(std::llabs(token - next), vocab - std::llabs(token - next));
      const float logit = 8.0f - 0.5f * static_cast<float>(distance);
      const size_t offset = static_cast<size_t>(row * rowStride + token) * elementSize;
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
  view.shape = {1, q, vocab};
  view.strides = {q * rowStride, rowStride, 1};
  onLogits(view);
}

}  // namespace statefulchat
