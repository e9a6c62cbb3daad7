#include "capacity_guard.h"

#include "native_error.h"

namespace statefulchat {

void EnsureCapacity(int64_t position, int64_t requested, int64_t capacity) {
  if (position < 0 || requested < 0 || position + requested > capacity) {
    throw CapacityError(position, requested, capacity);
  }
}

}  // namespace statefulchat
