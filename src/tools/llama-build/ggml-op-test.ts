// ggml's own operator test, `test-backend-ops`, compiled against our engine build's ggml
// libraries, to check the grouped CPU flash attention kernel
// (src/tools/llama-build/patches/ggml-flash-attn-grouped.patch) against ggml's reference. In this
// llama.cpp version `test-backend-ops -b CPU` compares the CPU backend with a second CPU
// backend switched to its reference mode (`ggml_backend_cpu_set_use_ref`), and the patch
// hands reference-mode graphs back to upstream's per-row scalar loop: patched kernel against
// upstream's kernel, in one binary. Cached under `.cache/ggml-op-test/<key>/`.

import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { cp, mkdir, readdir, rename, rm, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { runCapturing } from "../launcher/run-command";
import { ensureFastLlamaBuild, ensureToolchain, GGML_CPU_PATCH } from "./fast-llama-build";
import { ensureLlamaCppSource, LLAMA_CPP_SDIST } from "./llama-cpp-source";

export class GgmlOpTestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GgmlOpTestError";
  }
}

/** The test program itself: plain C++17; the kernels it checks are in the engine's libraries. */
const TEST_COMPILE_FLAGS: readonly string[] = ["-O2", "-std=c++17", "-pthread"];

/** The engine build's ggml libraries (libggml, libggml-base, libggml-cpu), by path. */
function ggmlLibraries(release: string, names: readonly string[]): string[] {
  const wanted = [/^libggml\.(v[\w.]+\.)?so$/, /^libggml-base\.(v[\w.]+\.)?so$/, /^libggml-cpu\.(v[\w.]+\.)?so$/];
  const found = wanted.map((pattern) => names.find((name) => pattern.test(name)));
  if (found.some((name) => name === undefined)) {
    throw new GgmlOpTestError(`the engine build in ${release} lacks a ggml library (found: ${names.filter((n) => n.startsWith("libggml")).join(", ") || "none"})`);
  }
  return found.map((name) => join(release, name!));
}

function cacheKey(patches: readonly string[], engineBuild: string): string {
  const hash = createHash("sha256").update(LLAMA_CPP_SDIST.version).update(engineBuild).update(JSON.stringify(TEST_COMPILE_FLAGS));
  for (const patch of patches) hash.update(readFileSync(patch));
  return hash.digest("hex").slice(0, 16);
}

/**
 * The kernel patch (its headers are the engine's), then a test-only one for generated
 * (`--test-file`) flash attention cases: they may ask for upstream's sparse mask, and their
 * sentinels get initialized (uninitialized, an identical NaN pattern in both backends' copies
 * sometimes failed a correct case).
 */
function patchesFor(root: string): readonly string[] {
  return [join(root, GGML_CPU_PATCH), join(root, "src", "tools", "llama-build", "patches", "test-backend-ops-generic-fa.patch")];
}

function run(command: string, args: readonly string[], cwd: string, log: (line: string) => void): Promise<string> {
  log(`$ ${command} ${args.join(" ")}`);
  return runCapturing("nice", ["-n", "10", command, ...args], { cwd }).catch((error: unknown) => {
    throw new GgmlOpTestError(error instanceof Error ? error.message : String(error));
  });
}

/** Files a patch changes, relative to the llama.cpp folder (the patches name it llama/llama.cpp/). */
function patchedFiles(patch: string): string[] {
  return [...readFileSync(patch, "utf8").matchAll(/^\+\+\+ b\/llama\/llama\.cpp\/(\S+)/gm)].map((m) => m[1]);
}

export interface TestBackendOps {
  readonly path: string;
  /** GGML_OP_FLASH_ATTN_EXT's number in this ggml, for `--test-file` lines. */
  readonly flashAttnOp: number;
  readonly built: boolean;
}

/**
 * `.cache/ggml-op-test/<key>/test-backend-ops`: ggml's test program compiled against the very
 * ggml libraries our engine loads (the build-llama output, with the kernel patch), so what is
 * checked is the product's kernel, not a second build of it. Only the test's own source is
 * compiled (about a minute on one core); llama.cpp's test CMake would also build ggml, libllama
 * and the common library (its TODO TAG_TESTS_LLAMA_LINK). The key follows the engine build.
 */
export async function ensureTestBackendOps(root: string, log: (line: string) => void = () => {}): Promise<TestBackendOps> {
  const engine = await ensureFastLlamaBuild(root, log);
  const release = join(engine.folder, "Release");
  const libraries = ggmlLibraries(release, await readdir(release));
  const patches = patchesFor(root);
  const cacheRoot = join(root, ".cache", "ggml-op-test");
  const keyDir = join(cacheRoot, cacheKey(patches, basename(engine.folder)));
  const cached = join(keyDir, "test-backend-ops");
  const opFile = join(keyDir, "flash-attn-op");
  if (existsSync(cached) && existsSync(opFile)) return { path: cached, flashAttnOp: Number(readFileSync(opFile, "utf8")), built: false };

  await ensureToolchain(log);
  const pristine = await ensureLlamaCppSource(join(root, ".cache"), log).catch((error: unknown) => {
    throw new GgmlOpTestError(error instanceof Error ? error.message : String(error));
  });
  // The test and the headers, patched in a copy (the rest of the tree is not compiled here).
  const work = join(cacheRoot, `work-${LLAMA_CPP_SDIST.version}`);
  const source = join(work, "llama.cpp");
  await rm(work, { recursive: true, force: true });
  const needed = ["tests/test-backend-ops.cpp", ...patches.flatMap(patchedFiles)];
  await cp(join(pristine, "ggml", "include"), join(source, "ggml", "include"), { recursive: true });
  for (const file of needed) await cp(join(pristine, file), join(source, file), { recursive: true });
  for (const patch of patches) {
    await run("patch", ["-p3", "--forward", "--silent", "-d", source, "-i", patch], work, log).catch((error: unknown) => {
      throw new GgmlOpTestError(`${patch} does not apply to llama.cpp ${LLAMA_CPP_SDIST.version}: ${String(error)}`);
    });
  }
  log("compiling test-backend-ops against the engine's ggml (about a minute; cached afterwards)…");
  const binary = join(work, "test-backend-ops");
  await run(
    "c++",
    [...TEST_COMPILE_FLAGS, "-I", join(source, "ggml", "include"), "-o", binary, join(source, "tests", "test-backend-ops.cpp"), ...libraries, `-Wl,-rpath,${release}`],
    work,
    log,
  );
  if (!existsSync(binary)) throw new GgmlOpTestError(`the compiler finished but ${binary} is missing`);
  // Other keys' binaries are stale (another patch or engine build): only the current one is kept.
  for (const entry of await readdir(cacheRoot)) {
    if (/^[0-9a-f]{16}$/.test(entry)) await rm(join(cacheRoot, entry), { recursive: true, force: true });
  }
  const flashAttnOp = flashAttnOpValue(readFileSync(join(source, "ggml", "include", "ggml.h"), "utf8"));
  await mkdir(keyDir, { recursive: true });
  await writeFile(opFile, String(flashAttnOp));
  await cp(binary, `${cached}.partial`);
  await rename(`${cached}.partial`, cached);
  return { path: cached, flashAttnOp, built: true };
}

// ---- the cases ----------------------------------------------------------------------------

/** The grouped kernel's batch limit (ggml_fa_tile_config::Q): batches of fewer rows are its. */
const GROUPED_MAX_BATCH = 63;

export type FlashAttnScope = "test" | "all";

/**
 * test-backend-ops' own FLASH_ATTN_EXT cases (filtered by `-p` on their parameters) that the
 * grouped kernel takes: fewer than 64 query rows, no sinks, K and V both F16 (or both F32).
 * "test" keeps head sizes 64 and 128, F16 K/V, batches up to 17 and GQA up to 8 (batches 1, 3,
 * 4 and 8; GQA 1, 4 and 8; cache lengths 113 to 5003; with masks, ALiBi, softcap, permuted,
 * broadcast and K/V cache views, V as a view of K): 165 cases here.
 */
export function stockCaseFilter(scope: FlashAttnScope): string {
  return scope === "test"
    ? "^hsk=(64|128),hsv=\\1,nh=\\d+,nr23=\\[[1-8],\\d+\\],kv=\\d+,nb=([1-9]|1[0-7]),mask=[01],sinks=0,.*,type_K=f16,type_V=f16,"
    : "^hsk=\\d+,hsv=\\d+,.*,nb=([1-9]|[1-5][0-9]|6[0-3]),mask=[01],sinks=0,.*,type_K=(f16|f32),type_V=\\2,";
}

export interface GridCase {
  readonly headSize: number;
  readonly group: number;
  readonly batch: number;
  readonly kv: number;
  /** > 0: upstream's sparse mask with about this many unmasked positions per row. */
  readonly sparse: number;
}

/** K/V heads in generated cases: 2 (as in the default model), so that 4 threads split a group. */
const GRID_KV_HEADS = 2;

/** [cache length, sparse]: 113 ends in a partial tile; 1024 sparse has whole masked tiles. */
const CACHES_TEST: readonly (readonly [number, number])[] = [[113, 0], [1024, 24]];
const CACHES_ALL: readonly (readonly [number, number])[] = [[113, 0], [512, 0], [1024, 0], [1024, 24]];

/**
 * What the stock cases miss: every batch of 1–17 rows (a decoded token and the speculative
 * verify batches; `all`: 1–63), every GQA ratio 1–8, at cache length 113 (a partial last tile)
 * and 1024 with upstream's sparse mask (about 24 unmasked positions per row, so some 64-wide
 * K/V tiles are masked for some rows of a call, and for a single token for all of them);
 * `all` adds 512 and 1024 with the dense mask.
 */
export function gridCases(scope: FlashAttnScope): GridCase[] {
  const cases: GridCase[] = [];
  const maxBatch = scope === "test" ? 17 : GROUPED_MAX_BATCH;
  for (const headSize of [64, 128]) {
    for (let group = 1; group <= 8; group++) {
      for (let batch = 1; batch <= maxBatch; batch++) {
        for (const [kv, sparse] of scope === "test" ? CACHES_TEST : CACHES_ALL) {
          cases.push({ headSize, group, batch, kv, sparse });
        }
      }
    }
  }
  return cases;
}

/** GGML_OP_FLASH_ATTN_EXT's value, counted in ggml.h's `enum ggml_op` (implicitly numbered). */
export function flashAttnOpValue(ggmlHeader: string): number {
  const body = /enum ggml_op \{([\s\S]*?)\};/.exec(ggmlHeader)?.[1];
  if (!body) throw new GgmlOpTestError("enum ggml_op not found in ggml.h");
  const names = body
    .replace(/\/\/.*$/gm, "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
  if (!/^GGML_OP_NONE\s*=\s*0$/.test(names[0] ?? "") || names.slice(1).some((entry) => entry.includes("="))) {
    throw new GgmlOpTestError("enum ggml_op is not numbered 0, 1, 2, …");
  }
  const index = names.findIndex((entry) => entry === "GGML_OP_FLASH_ATTN_EXT");
  if (index < 0) throw new GgmlOpTestError("GGML_OP_FLASH_ATTN_EXT not in enum ggml_op");
  return index;
}

function floatBits(value: number): number {
  const buffer = Buffer.alloc(4);
  buffer.writeFloatLE(value);
  return buffer.readInt32LE();
}

/**
 * One line per case in test-backend-ops' `--test-file` format (its generic op: op, type, ne,
 * op_params, sources as type ne nb, name). Q F32 [D, batch, heads], K and V F16 [D, kv, K/V heads],
 * mask F16 [kv, batch], output [D, heads, batch]. Contiguous: the generic op initializes only
 * a view's own bytes, not the rest of its backing tensor, so K/V cache views (strided heads)
 * are left to the stock cases, which build them.
 */
export function caseFileLine(opValue: number, c: GridCase): string {
  const F32 = 0;
  const F16 = 1;
  const PREC_F32 = 10;
  const D = c.headSize;
  const heads = GRID_KV_HEADS * c.group;
  const opParams = [floatBits(1 / Math.sqrt(D)), 0, 0, PREC_F32, c.sparse];
  const contiguous = [0, 0, 0, 0];
  const sources = [
    [F32, D, c.batch, heads, 1, ...contiguous],
    [F16, D, c.kv, GRID_KV_HEADS, 1, ...contiguous],
    [F16, D, c.kv, GRID_KV_HEADS, 1, ...contiguous],
    [F16, c.kv, c.batch, 1, 1, ...contiguous],
  ];
  const name = `grouped:hs=${D},gqa=${c.group},nb=${c.batch},kv=${c.kv}${c.sparse > 0 ? `,sparse=${c.sparse}` : ""}`;
  return [opValue, F32, D, heads, c.batch, 1, opParams.length, ...opParams, sources.length, ...sources.flat(), name].join(" ");
}

// ---- running ------------------------------------------------------------------------------

export interface OpTestRun {
  readonly label: string;
  readonly passed: number;
  readonly total: number;
  readonly failures: readonly string[];
  readonly seconds: number;
}

/** Runs test-backend-ops; its per-case lines go to `logFile`, failures and the summary are returned. */
function runOpTest(binary: string, args: readonly string[], label: string, logFile: string): Promise<OpTestRun> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      // eslint-disable-next-line no-control-regex -- ANSI colour codes start with ESC
  const plain = output.replace(/\x1b\[[0-9;]*m/g, "");
      void writeFile(logFile, `$ ${binary} ${args.join(" ")}\n${plain}`).finally(() => {
        const summary = /(\d+)\/(\d+) tests passed/.exec(plain);
        const failures = plain.split("\n").filter((line) => /\bFAIL\b/.test(line) && !/Backend CPU/.test(line));
        if (!summary) {
          reject(new GgmlOpTestError(`test-backend-ops (${label}) printed no summary (exit ${code}); see ${logFile}`));
          return;
        }
        const passed = Number(summary[1]);
        const total = Number(summary[2]);
        if ((code === 0) !== (passed === total)) {
          reject(new GgmlOpTestError(`test-backend-ops (${label}) exited ${code} with ${passed}/${total} passed; see ${logFile}`));
          return;
        }
        resolve({ label, passed, total, failures, seconds: (Date.now() - started) / 1000 });
      });
    });
  });
}

/**
 * Builds (or takes from the cache) test-backend-ops and runs the flash attention cases the
 * grouped kernel takes over: the stock ones, then the generated grid. `-b CPU` tests the CPU
 * backend against the reference-mode CPU backend; `-j 2` runs two workers, and each worker's
 * backend under test has ggml's default 4 threads (with `-j 1` it would get one), so the
 * kernel's split of query heads and of token runs across threads is exercised too.
 */
export async function runFlashAttnOpTest(root: string, scope: FlashAttnScope, log: (line: string) => void = () => {}): Promise<OpTestRun[]> {
  const { path: binary, flashAttnOp: opValue } = await ensureTestBackendOps(root, log);
  const cacheRoot = join(root, ".cache", "ggml-op-test");
  const grid = gridCases(scope);
  const caseFile = join(cacheRoot, `grouped-cases-${scope}.txt`);
  await writeFile(caseFile, `${grid.map((c) => caseFileLine(opValue, c)).join("\n")}\n`);
  const common = ["test", "-o", "FLASH_ATTN_EXT", "-b", "CPU", "-j", "2"];
  const stock = await runOpTest(binary, [...common, "-p", stockCaseFilter(scope)], "stock cases", join(cacheRoot, `stock-${scope}.log`));
  const generated = await runOpTest(binary, [...common, "--test-file", caseFile], "generated cases", join(cacheRoot, `grid-${scope}.log`));
  if (generated.total !== grid.length) {
    throw new GgmlOpTestError(`test-backend-ops ran ${generated.total} of the ${grid.length} generated cases (${caseFile})`);
  }
  if (stock.total === 0) throw new GgmlOpTestError("the stock-case filter selected no FLASH_ATTN_EXT case");
  return [stock, generated];
}
