#!/usr/bin/env bash
# The release workflow's Linux job (.github/workflows/release.yml), runnable on any Linux
# machine after `npm ci`: the packaging tool's unit tests, then the VSIXs no Mac is needed for
# (linux-x64, linux-arm64, win32-x64, win32-arm64; other platforms' llama.cpp binaries are
# fetched from the npm registry and verified against package-lock.json), each opened and
# checked by check:vsix. linux-x64's carries our llama.cpp build, portable (every x86-64 ISA
# variant of ggml's CPU backend; built here once, then cached in .cache/llama-build), never the
# native one; the others carry the prebuilt when packaged here (the release workflow packages
# linux-arm64 and win32-x64 on their own runners, with our build: RELEASE_TARGETS names the
# targets this script packages).   src/tools/packaging/release-linux.sh [OUT_DIR]   (default .cache/release)
set -euo pipefail
cd "$(dirname "$0")/../../.."
out="${1:-.cache/release}"
mkdir -p "$out"
rm -f "$out"/stateful-chat-*.vsix

echo "== packaging tool: unit tests"
node --import tsx --test --test-concurrency=1 test/unit/vsix-binary-header.test.ts test/unit/vsix-check.test.ts test/unit/vsix-targets.test.ts \
  test/unit/readme-packaging.test.ts test/unit/coreml-missing-addon.test.ts test/unit/our-build-check.test.ts

echo "== our llama.cpp build, portable CPU variants (for linux-x64)"
node esbuild.mjs
node out/cli.js build-llama --portable --required

echo "== VSIXs for Linux and Windows"
read -r -a targets <<< "${RELEASE_TARGETS:-linux-x64 linux-arm64 win32-x64 win32-arm64}"
target_args=()
for target in "${targets[@]}"; do target_args+=(--target "$target"); done
npm run --silent package -- "${target_args[@]}" --out "$out"

echo "== check:vsix"
npm run --silent check:vsix -- "$out"/stateful-chat-*.vsix
