// Copies a row-major [rows, cols] block into a strided destination (an MLMultiArray's
// mutable bytes, whose strides Core ML chooses). Element size is 2 (fp16) or 4 (fp32/int32).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace statefulchat {

void CopyIntoStrided(void* destination, int64_t rowStride, int64_t columnStride, const void* source,
                     int64_t rows, int64_t columns, size_t elementSize);

// N-d copies between a row-major dense buffer and a strided one (a state buffer, whose
// strides in elements the framework chooses and may pad). One memcpy when the strided
// side is row-major after all.
// Elements from the first to one past the last that a strided array addresses: what its
// lent byte count must cover before anything is copied.
int64_t StridedExtent(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides);

void CopyStridedToDense(const void* strided, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                        void* dense, size_t elementSize);
void CopyDenseToStrided(const void* dense, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                        void* strided, size_t elementSize);

}  // namespace statefulchat
