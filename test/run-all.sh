#!/usr/bin/env bash
# Every test suite, in order of cost. Each suite installs what it needs (apt, pip, the
# default model) idempotently, so this works on a fresh Linux machine after `npm ci`.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n=== %s ===\n' "$*"; }

step "build and type-check"
npm run build
npm run typecheck

step "default model"
node out/cli.js fetch-model

step "llama.cpp with a persistent threadpool (built once per machine, cached in .cache/llama-build)"
node out/cli.js build-llama --required

step "ggml CPU flash attention: our grouped kernel vs ggml's reference (test-backend-ops, built once, cached in .cache/ggml-op-test)"
node out/cli.js test-flash-attn

step "unit tests (no model)"
npm run test:unit

step "real-model tests (default GGUF)"
npm run test:model

step "VS Code integration tests (real extension host in code-server)"
npm run test:integration

step "end-to-end: the user's path in code-server + Chromium"
npm run test:e2e

step "webview UI in headless Chromium"
bash test/webview/run.sh

step "native addon (C++ unit tests, Objective-C++ type-check, N-API surface)"
npm run test:native

step "Core ML converter (pytest)"
npm run test:models

echo
echo "all test suites passed"
