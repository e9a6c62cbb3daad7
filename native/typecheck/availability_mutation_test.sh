#!/usr/bin/env bash
# Proves the availability pass of typecheck.sh has teeth: in a temporary copy of
# native/src, remove one @available(macOS 15.0, *) guard at a time (around newState,
# the stateful prediction, reading and writing a state for snapshots, functionName and
# the state descriptions) and expect the check to fail; the untouched copy must pass.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
native="$(dirname "$here")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# file | the guarded line to unguard (its @available check becomes a plain `if (true)`)
mutations=(
  "mac/coreml_model.mm|std::unique_ptr<ModelState> CoreMLModel::NewState() {"
  "mac/coreml_model.mm|void CoreMLModel::Predict("
  "mac/coreml_model.mm|void CoreMLModel::ReadState("
  "mac/coreml_model.mm|void CoreMLModel::WriteState("
  "mac/platform_mac.mm|if (!functionName.empty()) {"
  "mac/coreml_description.mm|std::vector<FeatureDescription> DescribeFeatures("
)

failures=0
for mutation in "${mutations[@]}"; do
  file="${mutation%%|*}"
  anchor="${mutation#*|}"
  rm -rf "$work/src" && cp -r "$native/src" "$work/src"
  # The first @available after the anchor line loses its guard.
  ANCHOR="$anchor" perl -0pi -e 'my $a = quotemeta($ENV{ANCHOR}); s/($a.*?)\@available\(macOS 15\.0, \*\)/$1true/s or die "anchor not found\n"' "$work/src/$file"
  if grep -q "@available(macOS 15.0" "$native/src/$file" && ! diff -q "$native/src/$file" "$work/src/$file" >/dev/null; then
    if bash "$here/typecheck.sh" "$work/src" >"$work/log" 2>&1; then
      echo "MUTANT SURVIVED: removing the @available guard after '$anchor' in $file passed the type-check" >&2
      failures=$((failures + 1))
    elif grep -q "unguarded-availability-new\|is only available on macOS 1[5-9]" "$work/log"; then
      echo "caught: unguarded macOS 15 API after '$anchor' ($file)"
    else
      echo "MUTANT FAILED FOR ANOTHER REASON ($file):" >&2; cat "$work/log" >&2
      failures=$((failures + 1))
    fi
  else
    echo "mutation did not apply: $file / $anchor" >&2
    failures=$((failures + 1))
  fi
done
rm -rf "$work/src" && cp -r "$native/src" "$work/src"
bash "$here/typecheck.sh" "$work/src" >/dev/null || { echo "the unmutated copy failed the type-check" >&2; failures=$((failures + 1)); }
[ "$failures" = 0 ] && echo "availability mutation test: ${#mutations[@]} mutants caught"
exit "$failures"
