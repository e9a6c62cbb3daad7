#!/usr/bin/env bash
# Every test suite, in order of cost. Each suite installs what it needs (apt, pip, the
# default model) idempotently, so this works on a fresh Linux machine after `npm ci`.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step prints the time since the start, so a slow CI run says where its minutes went.
STARTED=$SECONDS
# A failed step ends the run: the builds and suites still running in the background end with it
# (each with its whole process tree: npm, cmake, make, the compilers, pytest).
kill_tree() {
  local child
  for child in $(pgrep -P "$1" || true); do kill_tree "$child"; done
  kill "$1" 2>/dev/null || true
}
trap 'for job in $(jobs -p); do kill_tree "$job"; done' EXIT
step() { printf '\n=== [+%dm%02ds] %s ===\n' $(((SECONDS - STARTED) / 60)) $(((SECONDS - STARTED) % 60)) "$*"; }
# Waits for a job started in the background, prints its logs, and ends the run if it failed.
await_job() {
  local pid=$1 what=$2 status=0
  shift 2
  wait "$pid" || status=$?
  cat "$@" 2>/dev/null || true
  if [ "$status" != 0 ]; then
    echo "$what failed" >&2
    exit 1
  fi
}

step "build and type-check"
npm run build
npm run typecheck

# ESLint (typescript-eslint's type-aware rules, no import cycles in the product) and knip (no
# unused exports): eslint.config.mjs and knip.jsonc. About 40 s on two cores.
step "lint"
npm run lint

step "default model"
node out/cli.js fetch-model

# The Core ML converter's toolchain (torch and its CUDA wheels, ~3 GB) is mostly a download:
# fetched in the background while the steps below compile and test. Then its tests (pytest,
# about 5 min of torch tracing and conversion, nothing timed) run there too, at the lowest
# priority, on the cycles the suites below leave idle; their result is waited for further down.
step "Core ML converter: toolchain install (models/.venv, cached), then pytest at nice 19, in the background"
mkdir -p .cache
(bash models/test.sh --install-only > .cache/models-install.log 2>&1 && MODELS_TEST_TIMEOUT=3600 nice -n 19 npm run test:models > .cache/models-test.log 2>&1) &
MODELS_TESTS=$!

# Node 24 + code-server (and Debian's chromium) for the integration and e2e suites: npm
# downloads and the kerberos module's compile, 148 s of the integration step on a fresh machine when it was done there. Fetched
# in the background from here at the lowest priority, waited for before the integration suite.
step "code-server toolchain for the integration and e2e suites: provisioning in the background (cached in .cache/code-server)"
nice -n 19 node --import tsx src/tools/launcher/provision-cli.ts --chromium > .cache/code-server-provision.log 2>&1 &
CODE_SERVER_PROVISION=$!

# check:vsix (below, beside the e2e VSIX) also packages the darwin-arm64 VSIX: its prebuilts
# (Metal llama.cpp, ~5 MB) come from the npm registry, fetched and verified against the lock here.
step "VSIX packaging: darwin-arm64's prebuilts, fetched in the background (cached in .cache/packaging)"
node --import tsx src/tools/packaging/main.ts --fetch-only --target darwin-arm64 > .cache/vsix-prebuilts.log 2>&1 &
VSIX_PREBUILTS=$!

step "llama.cpp with a persistent threadpool (built once per machine, cached in .cache/llama-build)"
node out/cli.js build-llama --required
# Required above, so a check that needs our build (speculation, core invariants) fails here instead of skipping.
[ "${STATEFUL_CHAT_LLAMA_BUILD:-}" = prebuilt ] || export STATEFUL_CHAT_REQUIRE_FAST_BUILD=1

# The remote backend's tests (the last step) need llama-server built from the same pinned
# source: about 15 core-minutes of compiling when not cached. It compiles in the background from
# here on at the lowest priority, on the cycles the suites below leave idle: about a fifth of
# the two cores during the real-model tests (their node and IPC phases), measured with vmstat.
# It starts after our build, which fetched the source both use; its log is printed if it fails.
step "llama-server for the remote backend tests: building in the background at nice 19 (cached in .cache/peer)"
nice -n 19 node out/cli.js build-peer-server --jobs 2 > .cache/peer-server-build.log 2>&1 &
PEER_SERVER_BUILD=$!

# ggml's own operator test on our flash-attention kernel: test-backend-ops compiled against the
# engine build's ggml (about a minute on one core) while the unit tests run on the other.
step "ggml CPU flash attention: our grouped kernel vs ggml's reference (test-backend-ops), in the background"
node out/cli.js test-flash-attn > .cache/ggml-op-test.log 2>&1 &
OP_TEST=$!

step "unit tests (no model)"
npm run test:unit

step "ggml CPU flash attention: its result"
await_job "$OP_TEST" "the ggml op test" .cache/ggml-op-test.log

# One file at a time on two threads. Measured against two lines of files on one thread each
# (npm test, 2026-12-03): no faster, since these files spend their time in llama.cpp and it
# scales to both cores (core invariants 51 s on two threads, 118 s on one).
step "real-model tests (default GGUF)"
npm run test:model

step "Mesa's llvmpipe, a real Vulkan device for the GPU suite (mesa-vulkan-drivers, installed when missing)"
if [ ! -f /usr/share/vulkan/icd.d/lvp_icd.x86_64.json ]; then
  # Waits for another apt run's lock (the toolchains above may still be installing) instead of failing on it.
  apt-get -o DPkg::Lock::Timeout=900 update
  apt-get -o DPkg::Lock::Timeout=900 install -y mesa-vulkan-drivers
fi

step "code-server toolchain: its result"
await_job "$CODE_SERVER_PROVISION" "provisioning code-server" .cache/code-server-provision.log

step "VS Code integration tests (real extension host in code-server)"
npm run test:integration

step "end-to-end: the user's path in code-server + Chromium"
# One VSIX for every session of the suite (test/e2e/support/shared-vsix.ts), packaged here.
node --import tsx test/e2e/support/package-shared-vsix.ts .cache/e2e/stateful-chat.vsix
# The same packaging for a Mac (about 10 s), then both VSIXs opened and checked: binaries by
# their headers, the expected prebuilts, entry points, no source or test file, size budgets.
await_job "$VSIX_PREBUILTS" "fetching darwin-arm64's prebuilts" .cache/vsix-prebuilts.log
node --import tsx src/tools/packaging/main.ts --no-build --target darwin-arm64 --out .cache/vsix > .cache/vsix-darwin-arm64.log 2>&1 || { cat .cache/vsix-darwin-arm64.log; exit 1; }
npm run check:vsix -- --for-this-machine .cache/e2e/stateful-chat.vsix
npm run check:vsix -- .cache/vsix/stateful-chat-darwin-arm64.vsix
STATEFUL_CHAT_E2E_VSIX="$PWD/.cache/e2e/stateful-chat.vsix" npm run test:e2e

# The GPU suite (llvmpipe computes on the CPU, several minutes) runs beside the lighter
# single-threaded suites below; it is waited for, and its log printed, before the remote suite.
step "GPU code path on Vulkan (llvmpipe): running in the background (log in .cache/gpu-suite.log)"
npm run test:gpu > .cache/gpu-suite.log 2>&1 &
GPU_SUITE=$!

step "webview UI in headless Chromium"
bash test/webview/run.sh

step "native addon (C++ unit tests, Objective-C++ type-check, N-API surface)"
npm run test:native

step "Core ML converter (pytest): its result"
await_job "$MODELS_TESTS" "the Core ML converter's toolchain install or its tests" .cache/models-install.log .cache/models-test.log

step "GPU code path on Vulkan (llvmpipe): its result"
await_job "$GPU_SUITE" "the GPU suite" .cache/gpu-suite.log

step "remote backend against a real llama-server -np 4 (started and stopped by the tests)"
if ! wait "$PEER_SERVER_BUILD"; then
  cat .cache/peer-server-build.log
  echo "building llama-server failed" >&2
  exit 1
fi
npm run test:remote

echo
echo "all test suites passed"
