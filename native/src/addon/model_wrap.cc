#include "model_wrap.h"

#include "../core/native_error.h"
#include "addon_state.h"
#include "js_errors.h"
#include "session_wrap.h"

namespace statefulchat {

namespace {
constexpr int64_t kDefaultPrefillChunk = 128;

Napi::Object DescribeQueryLengths(Napi::Env env, const QueryLengths& lengths) {
  Napi::Object object = Napi::Object::New(env);
  if (lengths.isRange) {
    object.Set("kind", "range");
    object.Set("min", Napi::Number::New(env, static_cast<double>(lengths.min)));
    object.Set("max", Napi::Number::New(env, static_cast<double>(lengths.max)));
  } else {
    object.Set("kind", "enumerated");
    Napi::Array allowed = Napi::Array::New(env, lengths.allowed.size());
    for (size_t i = 0; i < lengths.allowed.size(); ++i) {
      allowed.Set(static_cast<uint32_t>(i), Napi::Number::New(env, static_cast<double>(lengths.allowed[i])));
    }
    object.Set("allowed", allowed);
  }
  return object;
}
}  // namespace

Napi::Function ModelWrap::DefineClass(Napi::Env env) {
  return Napi::ObjectWrap<ModelWrap>::DefineClass(env, "NativeModel",
                                                   {
                                                       InstanceMethod<&ModelWrap::Info>("info"),
                                                       InstanceMethod<&ModelWrap::CreateSession>("createSession"),
                                                       InstanceMethod<&ModelWrap::Dispose>("dispose"),
                                                   });
}

Napi::Object ModelWrap::NewInstance(Napi::Env env, std::shared_ptr<StatefulModel> model) {
  auto* holder = new std::shared_ptr<StatefulModel>(std::move(model));
  auto external = Napi::External<std::shared_ptr<StatefulModel>>::New(
      env, holder, [](Napi::Env, std::shared_ptr<StatefulModel>* data) { delete data; });
  return AddonState::Of(env).modelConstructor.New({external});
}

ModelWrap::ModelWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<ModelWrap>(info) {
  if (info.Length() != 1 || !info[0].IsExternal()) {
    throw Napi::TypeError::New(info.Env(), "NativeModel is created by loadModel() or createSimulatedModel()");
  }
  // Moved, not copied: a copy left in the External would keep the model (weights, ANE/GPU
  // resources) alive after dispose() until V8 happens to collect the External.
  model_ = std::move(*info[0].As<Napi::External<std::shared_ptr<StatefulModel>>>().Data());
}

Napi::Value ModelWrap::Info(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!model_) throw Napi::Error::New(env, "The Core ML model was disposed");
  const ModelIO& io = model_->io();
  Napi::Object object = Napi::Object::New(env);
  object.Set("capacity", Napi::Number::New(env, static_cast<double>(io.capacity)));
  object.Set("inputIds", io.inputIds);
  object.Set("causalMask", io.causalMask);
  object.Set("causalMaskType", DTypeName(io.causalMaskType));
  object.Set("keyCache", io.keyCache);
  object.Set("valueCache", io.valueCache);
  object.Set("logits", io.logits);
  object.Set("queryLengths", DescribeQueryLengths(env, io.queryLengths));
  object.Set("details", model_->Details());
  return object;
}

Napi::Value ModelWrap::CreateSession(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!model_) {
    ErrorInfo error;
    error.code = "disposed";
    error.message = "The Core ML model was disposed";
    throw ToJsError(env, error);
  }
  int64_t chunk = kDefaultPrefillChunk;
  if (info.Length() > 0 && info[0].IsObject()) {
    const Napi::Value preferred = info[0].As<Napi::Object>().Get("prefillChunk");
    if (preferred.IsNumber()) chunk = std::max<int64_t>(1, preferred.As<Napi::Number>().Int64Value());
  }
  return SessionWrap::NewInstance(env, model_, chunk);
}

Napi::Value ModelWrap::Dispose(const Napi::CallbackInfo& info) {
  model_.reset();
  return info.Env().Undefined();
}

}  // namespace statefulchat
