// Splits a prefill into predictions the model accepts. Range-shaped models take any q up
// to a chunk size; enumerated (or fixed) shapes take the largest allowed q that fits, and
// pad the final chunk when no allowed q is small enough. Padding is exact for the same
// reason truncation is: slots past the logical position are masked out and rewritten
// before anything reads them.
#pragma once

#include <cstdint>
#include <vector>

#include "io_names.h"

namespace statefulchat {

struct PlannedChunk {
  int64_t tokens = 0;       // real tokens consumed from the input
  int64_t queryLength = 0;  // q sent to the model (>= tokens when padded)
};

// Plans chunks for `count` tokens written at `position`. `preferredChunk` caps range
// models (a smaller q keeps cancellation within one chunk). Throws CapacityError when the
// padded writes would pass capacity, and NativeError when no allowed q can be used.
std::vector<PlannedChunk> PlanChunks(int64_t count, int64_t position, int64_t capacity,
                                     const QueryLengths& lengths, int64_t preferredChunk);

}  // namespace statefulchat
