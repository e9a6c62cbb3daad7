// macOS: availability check, compilation of .mlpackage, and loading with compute units.
#include "../addon/platform.h"

#import <CoreML/CoreML.h>

#include <exception>
#include <future>

#include "../core/native_error.h"
#include "coreml_errors.h"
#include "coreml_model.h"

namespace statefulchat {

namespace {
std::string OperatingSystemVersion() {
  NSString* version = [NSProcessInfo processInfo].operatingSystemVersionString;
  return version.UTF8String ? version.UTF8String : "unknown";
}

std::string Unavailable() { return "Core ML needs macOS 15 (this is macOS " + OperatingSystemVersion() + ")"; }

MLComputeUnits ParseComputeUnits(const std::string& name) {
  if (name == "cpuAndNeuralEngine") return MLComputeUnitsCPUAndNeuralEngine;
  if (name == "all") return MLComputeUnitsAll;
  if (name == "cpuAndGPU") return MLComputeUnitsCPUAndGPU;
  if (name == "cpuOnly") return MLComputeUnitsCPUOnly;
  throw NativeError(ErrorCode::kModelInvalid, "unknown compute units '" + name + "' (\"auto\" is resolved before loading)");
}

MLModel* LoadFunction(NSURL* url, MLComputeUnits units, const std::string& functionName) {
  MLModelConfiguration* configuration = [[MLModelConfiguration alloc] init];
  configuration.computeUnits = units;
  if (!functionName.empty()) {
    if (@available(macOS 15.0, *)) configuration.functionName = ToNSString(functionName);
  }
  NSError* error = nil;
  MLModel* model = [MLModel modelWithContentsOfURL:url configuration:configuration error:&error];
  if (model == nil) {
    const std::string what = functionName.empty() ? "cannot load the Core ML model" : "cannot load function '" + functionName + "'";
    throw CoreMLFailure(ErrorCode::kModelLoadFailed, what, error);
  }
  return model;
}
}  // namespace

PlatformSupport CheckPlatformSupport() {
  if (@available(macOS 15.0, *)) return PlatformSupport{true, ""};
  return PlatformSupport{false, Unavailable()};
}

std::shared_ptr<StatefulModel> LoadPlatformModel(const std::string& compiledPath, const LoadOptions& options) {
  if (@available(macOS 15.0, *)) {
    std::shared_ptr<StatefulModel> loaded;
    std::exception_ptr failure;
    @autoreleasepool {
      try {
        const MLComputeUnits units = ParseComputeUnits(options.computeUnits);
        NSURL* url = [NSURL fileURLWithPath:ToNSString(compiledPath)];
        const bool multifunction = !options.prefillFunction.empty() && !options.decodeFunction.empty();
        MLModel* prefill = LoadFunction(url, units, multifunction ? options.prefillFunction : "");
        MLModel* decode = multifunction ? LoadFunction(url, units, options.decodeFunction) : nil;
        std::string details = "computeUnits=" + options.computeUnits;
        if (multifunction) details += ", functions=" + options.prefillFunction + "/" + options.decodeFunction;
        loaded = std::make_shared<CoreMLModel>(prefill, decode, details);
      } catch (...) {
        failure = std::current_exception();
      }
    }
    if (failure) std::rethrow_exception(failure);
    return loaded;
  }
  throw NativeError(ErrorCode::kBackendUnavailable, Unavailable());
}

void CompilePlatformModel(const std::string& sourcePath, const std::string& destinationPath) {
  if (@available(macOS 15.0, *)) {
    // The completion handler runs on a Core ML queue; this worker thread waits for it.
    auto outcome = std::make_shared<std::promise<std::string>>();  // "" on success, else the error
    std::future<std::string> finished = outcome->get_future();
    const std::string packagePath = sourcePath;  // blocks copy values; never capture references
    @autoreleasepool {
      NSURL* source = [NSURL fileURLWithPath:ToNSString(sourcePath)];
      NSURL* destination = [NSURL fileURLWithPath:ToNSString(destinationPath)];
      [MLModel compileModelAtURL:source
               completionHandler:^(NSURL* _Nullable compiled, NSError* _Nullable error) {
                 if (compiled == nil) {
                   outcome->set_value("cannot compile " + packagePath + ": " + DescribeNSError(error));
                   return;
                 }
                 // The compiled model lives in a temporary folder: move it where the cache wants it.
                 NSError* moveError = nil;
                 if (![[NSFileManager defaultManager] moveItemAtURL:(NSURL*)compiled toURL:destination error:&moveError]) {
                   outcome->set_value("cannot move the compiled model: " + DescribeNSError(moveError));
                   return;
                 }
                 outcome->set_value("");
               }];
    }
    const std::string error = finished.get();
    if (!error.empty()) throw NativeError(ErrorCode::kModelInvalid, error);
    return;
  }
  throw NativeError(ErrorCode::kBackendUnavailable, Unavailable());
}

}  // namespace statefulchat
