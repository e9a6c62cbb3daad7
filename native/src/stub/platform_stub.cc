// Every platform but macOS: the addon builds, loads and answers, and says plainly that
// Core ML is not here, so the backend picker can fall back to llama.cpp visibly.
#include "../addon/platform.h"
#include "../core/native_error.h"

namespace statefulchat {

namespace {
const char kReason[] = "Core ML needs macOS 15 (this system is not macOS)";
}

PlatformSupport CheckPlatformSupport() { return PlatformSupport{false, kReason}; }

std::shared_ptr<StatefulModel> LoadPlatformModel(const std::string&, const LoadOptions&) {
  throw NativeError(ErrorCode::kBackendUnavailable, kReason);
}

void CompilePlatformModel(const std::string&, const std::string&) {
  throw NativeError(ErrorCode::kBackendUnavailable, kReason);
}

}  // namespace statefulchat
