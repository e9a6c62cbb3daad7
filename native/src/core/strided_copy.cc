#include "strided_copy.h"

#include <cstring>

namespace statefulchat {

void CopyIntoStrided(void* destination, int64_t rowStride, int64_t columnStride, const void* source,
                     int64_t rows, int64_t columns, size_t elementSize) {
  auto* out = static_cast<uint8_t*>(destination);
  const auto* in = static_cast<const uint8_t*>(source);
  for (int64_t row = 0; row < rows; ++row) {
    if (columnStride == 1) {  // the common dense case: one memcpy per row
      std::memcpy(out + static_cast<size_t>(row * rowStride) * elementSize,
                  in + static_cast<size_t>(row * columns) * elementSize, static_cast<size_t>(columns) * elementSize);
      continue;
    }
    for (int64_t column = 0; column < columns; ++column) {
      std::memcpy(out + static_cast<size_t>(row * rowStride + column * columnStride) * elementSize,
                  in + static_cast<size_t>(row * columns + column) * elementSize, elementSize);
    }
  }
}

namespace {
bool IsRowMajor(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides) {
  int64_t expected = 1;
  for (size_t axis = shape.size(); axis-- > 0;) {
    if (shape[axis] != 1 && strides[axis] != expected) return false;
    expected *= shape[axis];
  }
  return true;
}

// Walks every element in row-major order; `toDense` picks the direction.
void CopyNd(uint8_t* strided, uint8_t* dense, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
            size_t elementSize, bool toDense) {
  int64_t count = 1;
  for (int64_t size : shape) count *= size;
  if (count == 0) return;
  if (IsRowMajor(shape, strides)) {
    const size_t bytes = static_cast<size_t>(count) * elementSize;
    toDense ? std::memcpy(dense, strided, bytes) : std::memcpy(strided, dense, bytes);
    return;
  }
  // Runs of the last axis are contiguous when its stride is 1 (padding sits between
  // rows): one memcpy per run, else one per element.
  const bool denseRuns = !shape.empty() && strides.back() == 1;
  const size_t outerRank = denseRuns ? shape.size() - 1 : shape.size();
  const size_t runBytes = (denseRuns ? static_cast<size_t>(shape.back()) : 1) * elementSize;
  const int64_t runs = denseRuns ? count / shape.back() : count;
  std::vector<int64_t> index(outerRank, 0);
  for (int64_t run = 0; run < runs; ++run) {
    int64_t offset = 0;
    for (size_t axis = 0; axis < outerRank; ++axis) offset += index[axis] * strides[axis];
    uint8_t* at = strided + static_cast<size_t>(offset) * elementSize;
    uint8_t* flat = dense + static_cast<size_t>(run) * runBytes;
    toDense ? std::memcpy(flat, at, runBytes) : std::memcpy(at, flat, runBytes);
    for (size_t axis = outerRank; axis-- > 0;) {
      if (++index[axis] < shape[axis]) break;
      index[axis] = 0;
    }
  }
}
}  // namespace

int64_t StridedExtent(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides) {
  int64_t last = 0;
  for (size_t axis = 0; axis < shape.size() && axis < strides.size(); ++axis) {
    if (shape[axis] == 0) return 0;
    last += (shape[axis] - 1) * strides[axis];
  }
  return last + 1;
}

void CopyStridedToDense(const void* strided, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                        void* dense, size_t elementSize) {
  CopyNd(static_cast<uint8_t*>(const_cast<void*>(strided)), static_cast<uint8_t*>(dense), shape, strides, elementSize, true);
}

void CopyDenseToStrided(const void* dense, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                        void* strided, size_t elementSize) {
  CopyNd(static_cast<uint8_t*>(strided), static_cast<uint8_t*>(const_cast<void*>(dense)), shape, strides, elementSize, false);
}

}  // namespace statefulchat
