// The cmake options of our local llama.cpp build (see native/llama-threadpool/). node-llama-cpp
// names a local build after its cmake options, so the loader asks for exactly these to find
// it, and falls back to the prebuilt binary when it is absent. OpenMP stays off: the patched
// addon attaches its own persistent ggml threadpool instead.
export const FAST_BUILD_CMAKE_OPTIONS: Readonly<Record<string, string>> = { GGML_OPENMP: "OFF" };
