#include "session_wrap.h"

#include <algorithm>
#include <cmath>

#include "addon_state.h"

namespace statefulchat {

namespace {
struct SessionSeed {
  std::shared_ptr<StatefulModel> model;
  int64_t preferredChunk;
};

Napi::Error Rejection(Napi::Env env, const char* code, const std::string& message) {
  ErrorInfo info;
  info.code = code;
  info.message = message;
  return ToJsError(env, info);
}

std::optional<SamplingOptions> ReadSampling(const Napi::Value& value) {
  if (!value.IsObject()) return std::nullopt;
  const Napi::Object object = value.As<Napi::Object>();
  SamplingOptions options;
  options.temperature = object.Get("temperature").ToNumber().FloatValue();
  if (object.Get("topP").IsNumber()) options.topP = object.Get("topP").As<Napi::Number>().FloatValue();
  if (object.Get("topK").IsNumber()) options.topK = object.Get("topK").As<Napi::Number>().Int32Value();
  if (object.Get("seed").IsNumber()) {
    const double seed = object.Get("seed").As<Napi::Number>().DoubleValue();
    options.seed = static_cast<uint64_t>(static_cast<int64_t>(std::floor(seed)));
  }
  return options;
}
}  // namespace

Napi::Function SessionWrap::DefineClass(Napi::Env env) {
  return Napi::ObjectWrap<SessionWrap>::DefineClass(
      env, "NativeState",
      {
          InstanceAccessor<&SessionWrap::Position>("position"),
          InstanceAccessor<&SessionWrap::Capacity>("capacity"),
          InstanceAccessor<&SessionWrap::Busy>("busy"),
          InstanceMethod<&SessionWrap::Evaluate>("evaluate"),
          InstanceMethod<&SessionWrap::EvaluateTopK>("evaluateTopK"),
          InstanceMethod<&SessionWrap::Verify>("verify"),
          InstanceMethod<&SessionWrap::Truncate>("truncate"),
          InstanceMethod<&SessionWrap::Reset>("reset"),
          InstanceMethod<&SessionWrap::SaveState>("saveState"),
          InstanceMethod<&SessionWrap::LoadState>("loadState"),
          InstanceMethod<&SessionWrap::Dispose>("dispose"),
      });
}

Napi::Object SessionWrap::NewInstance(Napi::Env env, std::shared_ptr<StatefulModel> model, int64_t preferredChunk) {
  auto* seed = new SessionSeed{std::move(model), preferredChunk};
  auto external = Napi::External<SessionSeed>::New(env, seed, [](Napi::Env, SessionSeed* data) { delete data; });
  return AddonState::Of(env).sessionConstructor.New({external});
}

SessionWrap::SessionWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<SessionWrap>(info) {
  if (info.Length() != 1 || !info[0].IsExternal()) {
    throw Napi::TypeError::New(info.Env(), "NativeState is created by NativeModel.createSession()");
  }
  SessionSeed* seed = info[0].As<Napi::External<SessionSeed>>().Data();
  try {
    // Moved out of the External, which would otherwise hold the model until V8 collects it.
    session_ = std::make_shared<Session>(std::move(seed->model), seed->preferredChunk);  // newState
  } catch (...) {
    throw ToJsError(info.Env(), CaptureCurrentException());
  }
  capacity_ = session_->capacity();
  worker_ = std::make_unique<SerialWorker>();
}

Napi::Value SessionWrap::Position(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(position_->load()));
}

Napi::Value SessionWrap::Capacity(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(capacity_));
}

Napi::Value SessionWrap::Busy(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), worker_->Busy());
}

Napi::Value SessionWrap::Schedule(Napi::Env env, const char* name, Work work) {
  auto deferred = std::make_shared<Napi::Promise::Deferred>(env);
  if (disposed_) {
    deferred->Reject(Rejection(env, "disposed", "The Core ML session was disposed").Value());
    return deferred->Promise();
  }
  auto outcome = std::make_shared<Outcome>();
  auto completion = Napi::ThreadSafeFunction::New(env, Napi::Function::New(env, [](const Napi::CallbackInfo&) {}), name, 0, 1);
  std::shared_ptr<Session> session = session_;
  auto position = position_;
  const bool accepted = worker_->TrySubmit(
      [session, position, outcome, work = std::move(work)] {
        try {
          work(*session, *outcome);
        } catch (...) {
          outcome->failed = true;
          outcome->error = CaptureCurrentException();
        }
        position->store(session->position());
      },
      [completion, deferred, outcome]() mutable {
        completion.BlockingCall([deferred, outcome](Napi::Env callEnv, Napi::Function) {
          if (outcome->failed) {
            deferred->Reject(ToJsError(callEnv, outcome->error).Value());
            return;
          }
          switch (outcome->result) {
            case Outcome::Result::kRanked: {
              Napi::Array top = Napi::Array::New(callEnv, outcome->top.size());
              for (size_t i = 0; i < outcome->top.size(); ++i) {
                Napi::Array pair = Napi::Array::New(callEnv, 2);
                pair.Set(0u, Napi::Number::New(callEnv, outcome->top[i].first));
                pair.Set(1u, Napi::Number::New(callEnv, outcome->top[i].second));
                top.Set(static_cast<uint32_t>(i), pair);
              }
              deferred->Resolve(top);
              return;
            }
            case Outcome::Result::kTokens: {
              Napi::Int32Array tokens = Napi::Int32Array::New(callEnv, outcome->tokens.size());
              std::copy(outcome->tokens.begin(), outcome->tokens.end(), tokens.Data());
              deferred->Resolve(tokens);
              return;
            }
            case Outcome::Result::kNumber:
              deferred->Resolve(Napi::Number::New(callEnv, outcome->value));
              return;
          }
        });
        completion.Release();
      });
  if (!accepted) {
    completion.Release();
    deferred->Reject(Rejection(env, "concurrent_access", "Another operation is already using this session state").Value());
  }
  return deferred->Promise();
}

Napi::Value SessionWrap::Evaluate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsTypedArray() ||
      info[0].As<Napi::TypedArray>().TypedArrayType() != napi_int32_array) {
    throw Napi::TypeError::New(env, "evaluate(tokens: Int32Array, sampling?: object | null)");
  }
  const Napi::Int32Array array = info[0].As<Napi::Int32Array>();
  std::vector<int32_t> tokens(array.Data(), array.Data() + array.ElementLength());  // copied: JS may reuse it
  const std::optional<SamplingOptions> sampling = info.Length() > 1 ? ReadSampling(info[1]) : std::nullopt;
  return Schedule(env, "statefulchat.evaluate", [tokens = std::move(tokens), sampling](Session& session, Outcome& outcome) {
    const auto next = session.Evaluate(tokens, sampling);
    outcome.value = next ? *next : -1;
  });
}

Napi::Value SessionWrap::EvaluateTopK(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsTypedArray() || !info[1].IsNumber() ||
      info[0].As<Napi::TypedArray>().TypedArrayType() != napi_int32_array) {
    throw Napi::TypeError::New(env, "evaluateTopK(tokens: Int32Array, k: number)");
  }
  const Napi::Int32Array array = info[0].As<Napi::Int32Array>();
  std::vector<int32_t> tokens(array.Data(), array.Data() + array.ElementLength());
  const int32_t k = info[1].As<Napi::Number>().Int32Value();
  return Schedule(env, "statefulchat.evaluateTopK", [tokens = std::move(tokens), k](Session& session, Outcome& outcome) {
    outcome.top = session.EvaluateTopK(tokens, k);
    outcome.result = Outcome::Result::kRanked;
  });
}

Napi::Value SessionWrap::Verify(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsTypedArray() || !info[1].IsObject() ||
      info[0].As<Napi::TypedArray>().TypedArrayType() != napi_int32_array) {
    throw Napi::TypeError::New(env, "verify(tokens: Int32Array, sampling: object)");
  }
  const Napi::Int32Array array = info[0].As<Napi::Int32Array>();
  std::vector<int32_t> tokens(array.Data(), array.Data() + array.ElementLength());
  const SamplingOptions sampling = *ReadSampling(info[1]);
  return Schedule(env, "statefulchat.verify", [tokens = std::move(tokens), sampling](Session& session, Outcome& outcome) {
    outcome.tokens = session.Verify(tokens, sampling);
    outcome.result = Outcome::Result::kTokens;
  });
}

Napi::Value SessionWrap::Truncate(const Napi::CallbackInfo& info) {
  const int64_t length = info[0].ToNumber().Int64Value();
  return Schedule(info.Env(), "statefulchat.truncate",
                  [length](Session& session, Outcome&) { session.Truncate(length); });
}

Napi::Value SessionWrap::Reset(const Napi::CallbackInfo& info) {
  return Schedule(info.Env(), "statefulchat.reset", [](Session& session, Outcome&) { session.Reset(); });
}

Napi::Value SessionWrap::SaveState(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsString() || !info[1].IsTypedArray() ||
      info[1].As<Napi::TypedArray>().TypedArrayType() != napi_int32_array) {
    throw Napi::TypeError::New(env, "saveState(path: string, tokens: Int32Array)");
  }
  const std::string path = info[0].As<Napi::String>().Utf8Value();
  const Napi::Int32Array array = info[1].As<Napi::Int32Array>();
  std::vector<int32_t> tokens(array.Data(), array.Data() + array.ElementLength());
  return Schedule(env, "statefulchat.saveState", [path, tokens = std::move(tokens)](Session& session, Outcome& outcome) {
    outcome.value = static_cast<double>(session.SaveState(path, tokens));
  });
}

Napi::Value SessionWrap::LoadState(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) throw Napi::TypeError::New(env, "loadState(path: string)");
  const std::string path = info[0].As<Napi::String>().Utf8Value();
  return Schedule(env, "statefulchat.loadState", [path](Session& session, Outcome& outcome) {
    outcome.tokens = session.LoadState(path);
    outcome.result = Outcome::Result::kTokens;
  });
}

Napi::Value SessionWrap::Dispose(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto deferred = std::make_shared<Napi::Promise::Deferred>(env);
  if (disposed_) {
    deferred->Resolve(env.Undefined());  // idempotent
    return deferred->Promise();
  }
  disposed_ = true;
  auto completion = Napi::ThreadSafeFunction::New(env, Napi::Function::New(env, [](const Napi::CallbackInfo&) {}),
                                                  "statefulchat.dispose", 0, 1);
  // Release the MLState on the worker, after any prediction still running.
  auto session = std::move(session_);
  worker_->SubmitFinal([session = std::move(session), completion, deferred]() mutable {
    session.reset();
    completion.BlockingCall([deferred](Napi::Env callEnv, Napi::Function) { deferred->Resolve(callEnv.Undefined()); });
    completion.Release();
  });
  return deferred->Promise();
}

}  // namespace statefulchat
