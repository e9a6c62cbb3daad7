// JS handle of one loaded model, shared by every session (panel) of an engine.
#pragma once

#include <memory>

#include <napi.h>

#include "../core/stateful_model.h"

namespace statefulchat {

class ModelWrap : public Napi::ObjectWrap<ModelWrap> {
 public:
  static Napi::Function DefineClass(Napi::Env env);
  static Napi::Object NewInstance(Napi::Env env, std::shared_ptr<StatefulModel> model);
  explicit ModelWrap(const Napi::CallbackInfo& info);

 private:
  Napi::Value Info(const Napi::CallbackInfo& info);
  Napi::Value CreateSession(const Napi::CallbackInfo& info);
  Napi::Value Dispose(const Napi::CallbackInfo& info);

  // Sessions hold their own reference: disposing the handle frees the model once the
  // last session is gone.
  std::shared_ptr<StatefulModel> model_;
};

}  // namespace statefulchat
