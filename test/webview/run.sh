#!/usr/bin/env bash
# Webview tests: builds the real bundle and drives it in headless Chromium.
# Idempotent: installs Chromium only when it is missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ ! -x /usr/bin/chromium ]; then
  apt-get update
  apt-get install -y chromium
fi
node esbuild.mjs
node --import tsx --test --test-concurrency=1 test/webview/*.test.ts
