// `stateful-chat test-flash-attn [--all]`: ggml's test-backend-ops on our grouped CPU flash
// attention (ggml-op-test.ts). Exit 0 only when every case passed.

import { FastBuildUnavailableError } from "./fast-llama-build";
import { GgmlOpTestError, runFlashAttnOpTest } from "./ggml-op-test";

export const TEST_FLASH_ATTN_USAGE = `Usage: stateful-chat test-flash-attn [--all]
  Compiles test-backend-ops against our engine build's ggml (once; cached in .cache/ggml-op-test)
  and compares the grouped FLASH_ATTN_EXT kernel with ggml's reference on the CPU backend.
  Default: head sizes 64 and 128, F16 K/V, batches 1-17 (npm test). --all: every case the
  kernel takes over (any head size, F16 or F32 K/V, batches 1-63).`;

export async function runFlashAttnTestCommand(root: string, args: readonly string[]): Promise<number> {
  if (args.includes("--help")) {
    process.stdout.write(`${TEST_FLASH_ATTN_USAGE}\n`);
    return 0;
  }
  const unknown = args.filter((arg) => arg !== "--all");
  if (unknown.length > 0) {
    process.stderr.write(`unknown argument ${unknown[0]}\n${TEST_FLASH_ATTN_USAGE}\n`);
    return 2;
  }
  const started = Date.now();
  try {
    const runs = await runFlashAttnOpTest(root, args.includes("--all") ? "all" : "test", (line) => process.stderr.write(`${line}\n`));
    let ok = true;
    for (const run of runs) {
      for (const failure of run.failures.slice(0, 20)) process.stdout.write(`  ${failure.trim()}\n`);
      if (run.failures.length > 20) process.stdout.write(`  … ${run.failures.length - 20} more\n`);
      process.stdout.write(`FLASH_ATTN_EXT ${run.label}: ${run.passed}/${run.total} passed (${run.seconds.toFixed(1)} s)\n`);
      ok &&= run.passed === run.total;
    }
    process.stdout.write(`${ok ? "ok" : "FAILED"} in ${((Date.now() - started) / 1000).toFixed(1)} s (per-case output in .cache/ggml-op-test/*.log)\n`);
    return ok ? 0 : 1;
  } catch (error) {
    if (!(error instanceof GgmlOpTestError) && !(error instanceof FastBuildUnavailableError)) throw error;
    process.stderr.write(`test-flash-attn: ${error.message}\n`);
    return 1;
  }
}
