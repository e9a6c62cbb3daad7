// Module entry of the Core ML session addon. N-API only (node-addon-api), so one binary
// serves VS Code's Electron and plain Node. The surface is declared for TypeScript in
// src/extension/backends/coreml/addon.ts; test/native checks the two agree.
#include <napi.h>

#include "../core/simulated_model.h"
#include "addon_state.h"
#include "blocking_call.h"
#include "js_errors.h"
#include "model_wrap.h"
#include "platform.h"
#include "session_wrap.h"

namespace statefulchat {

namespace {
constexpr int kSurfaceVersion = 4;  // 3: saveState / loadState on sessions; 4: verify

std::string OptionalString(const Napi::Object& object, const char* key, const std::string& fallback) {
  const Napi::Value value = object.Get(key);
  return value.IsString() ? value.As<Napi::String>().Utf8Value() : fallback;
}

DType ParseDType(const Napi::Object& object, const char* key, DType fallback) {
  const std::string name = OptionalString(object, key, "");
  if (name == "float16") return DType::kFloat16;
  if (name == "float32") return DType::kFloat32;
  return fallback;
}

Napi::Value PlatformSupportJs(const Napi::CallbackInfo& info) {
  const PlatformSupport support = CheckPlatformSupport();
  Napi::Object result = Napi::Object::New(info.Env());
  result.Set("supported", support.supported);
  if (!support.supported) result.Set("reason", support.reason);
  return result;
}

Napi::Value LiveModelCountJs(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(StatefulModel::LiveCount()));
}

Napi::Value LoadModelJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) throw Napi::TypeError::New(env, "loadModel(compiledPath, options?)");
  const std::string path = info[0].As<Napi::String>().Utf8Value();
  LoadOptions options;
  if (info.Length() > 1 && info[1].IsObject()) {
    const Napi::Object object = info[1].As<Napi::Object>();
    options.computeUnits = OptionalString(object, "computeUnits", options.computeUnits);
    options.prefillFunction = OptionalString(object, "prefillFunction", "");
    options.decodeFunction = OptionalString(object, "decodeFunction", "");
  }
  auto loaded = std::make_shared<std::shared_ptr<StatefulModel>>();
  return BlockingCall::Start(
      env, [path, options, loaded] { *loaded = LoadPlatformModel(path, options); },
      [loaded](Napi::Env callEnv) -> Napi::Value { return ModelWrap::NewInstance(callEnv, *loaded); });
}

Napi::Value CompileModelJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsString() || !info[1].IsString()) {
    throw Napi::TypeError::New(env, "compileModel(packagePath, destinationPath)");
  }
  const std::string source = info[0].As<Napi::String>().Utf8Value();
  const std::string destination = info[1].As<Napi::String>().Utf8Value();
  return BlockingCall::Start(
      env, [source, destination] { CompilePlatformModel(source, destination); },
      [](Napi::Env callEnv) -> Napi::Value { return callEnv.Undefined(); });
}

// A deterministic stand-in with Core ML's stateful contract, for tests of everything
// above the framework (N-API surface, serial worker, TS backend) on any OS.
Napi::Value CreateSimulatedModelJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  SimulatedModelSpec spec;
  if (info.Length() > 0 && info[0].IsObject()) {
    const Napi::Object object = info[0].As<Napi::Object>();
    if (object.Get("vocabSize").IsNumber()) spec.vocabSize = object.Get("vocabSize").ToNumber().Int64Value();
    if (object.Get("capacity").IsNumber()) spec.capacity = object.Get("capacity").ToNumber().Int64Value();
    if (object.Get("logitsRowPadding").IsNumber()) spec.logitsRowPadding = object.Get("logitsRowPadding").ToNumber().Int64Value();
    if (object.Get("predictDelayMs").IsNumber()) spec.predictDelayMs = object.Get("predictDelayMs").ToNumber().Int64Value();
    if (object.Get("failOnPrediction").IsNumber()) spec.failOnPrediction = object.Get("failOnPrediction").ToNumber().Int64Value();
    if (object.Get("maskRowsFixed").IsNumber()) spec.maskRowsFixed = object.Get("maskRowsFixed").ToNumber().Int64Value();
    spec.camelCaseNames = object.Get("camelCaseNames").ToBoolean();
    spec.maskWidthFixed = object.Get("maskWidthFixed").ToBoolean();
    spec.positionInput = object.Get("positionInput").ToBoolean();
    spec.lastLogitsOnly = object.Get("lastLogitsOnly").ToBoolean();
    spec.decodeFunction = object.Get("decodeMaskType").IsString();
    spec.decodeMaskType = ParseDType(object, "decodeMaskType", spec.maskType);
    spec.maskType = ParseDType(object, "maskType", spec.maskType);
    spec.logitsType = ParseDType(object, "logitsType", spec.logitsType);
    spec.stateType = ParseDType(object, "stateType", spec.stateType);
    if (object.Get("queryLengths").IsArray()) {
      const Napi::Array allowed = object.Get("queryLengths").As<Napi::Array>();
      spec.queryLengths.isRange = false;
      for (uint32_t i = 0; i < allowed.Length(); ++i) {
        spec.queryLengths.allowed.push_back(allowed.Get(i).ToNumber().Int64Value());
      }
      std::sort(spec.queryLengths.allowed.begin(), spec.queryLengths.allowed.end());
    }
  }
  if (spec.vocabSize < 2 || spec.capacity < 1 ||
      (!spec.queryLengths.isRange && spec.queryLengths.allowed.empty())) {
    throw Napi::RangeError::New(env, "createSimulatedModel: vocabSize >= 2, capacity >= 1, queryLengths non-empty");
  }
  std::shared_ptr<StatefulModel> model;
  try {
    model = std::make_shared<SimulatedModel>(spec);  // validates its I/O like a loaded model
  } catch (...) {
    throw ToJsError(env, CaptureCurrentException());
  }
  return ModelWrap::NewInstance(env, std::move(model));
}
}  // namespace

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto* state = new AddonState();
  state->modelConstructor = Napi::Persistent(ModelWrap::DefineClass(env));
  state->sessionConstructor = Napi::Persistent(SessionWrap::DefineClass(env));
  env.SetInstanceData<AddonState>(state);  // deleted by N-API when the environment ends

  exports.Set("surfaceVersion", Napi::Number::New(env, kSurfaceVersion));
  exports.Set("platformSupport", Napi::Function::New(env, PlatformSupportJs, "platformSupport"));
  exports.Set("liveModelCount", Napi::Function::New(env, LiveModelCountJs, "liveModelCount"));
  exports.Set("loadModel", Napi::Function::New(env, LoadModelJs, "loadModel"));
  exports.Set("compileModel", Napi::Function::New(env, CompileModelJs, "compileModel"));
  exports.Set("createSimulatedModel", Napi::Function::New(env, CreateSimulatedModelJs, "createSimulatedModel"));
  return exports;
}

NODE_API_MODULE(stateful_chat_coreml, Init)

}  // namespace statefulchat
