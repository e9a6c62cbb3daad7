#include "coreml_model.h"

#include <algorithm>
#include <exception>

#include "../core/causal_mask.h"
#include "../core/native_error.h"
#include "../core/strided_copy.h"
#include "coreml_description.h"
#include "coreml_errors.h"

namespace statefulchat {

namespace {
// Holds an MLState as `id` so this class needs no availability annotation; it is only
// created and used inside @available(macOS 15.0, *) checks.
class CoreMLState : public ModelState {
 public:
  explicit CoreMLState(id state) : state(state) {}
  id state;
};

MLMultiArray* MakeArray(NSArray<NSNumber*>* shape, MLMultiArrayDataType dataType, const void* rows,
                        int64_t rowCount, int64_t columnCount, size_t elementSize, const char* what) {
  NSError* error = nil;
  MLMultiArray* array = [[MLMultiArray alloc] initWithShape:shape dataType:dataType error:&error];
  if (array == nil) throw CoreMLFailure(ErrorCode::kEngineFailed, std::string("cannot allocate ") + what, error);
  [array getMutableBytesWithHandler:^(void* bytes, NSInteger, NSArray<NSNumber*>* strides) {
    // The last two axes are the 2-D block we copy; leading axes are size 1.
    const NSUInteger rank = strides.count;
    const int64_t rowStride = rank >= 2 ? strides[rank - 2].longLongValue : 0;
    const int64_t columnStride = strides[rank - 1].longLongValue;
    CopyIntoStrided(bytes, rowStride, columnStride, rows, rowCount, columnCount, elementSize);
  }];
  return array;
}

// The lent bytes must cover every element the strides address before anything is copied.
void CheckCovers(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides, DType dtype, NSInteger size,
                 const std::string& name) {
  const int64_t needed = StridedExtent(shape, strides) * static_cast<int64_t>(DTypeSize(dtype));
  if (DTypeSize(dtype) == 0 || needed > static_cast<int64_t>(size)) {
    throw NativeError(ErrorCode::kEngineFailed, "state '" + name + "' lends fewer bytes than its shape and strides address");
  }
}

StridedView ViewOf(MLMultiArray* array, const void* bytes) {
  StridedView view;
  view.data = bytes;
  view.dtype = DTypeFromCoreML(array.dataType);
  for (NSNumber* dimension in array.shape) view.shape.push_back(dimension.longLongValue);
  for (NSNumber* stride in array.strides) view.strides.push_back(stride.longLongValue);
  return view;
}
}  // namespace

CoreMLModel::CoreMLModel(MLModel* prefill, MLModel* _Nullable decode, std::string details)
    : prefill_(prefill), decode_(decode), details_(std::move(details)) {
  const std::vector<FeatureDescription> features = DescribeFeatures(prefill.modelDescription);
  io_ = ResolveModelIO(features);
  // A multifunction model's functions share these states; the prefill function's list them.
  for (const FeatureDescription& feature : features) {
    if (feature.kind == FeatureKind::kState) states_.push_back(feature);
  }
  std::sort(states_.begin(), states_.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  decodeIO_ = io_;
  if (decode != nil) {
    decodeIO_ = ResolveModelIO(DescribeFeatures(decode.modelDescription));
    if (decodeIO_.capacity != io_.capacity) {
      throw NativeError(ErrorCode::kModelInvalid, "prefill and decode functions disagree on max_seq_len");
    }
    if (!decodeIO_.queryLengths.Allows(1)) {
      throw NativeError(ErrorCode::kModelInvalid, "the decode function does not accept a single token");
    }
    // The planner may then use q == 1 for any tail, served by the decode function.
    if (!io_.queryLengths.isRange && !io_.queryLengths.Allows(1)) {
      io_.queryLengths.allowed.insert(io_.queryLengths.allowed.begin(), 1);
    }
  }
}

std::unique_ptr<ModelState> CoreMLModel::NewState() {
  if (@available(macOS 15.0, *)) {
    // Zeroed buffers; states are shared by the functions of a multifunction model. The
    // pool matters: this runs on the JS thread or a session worker, neither of which has one.
    @autoreleasepool {
      return std::make_unique<CoreMLState>([prefill_ newState]);
    }
  }
  throw NativeError(ErrorCode::kBackendUnavailable, "Core ML needs macOS 15");
}

void CoreMLModel::Predict(ModelState& baseState, const PredictInput& input, const LogitsCallback& onLogits) {
  if (@available(macOS 15.0, *)) {
    auto& state = static_cast<CoreMLState&>(baseState);
    const int64_t q = static_cast<int64_t>(input.ids.size());
    const bool useDecode = decode_ != nil && q == 1;
    MLModel* model = useDecode ? decode_ : prefill_;
    const ModelIO& io = IOFor(q);
    // The session built the mask for IOFor(q); check before copying, so a mismatch is an
    // error rather than a read past the buffer.
    const size_t maskElement = DTypeSize(io.causalMaskType);
    const int64_t width = input.maskWidth;
    if (width != io.MaskWidthFor(input.start, q) ||
        input.mask.size() != static_cast<size_t>(q * width) * maskElement) {
      throw NativeError(ErrorCode::kEngineFailed, "the causal mask does not match the function serving q=" + std::to_string(q));
    }
    const MLMultiArrayDataType maskType =
        io.causalMaskType == DType::kFloat16 ? MLMultiArrayDataTypeFloat16 : MLMultiArrayDataTypeFloat32;
    const int32_t* ids = input.ids.data();
    const uint8_t* mask = input.mask.data();
    const int32_t position = static_cast<int32_t>(input.start);
    const LogitsCallback* callback = &onLogits;  // blocks capture pointers, not C++ references

    // No C++ exception may cross an Objective-C frame or skip the pool's drain: catch
    // inside, rethrow after the pool.
    std::exception_ptr failure;
    @autoreleasepool {
      try {
        MLMultiArray* idsArray = MakeArray(@[ @1, @(q) ], MLMultiArrayDataTypeInt32, ids, 1, q, sizeof(int32_t), "input ids");
        MLMultiArray* maskArray = MakeArray(@[ @1, @1, @(q), @(width) ], maskType, mask, q, width, maskElement, "causal mask");
        NSMutableDictionary<NSString*, id>* inputs = [NSMutableDictionary dictionary];
        inputs[ToNSString(io.inputIds)] = [MLFeatureValue featureValueWithMultiArray:idsArray];
        inputs[ToNSString(io.causalMask)] = [MLFeatureValue featureValueWithMultiArray:maskArray];
        if (!io.position.empty()) {
          // Fixed-shape functions: the mask's width is the cache length, so the write
          // position travels as its own input.
          MLMultiArray* positionArray = MakeArray(@[ @1 ], MLMultiArrayDataTypeInt32, &position, 1, 1, sizeof(int32_t), "position");
          inputs[ToNSString(io.position)] = [MLFeatureValue featureValueWithMultiArray:positionArray];
        }
        NSError* error = nil;
        MLDictionaryFeatureProvider* features = [[MLDictionaryFeatureProvider alloc] initWithDictionary:inputs error:&error];
        if (features == nil) throw CoreMLFailure(ErrorCode::kEngineFailed, "cannot build the model inputs", error);
        id<MLFeatureProvider> output = [model predictionFromFeatures:features usingState:(MLState*)state.state error:&error];
        if (output == nil) throw CoreMLFailure(ErrorCode::kEngineFailed, "Core ML prediction failed", error);
        MLMultiArray* logits = [output featureValueForName:ToNSString(io.logits)].multiArrayValue;
        if (logits == nil) throw NativeError(ErrorCode::kEngineFailed, "the prediction has no '" + io.logits + "' array");
        __block std::exception_ptr readFailure;
        [logits getBytesWithHandler:^(const void* bytes, NSInteger) {
          try {
            (*callback)(ViewOf(logits, bytes));
          } catch (...) {
            readFailure = std::current_exception();
          }
        }];
        if (readFailure) std::rethrow_exception(readFailure);
      } catch (...) {
        failure = std::current_exception();
      }
    }
    if (failure) std::rethrow_exception(failure);
    return;
  }
  throw NativeError(ErrorCode::kBackendUnavailable, "Core ML needs macOS 15");
}

// Snapshots. The MLMultiArray that getMultiArrayForStateNamed: lends aliases the state's
// storage and is valid only inside its handler, so every copy happens there; C++
// exceptions are caught inside each block and rethrown after the pool drains. Only a Mac
// can confirm at run time that the lent strides and byte counts are what Apple documents
// (the type-check proves names, types and availability), and how long a copy takes.
void CoreMLModel::ReadState(ModelState& baseState, const std::string& name, const StateReader& read) {
  if (@available(macOS 15.0, *)) {
    auto& state = static_cast<CoreMLState&>(baseState);
    const StateReader* callback = &read;  // blocks capture pointers, not C++ references
    const std::string* stateName = &name;
    __block bool lent = false;
    __block std::exception_ptr failure;
    @autoreleasepool {
      [(MLState*)state.state getMultiArrayForStateNamed:ToNSString(name) handler:^(MLMultiArray* buffer) {
        lent = true;
        [buffer getBytesWithHandler:^(const void* bytes, NSInteger size) {
          try {
            const StridedView view = ViewOf(buffer, bytes);
            CheckCovers(view.shape, view.strides, view.dtype, size, *stateName);
            (*callback)(view);
          } catch (...) {
            failure = std::current_exception();
          }
        }];
      }];
    }
    if (failure) std::rethrow_exception(failure);
    if (!lent) throw NativeError(ErrorCode::kEngineFailed, "Core ML lent no buffer for state '" + name + "'");
    return;
  }
  throw NativeError(ErrorCode::kBackendUnavailable, "Core ML needs macOS 15");
}

void CoreMLModel::WriteState(ModelState& baseState, const std::string& name, const StateWriter& write) {
  if (@available(macOS 15.0, *)) {
    auto& state = static_cast<CoreMLState&>(baseState);
    const StateWriter* callback = &write;
    const std::string* stateName = &name;
    __block bool lent = false;
    __block std::exception_ptr failure;
    @autoreleasepool {
      [(MLState*)state.state getMultiArrayForStateNamed:ToNSString(name) handler:^(MLMultiArray* buffer) {
        lent = true;
        // Write by the strides this handler is given: Apple documents that they may differ
        // from the array's own strides.
        [buffer getMutableBytesWithHandler:^(void* bytes, NSInteger size, NSArray<NSNumber*>* strides) {
          try {
            MutableStridedView view;
            view.data = bytes;
            view.dtype = DTypeFromCoreML(buffer.dataType);
            for (NSNumber* dimension in buffer.shape) view.shape.push_back(dimension.longLongValue);
            for (NSNumber* stride in strides) view.strides.push_back(stride.longLongValue);
            CheckCovers(view.shape, view.strides, view.dtype, size, *stateName);
            (*callback)(view);
          } catch (...) {
            failure = std::current_exception();
          }
        }];
      }];
    }
    if (failure) std::rethrow_exception(failure);
    if (!lent) throw NativeError(ErrorCode::kEngineFailed, "Core ML lent no buffer for state '" + name + "'");
    return;
  }
  throw NativeError(ErrorCode::kBackendUnavailable, "Core ML needs macOS 15");
}

}  // namespace statefulchat
