#!/usr/bin/env bash
# On a Mac (macOS 15+): the Core ML contract suite for every compute-unit option on each
# given model folder, then the bench, with one log per cell and a Markdown summary.
#   test/coreml/run-matrix.sh RESULTS_DIR MODEL_DIR...
# A cell that fails (or whose process dies) is recorded and the matrix goes on; the exit
# status is non-zero when a combination that must work fails: "auto", and "cpuAndGPU"
# (which runs any shape). Whether the Neural Engine options work is what the table is for,
# so their failures are reported, not fatal. Skipped tests are counted as skipped, and a
# cell that ran no test at all (the addon did not load, no model: the suite skips) is fatal
# for every option: a green matrix has to mean the contract ran. STATEFUL_CHAT_REQUIRE_COREML=1
# makes the suite itself fail instead of skipping, too.
set -uo pipefail
results="$1"; shift
mkdir -p "$results"
summary="$results/summary.md"
echo "| model | compute units | contract suite |" > "$summary"
echo "| --- | --- | --- |" >> "$summary"
fatal=0

# The node test runner's final count of one kind (TAP "# pass 3", spec "ℹ pass 3"); 0 if absent.
count() {
  local n
  n="$(grep -E "^(# |ℹ )$1 [0-9]+\$" "$2" | tail -1 | awk '{print $3}')"
  echo "${n:-0}"
}

for model in "$@"; do
  name="$(basename "$model")"
  for units in auto cpuAndGPU cpuAndNeuralEngine all cpuOnly; do
    log="$results/test-$name-$units.log"
    STATEFUL_CHAT_REQUIRE_COREML=1 STATEFUL_CHAT_COREML_MODEL="$model" STATEFUL_CHAT_COREML_UNITS="$units" \
      npm run --silent test:coreml >"$log" 2>&1
    status=$?
    passed="$(count pass "$log")"; failed="$(count fail "$log")"; skipped="$(count skipped "$log")"
    counts="$passed passed, $failed failed, $skipped skipped"
    if [ "$status" -ne 0 ]; then
      outcome="FAIL (exit $status; $counts)"
      case "$units" in auto|cpuAndGPU) fatal=1 ;; esac
    elif [ "$passed" -eq 0 ]; then
      outcome="NONE RAN ($counts)"
      fatal=1
    else
      outcome="pass ($counts)"
    fi
    echo "| $name | $units | $outcome |" >> "$summary"
  done
  STATEFUL_CHAT_COREML_MODEL="$model" STATEFUL_CHAT_BENCH_JSON="$results/bench-$name.json" \
    npm run --silent bench:coreml > "$results/bench-$name.md" 2>&1 || fatal=1
  # The bench exits 0 when it skips (no Core ML): here that is a failure, like a suite that ran none.
  if grep -q "^coreml bench skipped" "$results/bench-$name.md"; then fatal=1; fi
  { echo; echo "### bench: $name"; cat "$results/bench-$name.md"; } >> "$summary"
done
cat "$summary"
exit "$fatal"
