#!/usr/bin/env bash
# Everything about the Core ML addon that can be proven on Linux: the portable C++ unit
# tests, the Objective-C++ type-check (clang + GNUstep, ARC, -Werror, and macOS API
# availability for a Darwin target, with a mutation test), the addon build,
# and the Node tests of its N-API surface and of the TS backend on the simulated model.
# Idempotent: installs missing Debian packages once (CI runs as root).
set -euo pipefail
native="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$native")"
cd "$root"

need=()
command -v clang++ >/dev/null || need+=(clang)
[ -f /usr/include/GNUstep/Foundation/Foundation.h ] || need+=(libgnustep-base-dev)
[ -f /usr/include/Block.h ] || need+=(libblocksruntime-dev)
[ -f /usr/include/gtest/gtest.h ] || need+=(libgtest-dev)
ls /usr/lib/gcc/*/*/include/objc/runtime.h >/dev/null 2>&1 || need+=(libobjc-12-dev)
if [ ${#need[@]} -gt 0 ]; then
  echo "native/test.sh: installing ${need[*]}"
  # Waits for another apt/dpkg run (CI and other work share the box) instead of failing on its lock.
  lock_wait=(-o DPkg::Lock::Timeout=600)
  if [ "$(id -u)" = 0 ]; then apt-get "${lock_wait[@]}" update -qq && DEBIAN_FRONTEND=noninteractive apt-get "${lock_wait[@]}" install -y -qq "${need[@]}" >/dev/null
  else sudo apt-get "${lock_wait[@]}" update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get "${lock_wait[@]}" install -y -qq "${need[@]}" >/dev/null; fi
fi

echo "== C++ unit tests (native/src/core)"
mkdir -p "$native/build"
g++ -std=c++17 -O1 -Wall -Wextra -Werror -pthread "$native"/src/core/*.cc "$native"/tests/*.cc \
  -lgtest -lgtest_main -o "$native/build/core_tests"
"$native/build/core_tests" --gtest_brief=1

echo "== Objective-C++ type-check (clang + GNUstep, -fobjc-arc -Werror; Darwin target with availability)"
bash "$native/typecheck/typecheck.sh"
bash "$native/typecheck/availability_mutation_test.sh"

echo "== addon build (node-gyp)"
if [ -z "${npm_config_nodedir:-}" ] && [ -f /usr/include/node/node_api.h ]; then export npm_config_nodedir=/usr; fi
npx --no-install node-gyp rebuild --directory "$native" -j 2 >"$native/build-node-gyp.log" 2>&1 \
  || { cat "$native/build-node-gyp.log"; exit 1; }
rm -f "$native/build-node-gyp.log"

echo "== Node tests (addon surface, TS backend on the simulated model, tokenizer parity)"
node --import tsx --test --test-concurrency=1 test/native/*.test.ts
