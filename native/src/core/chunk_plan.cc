#include "chunk_plan.h"

#include <algorithm>

#include "capacity_guard.h"
#include "native_error.h"

namespace statefulchat {

namespace {
PlannedChunk NextChunk(int64_t remaining, const QueryLengths& lengths, int64_t preferredChunk) {
  if (lengths.isRange) {
    const int64_t cap = std::max<int64_t>(lengths.min, std::min(lengths.max, std::max<int64_t>(1, preferredChunk)));
    const int64_t tokens = std::min(remaining, cap);
    return {tokens, std::max(tokens, lengths.min)};
  }
  // Largest allowed q that does not exceed what is left.
  for (auto it = lengths.allowed.rbegin(); it != lengths.allowed.rend(); ++it) {
    if (*it <= remaining) return {*it, *it};
  }
  // None is small enough: pad the smallest allowed q.
  return {remaining, lengths.allowed.front()};
}
}  // namespace

std::vector<PlannedChunk> PlanChunks(int64_t count, int64_t position, int64_t capacity,
                                     const QueryLengths& lengths, int64_t preferredChunk) {
  EnsureCapacity(position, count, capacity);
  std::vector<PlannedChunk> chunks;
  int64_t cursor = position;
  int64_t remaining = count;
  while (remaining > 0) {
    const PlannedChunk chunk = NextChunk(remaining, lengths, preferredChunk);
    // Padding writes past the logical end; those slots must still exist.
    if (cursor + chunk.queryLength > capacity) {
      throw CapacityError(position, count + (chunk.queryLength - chunk.tokens), capacity);
    }
    chunks.push_back(chunk);
    cursor += chunk.tokens;
    remaining -= chunk.tokens;
  }
  return chunks;
}

}  // namespace statefulchat
