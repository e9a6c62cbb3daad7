#include "logits_reader.h"

#include <cstring>

#include "fp16.h"
#include "native_error.h"

namespace statefulchat {

namespace {
void Validate(const StridedView& view) {
  if (view.data == nullptr || view.shape.empty() || view.shape.size() != view.strides.size()) {
    throw NativeError(ErrorCode::kEngineFailed, "logits output has no data or inconsistent strides");
  }
  if (view.dtype != DType::kFloat16 && view.dtype != DType::kFloat32 && view.dtype != DType::kFloat64) {
    throw NativeError(ErrorCode::kModelInvalid,
                      std::string("logits must be floating point, not ") + DTypeName(view.dtype));
  }
  for (size_t axis = 0; axis + 2 < view.shape.size(); ++axis) {
    if (view.shape[axis] != 1) {
      throw NativeError(ErrorCode::kModelInvalid, "logits must have batch size 1");
    }
  }
}

float ReadScalar(const StridedView& view, int64_t elementOffset) {
  const auto* base = static_cast<const uint8_t*>(view.data);
  switch (view.dtype) {
    case DType::kFloat16: {
      uint16_t half;
      std::memcpy(&half, base + elementOffset * 2, sizeof half);
      return HalfToFloat(half);
    }
    case DType::kFloat32: {
      float value;
      std::memcpy(&value, base + elementOffset * 4, sizeof value);
      return value;
    }
    case DType::kFloat64: {
      double value;
      std::memcpy(&value, base + elementOffset * 8, sizeof value);
      return static_cast<float>(value);
    }
    default:
      return 0.0f;
  }
}
}  // namespace

LogitsLayout DescribeLogits(const StridedView& view) {
  Validate(view);
  LogitsLayout layout;
  layout.vocabSize = view.shape.back();
  layout.rows = view.shape.size() >= 2 ? view.shape[view.shape.size() - 2] : 1;
  return layout;
}

std::vector<float> ReadLogitsRow(const StridedView& view, int64_t lastRow) {
  const LogitsLayout layout = DescribeLogits(view);
  // A model that returns only the final position's logits has one row whatever q was.
  const int64_t row = lastRow < layout.rows ? lastRow : layout.rows - 1;
  if (row < 0) throw NativeError(ErrorCode::kEngineFailed, "logits row out of range");
  const size_t rank = view.shape.size();
  const int64_t vocabStride = view.strides[rank - 1];
  const int64_t rowOffset = rank >= 2 ? row * view.strides[rank - 2] : 0;
  std::vector<float> logits(static_cast<size_t>(layout.vocabSize));
  for (int64_t token = 0; token < layout.vocabSize; ++token) {
    logits[static_cast<size_t>(token)] = ReadScalar(view, rowOffset + token * vocabStride);
  }
  return logits;
}

}  // namespace statefulchat
