#include "native_error.h"

namespace statefulchat {

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kBackendUnavailable: return "backend_unavailable";
    case ErrorCode::kModelInvalid: return "model_invalid";
    case ErrorCode::kModelLoadFailed: return "model_load_failed";
    case ErrorCode::kCapacityExceeded: return "capacity_exceeded";
    case ErrorCode::kConcurrentAccess: return "concurrent_access";
    case ErrorCode::kDisposed: return "disposed";
    case ErrorCode::kEngineFailed: return "engine_failed";
    case ErrorCode::kSnapshotMismatch: return "snapshot_mismatch";
  }
  return "engine_failed";
}

CapacityError::CapacityError(int64_t position, int64_t requested, int64_t capacity)
    : NativeError(ErrorCode::kCapacityExceeded,
                  "Refusing to write " + std::to_string(requested) + " tokens at position " +
                      std::to_string(position) + ": capacity is " + std::to_string(capacity)),
      position_(position),
      requested_(requested),
      capacity_(capacity) {}

}  // namespace statefulchat
