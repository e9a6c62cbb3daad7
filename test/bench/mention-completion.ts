// @-completion speed on a 10,000-file workspace: how long ranking the cached file list takes
// per keystroke (what the host does between the webview's query and its answer). The corpus
// is real paths: the first 10,000 files under node_modules, as workspace-relative paths.
// Run: node --import tsx test/bench/mention-completion.ts   (figures printed; nothing asserted)

import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { performance } from "node:perf_hooks";
import { PathIndex } from "../../src/extension/core/context-ranking";

const ROOT = join(import.meta.dirname, "../..");
const FILES = 10_000;

function collect(dir: string, out: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (out.length >= FILES) return;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) collect(path, out);
    else if (entry.isFile()) out.push(relative(ROOT, path).replace(/\\/g, "/"));
  }
}

const paths: string[] = [];
collect(join(ROOT, "node_modules"), paths);
paths.sort();

// What a user types, one keystroke at a time.
const typed = ["index", "package.json", "tokenizer", "mdit", "highlight/lib/languages/typescript", "zzzq"];
const built = performance.now();
const index = new PathIndex(paths);
const buildMs = performance.now() - built;
const samples: number[] = [];
// The first letter after "@" scans the whole list; later ones narrow the previous matches.
const fullScans: number[] = [];
for (let round = 0; round < 5; round++) {
  for (const word of typed) {
    for (let n = 0; n <= word.length; n++) {
      const start = performance.now();
      index.rank(word.slice(0, n), 20);
      (n <= 1 ? fullScans : samples).push(performance.now() - start);
    }
  }
}
const summary = (list: number[]) => {
  const sorted = [...list].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(2);
  return `median ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${at(1)} ms (${sorted.length} keystrokes)`;
};
console.log(`mention completion over ${paths.length} files (one frame: 16.7 ms)`);
console.log(`  index built once per file-list change: ${buildMs.toFixed(1)} ms`);
console.log(`  "@" and its first letter (full scan): ${summary(fullScans)}`);
console.log(`  each further letter (narrowed): ${summary(samples)}`);
