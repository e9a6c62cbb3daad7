#include "causal_mask.h"

#include <cstring>
#include <limits>

#include "fp16.h"
#include "native_error.h"

namespace statefulchat {

std::vector<uint8_t> BuildCausalMask(int64_t start, int64_t queryLength, DType dtype) {
  if (start < 0 || queryLength <= 0) {
    throw NativeError(ErrorCode::kEngineFailed, "causal mask needs start >= 0 and q > 0");
  }
  if (dtype != DType::kFloat16 && dtype != DType::kFloat32) {
    throw NativeError(ErrorCode::kModelInvalid,
                      std::string("causal mask must be float16 or float32, not ") + DTypeName(dtype));
  }
  const int64_t end = start + queryLength;
  const size_t elementSize = DTypeSize(dtype);
  std::vector<uint8_t> bytes(static_cast<size_t>(queryLength * end) * elementSize);
  const float negativeInfinity = -std::numeric_limits<float>::infinity();
  for (int64_t row = 0; row < queryLength; ++row) {
    for (int64_t key = 0; key < end; ++key) {
      const size_t offset = static_cast<size_t>(row * end + key) * elementSize;
      const bool visible = IsVisible(start, row, key);
      if (dtype == DType::kFloat16) {
        const uint16_t value = visible ? kHalfZero : kHalfNegativeInfinity;
        std::memcpy(&bytes[offset], &value, sizeof value);
      } else {
        const float value = visible ? 0.0f : negativeInfinity;
        std::memcpy(&bytes[offset], &value, sizeof value);
      }
    }
  }
  return bytes;
}

}  // namespace statefulchat
