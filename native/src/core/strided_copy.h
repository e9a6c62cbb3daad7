// Copies a row-major [rows, cols] block into a strided destination (an MLMultiArray's
// mutable bytes, whose strides Core ML chooses). Element size is 2 (fp16) or 4 (fp32/int32).
#pragma once

#include <cstddef>
#include <cstdint>

namespace statefulchat {

void CopyIntoStrided(void* destination, int64_t rowStride, int64_t columnStride, const void* source,
                     int64_t rows, int64_t columns, size_t elementSize);

}  // namespace statefulchat
