#include "blocking_call.h"

namespace statefulchat {

Napi::Promise BlockingCall::Start(Napi::Env env, Work work, Finish finish) {
  auto* call = new BlockingCall(env, std::move(work), std::move(finish));  // deletes itself
  Napi::Promise promise = call->deferred_.Promise();
  call->Queue();
  return promise;
}

BlockingCall::BlockingCall(Napi::Env env, Work work, Finish finish)
    : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)), work_(std::move(work)), finish_(std::move(finish)) {}

void BlockingCall::Execute() {
  try {
    work_();
  } catch (...) {
    failed_ = true;
    error_ = CaptureCurrentException();
  }
}

void BlockingCall::OnOK() {
  if (failed_) {
    deferred_.Reject(ToJsError(Env(), error_).Value());
    return;
  }
  try {
    deferred_.Resolve(finish_(Env()));
  } catch (const Napi::Error& error) {
    deferred_.Reject(error.Value());
  }
}

void BlockingCall::OnError(const Napi::Error& error) { deferred_.Reject(error.Value()); }

}  // namespace statefulchat
