// Errors that cross from the native session into JS. `code` mirrors the TypeScript
// ErrorCode values (src/extension/core/errors.ts) so the TS layer can map them 1:1.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace statefulchat {

enum class ErrorCode {
  kBackendUnavailable,  // "backend_unavailable"
  kModelInvalid,        // "model_invalid"
  kModelLoadFailed,     // "model_load_failed"
  kCapacityExceeded,    // "capacity_exceeded"
  kConcurrentAccess,    // "concurrent_access"
  kDisposed,            // "disposed"
  kEngineFailed,        // "engine_failed"
  // A KV snapshot file that does not fit this model (magic, version, state names, shapes,
  // dtypes, token count or size): refused before any state is touched. Native only: the
  // TS side maps it onto a typed error of the backend.
  kSnapshotMismatch,    // "snapshot_mismatch"
};

const char* ErrorCodeName(ErrorCode code);

class NativeError : public std::runtime_error {
 public:
  NativeError(ErrorCode code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

// Thrown before any state is touched: the write would pass max_seq_len.
class CapacityError : public NativeError {
 public:
  CapacityError(int64_t position, int64_t requested, int64_t capacity);
  int64_t position() const { return position_; }
  int64_t requested() const { return requested_; }
  int64_t capacity() const { return capacity_; }

 private:
  int64_t position_;
  int64_t requested_;
  int64_t capacity_;
};

}  // namespace statefulchat
