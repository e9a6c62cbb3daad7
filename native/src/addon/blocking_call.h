// Runs a blocking platform call (compile, load) on libuv's thread pool and settles a
// Promise, so the extension host's JS thread never waits on Core ML.
#pragma once

#include <functional>
#include <memory>

#include <napi.h>

#include "js_errors.h"

namespace statefulchat {

class BlockingCall : public Napi::AsyncWorker {
 public:
  using Work = std::function<void()>;
  // Builds the resolved value on the JS thread once `work` succeeded.
  using Finish = std::function<Napi::Value(Napi::Env)>;

  static Napi::Promise Start(Napi::Env env, Work work, Finish finish);

 private:
  BlockingCall(Napi::Env env, Work work, Finish finish);
  void Execute() override;
  void OnOK() override;
  void OnError(const Napi::Error& error) override;

  Napi::Promise::Deferred deferred_;
  Work work_;
  Finish finish_;
  bool failed_ = false;
  ErrorInfo error_;
};

}  // namespace statefulchat
