// The hard capacity guard: max_seq_len comes from the state shape, and nothing is ever
// written past it. Checked before a prediction is issued, so a refused call leaves the
// MLState exactly as it was.
#pragma once

#include <cstdint>

namespace statefulchat {

// Throws CapacityError when position + requested > capacity (or on negative inputs).
void EnsureCapacity(int64_t position, int64_t requested, int64_t capacity);

}  // namespace statefulchat
