// Per-environment data (one per Node/Electron thread that loads the addon): the
// constructors used to make handles from C++.
#pragma once

#include <napi.h>

namespace statefulchat {

struct AddonState {
  Napi::FunctionReference modelConstructor;
  Napi::FunctionReference sessionConstructor;
  static AddonState& Of(Napi::Env env) { return *env.GetInstanceData<AddonState>(); }
};

}  // namespace statefulchat
