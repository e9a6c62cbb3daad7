# The Core ML session addon. macOS compiles the Objective-C++ against Core ML; every
# other OS builds the same N-API surface with a stub that reports "Core ML needs macOS 15".
{
  "targets": [
    {
      "target_name": "stateful_chat_coreml",
      "sources": [
        "src/core/capacity_guard.cc",
        "src/core/causal_mask.cc",
        "src/core/chunk_plan.cc",
        "src/core/fp16.cc",
        "src/core/io_names.cc",
        "src/core/logits_reader.cc",
        "src/core/native_error.cc",
        "src/core/sampler.cc",
        "src/core/serial_worker.cc",
        "src/core/session.cc",
        "src/core/shape_constraint.cc",
        "src/core/simulated_model.cc",
        "src/core/snapshot_format.cc",
        "src/core/state_snapshot.cc",
        "src/core/strided_copy.cc",
        "src/core/tensor.cc",
        "src/addon/addon.cc",
        "src/addon/blocking_call.cc",
        "src/addon/js_errors.cc",
        "src/addon/model_wrap.cc",
        "src/addon/session_wrap.cc"
      ],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS", "NODE_ADDON_API_DISABLE_DEPRECATED"],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions", "-fno-rtti"],
      "cflags_cc": ["-std=c++17", "-fexceptions", "-Wall", "-Wextra"],
      "conditions": [
        ["OS=='mac'", {
          "sources": [
            "src/mac/coreml_description.mm",
            "src/mac/coreml_model.mm",
            "src/mac/platform_mac.mm"
          ],
          "link_settings": {
            "libraries": ["-framework CoreML", "-framework Foundation"]
          },
          "xcode_settings": {
            "CLANG_ENABLE_OBJC_ARC": "YES",
            "CLANG_CXX_LANGUAGE_STANDARD": "c++17",
            "GCC_ENABLE_CPP_EXCEPTIONS": "YES",
            "GCC_ENABLE_CPP_RTTI": "YES",
            "MACOSX_DEPLOYMENT_TARGET": "13.0",
            "OTHER_CPLUSPLUSFLAGS": ["-fobjc-arc", "-Werror=unguarded-availability-new"]
          }
        }, {
          "sources": ["src/stub/platform_stub.cc"]
        }]
      ]
    }
  ]
}
