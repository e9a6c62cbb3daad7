#include "causal_mask.h"

#include <cstring>

#include "fp16.h"
#include "native_error.h"

namespace statefulchat {

std::vector<uint8_t> BuildCausalMask(int64_t start, int64_t queryLength, int64_t width, DType dtype) {
  if (start < 0 || queryLength <= 0 || width < start + queryLength) {
    throw NativeError(ErrorCode::kEngineFailed, "causal mask needs start >= 0, q > 0 and width >= start + q");
  }
  if (dtype != DType::kFloat16 && dtype != DType::kFloat32) {
    throw NativeError(ErrorCode::kModelInvalid,
                      std::string("causal mask must be float16 or float32, not ") + DTypeName(dtype));
  }
  const size_t elementSize = DTypeSize(dtype);
  std::vector<uint8_t> bytes(static_cast<size_t>(queryLength * width) * elementSize);
  const uint16_t halfMasked = FloatToHalf(kMaskedValue);
  for (int64_t row = 0; row < queryLength; ++row) {
    for (int64_t key = 0; key < width; ++key) {
      const size_t offset = static_cast<size_t>(row * width + key) * elementSize;
      const bool visible = IsVisible(start, row, key);
      if (dtype == DType::kFloat16) {
        const uint16_t value = visible ? kHalfZero : halfMasked;
        std::memcpy(&bytes[offset], &value, sizeof value);
      } else {
        const float value = visible ? 0.0f : kMaskedValue;
        std::memcpy(&bytes[offset], &value, sizeof value);
      }
    }
  }
  return bytes;
}

}  // namespace statefulchat
