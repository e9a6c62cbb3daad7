#!/usr/bin/env bash
# Type-checks the Objective-C++ (src/mac/*.mm) on Linux against typecheck/CoreMLSubset.h,
# twice:
#  1. for Linux with the GNUstep runtime: ARC, blocks, selectors, -Wall -Wextra -Werror;
#  2. for a Darwin target (-target arm64-apple-macos13, the addon's deployment target)
#     with -Werror=unguarded-availability-new: a macOS 15 API used outside an
#     @available(macOS 15.0, *) check fails here, as it would in Xcode. Clang ignores
#     macOS availability when targeting Linux, hence the second pass.
# Usage: typecheck.sh [SRC_DIR] (default native/src; the mutation test passes a copy).
# Needs: clang, libgnustep-base-dev, libblocksruntime-dev, libstdc++ (native/test.sh installs them).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
native="$(dirname "$here")"
src="${1:-$native/src}"
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

common=(-x objective-c++ -std=c++17 -fsyntax-only -fobjc-arc -fblocks -fexceptions -fobjc-exceptions
  -Wall -Wextra -Werror -Wno-unused-parameter -DGNUSTEP -DGNUSTEP_BASE_LIBRARY=1 -DGNU_RUNTIME=1
  -I"$shim" -I"$here/shim" -I/usr/include/GNUstep)

# The Darwin pass parses Debian's libstdc++ and glibc headers (there is no macOS SDK
# here): glibc needs its x86_64 word size and GNU feature set, and Darwin's predefined
# nullability macros (__nonnull…) clash with glibc's attribute macros of the same names.
gxx="$(ls -d /usr/include/c++/[0-9]* | sort -V | tail -1)"
darwin=(-target arm64-apple-macos13 -Werror=unguarded-availability-new -nostdinc++
  -U__nonnull -U__nullable -U__null_unspecified -D_GNU_SOURCE -D__x86_64__
  -isystem "$gxx" -isystem "/usr/include/x86_64-linux-gnu/c++/${gxx##*/}" -isystem /usr/include/x86_64-linux-gnu)

status=0
for source in "$src"/mac/*.mm; do
  name="${source#$src/}"
  if clang++ "${common[@]}" -fobjc-runtime=gnustep-2.0 "$source"; then echo "typecheck ok (linux, gnustep): $name"
  else echo "typecheck FAILED (linux, gnustep): $name" >&2; status=1; fi
  if clang++ "${common[@]}" "${darwin[@]}" "$source"; then echo "typecheck ok (arm64-apple-macos13, availability): $name"
  else echo "typecheck FAILED (arm64-apple-macos13, availability): $name" >&2; status=1; fi
done
exit $status
