#!/usr/bin/env bash
# Type-checks the Objective-C++ (src/mac/*.mm) on Linux with clang + GNUstep Foundation,
# against typecheck/CoreMLSubset.h, with ARC and -Werror. Needs: clang,
# libgnustep-base-dev, libblocksruntime-dev (native/test.sh installs them).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
native="$(dirname "$here")"
shim="$native/build/typecheck-shim"

# Debian's GNUstep is built for GCC's libobjc, whose runtime headers clang rejects in
# ARC mode in two places. A patched copy (cast + explicit ownership) is enough for a
# syntax-only check; nothing is linked.
gcc_objc="$(ls -d /usr/lib/gcc/x86_64-linux-gnu/*/include/objc /usr/lib/gcc/*/*/include/objc 2>/dev/null | sort -V | tail -1)"
if [ -z "$gcc_objc" ]; then echo "typecheck: GCC objc headers not found (apt-get install libobjc-12-dev)" >&2; exit 1; fi
rm -rf "$shim" && mkdir -p "$shim/objc"
cp "$gcc_objc"/*.h "$shim/objc/"
cp "$here/shim/objc/blocks_runtime.h" "$shim/objc/"
sed -i 's/Protocol \*\*/Protocol * __unsafe_unretained */g; s/return object->class_pointer;/return ((__bridge struct objc_object *)object)->class_pointer;/' "$shim/objc/runtime.h"

status=0
for source in "$native"/src/mac/*.mm; do
  if clang++ -x objective-c++ -std=c++17 -fsyntax-only -fobjc-arc -fobjc-runtime=gnustep-2.0 -fblocks \
      -fexceptions -fobjc-exceptions -Wall -Wextra -Werror -Wno-unused-parameter \
      -DGNUSTEP -DGNUSTEP_BASE_LIBRARY=1 -DGNU_RUNTIME=1 \
      -I"$shim" -I"$here/shim" -I/usr/include/GNUstep "$source"; then
    echo "typecheck ok: ${source#$native/}"
  else
    echo "typecheck FAILED: ${source#$native/}" >&2
    status=1
  fi
done
exit $status
