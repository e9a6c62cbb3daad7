// How long activating the extension costs the extension host: loading out/extension.js (the
// bundle's evaluation) and running activate(), plus the first turn of the event loop after it
// (what activate() scheduled with setTimeout 0, e.g. the settings migration). Target: < 50 ms.
//
// Measured outside VS Code: each run is a fresh Node process (test/bench/activation-child.ts)
// that loads the built bundle with a minimal stand-in for the `vscode` module (a test double,
// this bench only: registrations are recorded and return inert objects, settings are unset). It measures our code's cost, not
// VS Code's own work around it (reading package.json, the IPC of each registration), which a
// real extension host adds. Not part of `npm test`: no timing asserts anywhere.
//
//   npm run build && node --import tsx test/bench/activation-time.ts [--runs 15] [--json]

import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildSync } from "esbuild";
import type { RunTimes } from "./activation-child";

const root = join(__dirname, "..", "..");
const bundle = join(root, "out", "extension.js");

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { runs: { type: "string", default: "15" }, json: { type: "boolean", default: false } } });
  if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run npm run build first`);
  // The child runs in plain Node, compiled here (tsx's loader would also process the bundle).
  const child = join(mkdtempSync(join(tmpdir(), "sc-activation-bench-")), "activation-child.cjs");
  const compiled = buildSync({ entryPoints: [join(__dirname, "activation-child.ts")], bundle: false, platform: "node", format: "cjs", target: "node20", write: false });
  writeFileSync(child, compiled.outputFiles[0]!.text);
  const runs: RunTimes[] = [];
  for (let i = 0; i < Number(values.runs); i++) {
    const out = execFileSync(process.execPath, [child], { cwd: root, encoding: "utf8", env: { ...process.env, STATEFUL_CHAT_ROOT: root } });
    runs.push(JSON.parse(out) as RunTimes);
  }
  const summary = (pick: (r: RunTimes) => number) => {
    const v = runs.map(pick);
    return { median: median(v), min: Math.min(...v), max: Math.max(...v) };
  };
  const report = {
    runs: runs.length,
    loadMs: summary((r) => r.loadMs),
    activateMs: summary((r) => r.activateMs),
    firstTickMs: summary((r) => r.firstTickMs),
    totalMs: summary((r) => r.loadMs + r.activateMs + r.firstTickMs),
    firstUseMs: summary((r) => r.firstUseMs),
    registrations: runs[0]?.registrations,
    targetMs: 50,
  };
  if (values.json) console.log(JSON.stringify(report, null, 2));
  else {
    const f = (s: { median: number; min: number; max: number }) => `${s.median.toFixed(1)} ms (min ${s.min.toFixed(1)}, max ${s.max.toFixed(1)})`;
    console.log(`activation, ${report.runs} fresh processes, medians:`);
    console.log(`  load out/extension.js  ${f(report.loadMs)}`);
    console.log(`  activate()             ${f(report.activateMs)}`);
    console.log(`  first tick after it    ${f(report.firstTickMs)}`);
    console.log(`  total                  ${f(report.totalMs)}   (target < ${report.targetMs} ms; ${report.registrations} registrations)`);
    console.log(`  first use (features)   ${f(report.firstUseMs)}   (a command: out/extension-features.js loaded and activated)`);
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
