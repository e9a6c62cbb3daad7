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

}  // namespace statefulchat
