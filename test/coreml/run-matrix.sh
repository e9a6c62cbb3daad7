#!/usr/bin/env bash
# On a Mac (macOS 15+): the Core ML contract suite for every compute-unit option on each
# given model folder, then the bench, with one log per cell and a Markdown summary.
#   test/coreml/run-matrix.sh RESULTS_DIR MODEL_DIR...
# A cell that fails (or whose process dies) is recorded and the matrix goes on; the exit
# status is non-zero only when a combination that must work fails: "auto", and
# "cpuAndGPU" (which runs any shape). Whether the Neural Engine options work is what the
# table is for, so their failures are reported, not fatal.
set -uo pipefail
results="$1"; shift
mkdir -p "$results"
summary="$results/summary.md"
echo "| model | compute units | contract suite |" > "$summary"
echo "| --- | --- | --- |" >> "$summary"
fatal=0
for model in "$@"; do
  name="$(basename "$model")"
  for units in auto cpuAndGPU cpuAndNeuralEngine all cpuOnly; do
    log="$results/test-$name-$units.log"
    if STATEFUL_CHAT_COREML_MODEL="$model" STATEFUL_CHAT_COREML_UNITS="$units" npm run --silent test:coreml >"$log" 2>&1; then
      outcome="pass"
    else
      outcome="FAIL (exit $?)"
      case "$units" in auto|cpuAndGPU) fatal=1 ;; esac
    fi
    echo "| $name | $units | $outcome: $(grep -E '^# (pass|fail|skipped)' "$log" | tr '\n' ' ') |" >> "$summary"
  done
  STATEFUL_CHAT_COREML_MODEL="$model" STATEFUL_CHAT_BENCH_JSON="$results/bench-$name.json" \
    npm run --silent bench:coreml > "$results/bench-$name.md" 2>&1 || fatal=1
  { echo; echo "### bench: $name"; cat "$results/bench-$name.md"; } >> "$summary"
done
cat "$summary"
exit "$fatal"
