// The seam between plain C++ and the framework: everything above it (sessions, chunking,
// masks, sampling) is portable and tested on Linux; below it sit the Core ML model
// (src/mac) and the simulated model used by the tests.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "io_names.h"
#include "native_error.h"
#include "tensor.h"

namespace statefulchat {

// One KV state (an MLState on macOS). Opaque to the session.
class ModelState {
 public:
  virtual ~ModelState() = default;
};

struct PredictInput {
  std::vector<int32_t> ids;   // q token ids (padding included)
  int64_t start = 0;          // first cache slot written; end = start + q
  int64_t maskWidth = 0;      // the mask's last axis: end, or the fixed width of IOFor(q)
  std::vector<uint8_t> mask;  // row-major [q, maskWidth] causal mask in IOFor(q).causalMaskType
};

using LogitsCallback = std::function<void(const StridedView& logits)>;

// A state's buffer as the framework lends it for writing (an MLState's MLMultiArray):
// valid only inside the callback, laid out by `strides` (in elements), which need not be
// row-major.
struct MutableStridedView {
  void* data = nullptr;
  DType dtype = DType::kFloat16;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
};

using StateReader = std::function<void(const StridedView& buffer)>;
using StateWriter = std::function<void(const MutableStridedView& buffer)>;

class StatefulModel {
 public:
  StatefulModel() { liveCount_.fetch_add(1); }
  StatefulModel(const StatefulModel&) = delete;
  StatefulModel& operator=(const StatefulModel&) = delete;
  virtual ~StatefulModel() { liveCount_.fetch_sub(1); }
  // Models alive in this process: a loaded MLModel holds weights and ANE/GPU resources,
  // so tests check that dispose() frees it at once rather than whenever V8 collects.
  static int64_t LiveCount() { return liveCount_.load(); }
  virtual const ModelIO& io() const = 0;
  // The I/O of the function that serves a prediction of q tokens. A multifunction model
  // serves q == 1 with its decode function, whose mask dtype or width may differ from
  // the prefill function's: inputs must be built from this, not from io().
  virtual const ModelIO& IOFor(int64_t q) const {
    (void)q;
    return io();
  }
  virtual std::unique_ptr<ModelState> NewState() = 0;
  // Runs one stateful prediction. `onLogits` sees the logits output only for the
  // duration of the call (the bytes belong to the framework).
  virtual void Predict(ModelState& state, const PredictInput& input, const LogitsCallback& onLogits) = 0;
  // The states the model declares (name, dtype, buffer shape), sorted by name: a snapshot
  // lists them in this order, whatever order the framework enumerates them in.
  virtual std::vector<FeatureDescription> StateDescriptions() const { return {}; }
  // Lend one state's buffer of `state` for the duration of the call, to read or to
  // overwrite (snapshots). The default refuses: a model without them cannot snapshot.
  virtual void ReadState(ModelState& state, const std::string& name, const StateReader& read) {
    (void)state, (void)read;
    throw NativeError(ErrorCode::kEngineFailed, "this model cannot read its state '" + name + "'");
  }
  virtual void WriteState(ModelState& state, const std::string& name, const StateWriter& write) {
    (void)state, (void)write;
    throw NativeError(ErrorCode::kEngineFailed, "this model cannot write its state '" + name + "'");
  }
  // Human-readable details (compute units, function names) for the UI.
  virtual std::string Details() const = 0;

 private:
  static inline std::atomic<int64_t> liveCount_{0};
};

}  // namespace statefulchat
