#include "js_errors.h"

#include "../core/native_error.h"

namespace statefulchat {

ErrorInfo CaptureCurrentException() {
  ErrorInfo info;
  try {
    throw;
  } catch (const CapacityError& error) {
    info.code = ErrorCodeName(error.code());
    info.message = error.what();
    info.isCapacity = true;
    info.position = error.position();
    info.requested = error.requested();
    info.capacity = error.capacity();
  } catch (const NativeError& error) {
    info.code = ErrorCodeName(error.code());
    info.message = error.what();
  } catch (const std::exception& error) {
    info.message = error.what();
  } catch (...) {
    info.message = "unknown native failure";
  }
  return info;
}

Napi::Error ToJsError(Napi::Env env, const ErrorInfo& info) {
  Napi::Error error = Napi::Error::New(env, info.message);
  error.Set("code", Napi::String::New(env, info.code));
  if (info.isCapacity) {
    error.Set("position", Napi::Number::New(env, static_cast<double>(info.position)));
    error.Set("requested", Napi::Number::New(env, static_cast<double>(info.requested)));
    error.Set("capacity", Napi::Number::New(env, static_cast<double>(info.capacity)));
  }
  return error;
}

}  // namespace statefulchat
