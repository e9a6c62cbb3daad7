#include "chunk_plan.h"

#include <algorithm>

#include "capacity_guard.h"
#include "native_error.h"

namespace statefulchat {

namespace {
// Real tokens and q, before deciding between overlap and padding.
PlannedChunk NextChunk(int64_t remaining, int64_t cursor, const QueryLengths& lengths, int64_t preferredChunk) {
  if (lengths.isRange) {
    const int64_t cap = std::max<int64_t>(lengths.min, std::min(lengths.max, std::max<int64_t>(1, preferredChunk)));
    const int64_t tokens = std::min(remaining, cap);
    return {tokens, std::max(tokens, lengths.min), 0};
  }
  // A tail shorter than the largest q: one overlapping prediction of the smallest q that
  // holds it (e.g. 64 for a 5-token tail of a {1, 64} model) beats many small ones.
  if (remaining < lengths.allowed.back()) {
    const auto fits = std::lower_bound(lengths.allowed.begin(), lengths.allowed.end(), remaining);
    if (*fits == remaining || cursor >= *fits - remaining) return {remaining, *fits, 0};
  }
  // Largest allowed q that does not exceed what is left.
  for (auto it = lengths.allowed.rbegin(); it != lengths.allowed.rend(); ++it) {
    if (*it <= remaining) return {*it, *it, 0};
  }
  // None is small enough: the smallest allowed q, filled by overlap or padding.
  return {remaining, lengths.allowed.front(), 0};
}
}  // namespace

std::vector<PlannedChunk> PlanChunks(int64_t count, int64_t position, int64_t capacity,
                                     const QueryLengths& lengths, int64_t preferredChunk) {
  EnsureCapacity(position, count, capacity);
  std::vector<PlannedChunk> chunks;
  int64_t cursor = position;
  int64_t remaining = count;
  while (remaining > 0) {
    PlannedChunk chunk = NextChunk(remaining, cursor, lengths, preferredChunk);
    const int64_t extra = chunk.queryLength - chunk.tokens;
    if (extra > 0 && cursor >= extra) {
      chunk.overlap = extra;
    } else if (cursor + chunk.queryLength > capacity) {
      // Padding writes past the logical end; those slots must still exist.
      throw CapacityError(position, count + extra, capacity);
    }
    chunks.push_back(chunk);
    cursor += chunk.tokens;
    remaining -= chunk.tokens;
  }
  return chunks;
}

}  // namespace statefulchat
