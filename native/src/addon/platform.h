// What each platform provides under the N-API surface: the Core ML implementation on
// macOS (src/mac), and a stub everywhere else (src/stub) that explains why not.
#pragma once

#include <memory>
#include <string>

#include "../core/stateful_model.h"

namespace statefulchat {

struct PlatformSupport {
  bool supported = false;
  std::string reason;  // set when unsupported, e.g. "Core ML needs macOS 15"
};

struct LoadOptions {
  // "cpuAndNeuralEngine" | "all" | "cpuAndGPU" | "cpuOnly" ("auto" is resolved in TS).
  std::string computeUnits = "cpuAndNeuralEngine";
  // Multifunction models: the functions used for prefill (q > 1) and decode (q == 1).
  // Empty means the model's default function serves both.
  std::string prefillFunction;
  std::string decodeFunction;
};

PlatformSupport CheckPlatformSupport();

// Loads a compiled .mlmodelc. Blocking: called from a worker thread. Throws NativeError.
std::shared_ptr<StatefulModel> LoadPlatformModel(const std::string& compiledPath, const LoadOptions& options);

// Compiles a .mlpackage into `destinationPath` (a .mlmodelc folder that must not exist).
// Blocking: called from a worker thread. Throws NativeError.
void CompilePlatformModel(const std::string& sourcePath, const std::string& destinationPath);

}  // namespace statefulchat
