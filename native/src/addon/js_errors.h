// Native failures become rejected Promises carrying a stable `code` (and the numbers of a
// capacity refusal), never crashes; the TS layer maps them to its typed errors.
#pragma once

#include <cstdint>
#include <exception>
#include <string>

#include <napi.h>

namespace statefulchat {

struct ErrorInfo {
  std::string code = "engine_failed";
  std::string message;
  bool isCapacity = false;
  int64_t position = 0;
  int64_t requested = 0;
  int64_t capacity = 0;
};

// Captures the currently handled exception (call inside a catch block).
ErrorInfo CaptureCurrentException();

Napi::Error ToJsError(Napi::Env env, const ErrorInfo& info);

}  // namespace statefulchat
