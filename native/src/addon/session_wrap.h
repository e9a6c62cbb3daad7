// JS handle of one Session. Every call runs on the session's own SerialWorker and settles
// a Promise through a thread-safe function; a call made while another is in flight is
// rejected with code "concurrent_access" (the worker refuses it, not just the TS queue).
#pragma once

#include <atomic>
#include <memory>

#include <napi.h>

#include "../core/serial_worker.h"
#include "../core/session.h"
#include "js_errors.h"

namespace statefulchat {

class SessionWrap : public Napi::ObjectWrap<SessionWrap> {
 public:
  static Napi::Function DefineClass(Napi::Env env);
  static Napi::Object NewInstance(Napi::Env env, std::shared_ptr<StatefulModel> model, int64_t preferredChunk);
  explicit SessionWrap(const Napi::CallbackInfo& info);

 private:
  struct Outcome {
    // What the Promise resolves with: `value`, `top` (evaluateTopK) or `tokens` (verify, loadState).
    enum class Result { kNumber, kRanked, kTokens };
    bool failed = false;
    ErrorInfo error;
    Result result = Result::kNumber;
    double value = -1;  // evaluate: sampled token or -1; saveState: the file's size
    std::vector<std::pair<int32_t, double>> top;
    std::vector<int32_t> tokens;
  };
  using Work = std::function<void(Session&, Outcome&)>;

  Napi::Value Position(const Napi::CallbackInfo& info);
  Napi::Value Capacity(const Napi::CallbackInfo& info);
  Napi::Value Busy(const Napi::CallbackInfo& info);
  Napi::Value Evaluate(const Napi::CallbackInfo& info);
  Napi::Value EvaluateTopK(const Napi::CallbackInfo& info);
  Napi::Value Verify(const Napi::CallbackInfo& info);
  Napi::Value Truncate(const Napi::CallbackInfo& info);
  Napi::Value Reset(const Napi::CallbackInfo& info);
  Napi::Value SaveState(const Napi::CallbackInfo& info);
  Napi::Value LoadState(const Napi::CallbackInfo& info);
  Napi::Value Dispose(const Napi::CallbackInfo& info);

  Napi::Value Schedule(Napi::Env env, const char* name, Work work);

  std::shared_ptr<Session> session_;
  std::shared_ptr<std::atomic<int64_t>> position_ = std::make_shared<std::atomic<int64_t>>(0);
  int64_t capacity_ = 0;
  bool disposed_ = false;
  // Declared last: destroyed first, so the worker thread is joined before the session goes.
  std::unique_ptr<SerialWorker> worker_;
};

}  // namespace statefulchat
