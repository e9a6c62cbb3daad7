// Splits a prefill into predictions the model accepts. Range-shaped models take any q up
// to a chunk size; enumerated (or fixed) shapes take the largest allowed q that fits.
// When no allowed q is small enough for the tail, the chunk *overlaps* instead of padding
// if the cache already holds enough tokens: it starts earlier and re-feeds those tokens,
// which rewrites their slots with the same keys and values, so the chunk's last row is the
// last real token (a model that returns only the last position's logits then still gives
// the right next token). Only at the start of a conversation, with no history to re-feed,
// is the tail padded; padding is exact for the cache for the same reason truncation is
// (slots past the position are masked out and rewritten before anything reads them).
#pragma once

#include <cstdint>
#include <vector>

#include "io_names.h"

namespace statefulchat {

struct PlannedChunk {
  int64_t tokens = 0;       // real new tokens consumed from the input
  int64_t queryLength = 0;  // q sent to the model = overlap + tokens + padding
  int64_t overlap = 0;      // tokens already in the cache, re-fed before the new ones
  int64_t Padding() const { return queryLength - overlap - tokens; }
};

// Plans chunks for `count` tokens written at `position`. `preferredChunk` caps range
// models (a smaller q keeps cancellation within one chunk). Throws CapacityError when the
// padded writes would pass capacity, and NativeError when no allowed q can be used.
std::vector<PlannedChunk> PlanChunks(int64_t count, int64_t position, int64_t capacity,
                                     const QueryLengths& lengths, int64_t preferredChunk);

}  // namespace statefulchat
