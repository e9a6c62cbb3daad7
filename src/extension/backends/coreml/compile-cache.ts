// Compiles a .mlpackage once and keeps the .mlmodelc in a stable folder keyed by the
// package's content hash, so every later window loads in seconds.
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { CoreMLAddon } from "./addon";

export type CompileProgress = (stage: "hashing" | "compiling" | "cached" | "compiled") => void;

export function defaultCacheRoot(): string {
  if (process.env.STATEFUL_CHAT_CACHE) return path.join(process.env.STATEFUL_CHAT_CACHE, "coreml");
  const base = process.platform === "darwin" ? path.join(os.homedir(), "Library", "Caches") : path.join(os.homedir(), ".cache");
  return path.join(base, "stateful-chat", "coreml");
}

async function listFiles(root: string, folder = ""): Promise<string[]> {
  const entries = await fs.readdir(path.join(root, folder), { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const relative = path.join(folder, entry.name);
    if (entry.isDirectory()) files.push(...(await listFiles(root, relative)));
    else if (entry.isFile()) files.push(relative);
  }
  return files;
}

/** sha256 over every file's relative path and bytes, in a stable order. */
export async function hashModelPackage(packagePath: string): Promise<string> {
  const hash = createHash("sha256");
  for (const relative of await listFiles(packagePath)) {
    hash.update(relative.split(path.sep).join("/"));
    hash.update("\0");
    hash.update(await fs.readFile(path.join(packagePath, relative)));
    hash.update("\0");
  }
  return hash.digest("hex");
}

export async function compiledModelFor(
  addon: CoreMLAddon,
  packagePath: string,
  options: { readonly cacheRoot?: string; readonly onProgress?: CompileProgress } = {},
): Promise<{ readonly compiledPath: string; readonly contentHash: string }> {
  options.onProgress?.("hashing");
  const contentHash = await hashModelPackage(packagePath);
  const root = options.cacheRoot ?? defaultCacheRoot();
  const compiledPath = path.join(root, `${contentHash.slice(0, 32)}.mlmodelc`);
  if (await fs.stat(compiledPath).then(() => true, () => false)) {
    options.onProgress?.("cached");
    return { compiledPath, contentHash };
  }
  await fs.mkdir(root, { recursive: true });
  // Compile beside the target and rename: two windows compiling at once both succeed.
  const temporary = `${compiledPath}.tmp-${process.pid}-${Date.now()}`;
  options.onProgress?.("compiling");
  await addon.compileModel(packagePath, temporary);
  try {
    await fs.rename(temporary, compiledPath);
  } catch (error) {
    await fs.rm(temporary, { recursive: true, force: true });
    if (!(await fs.stat(compiledPath).then(() => true, () => false))) throw error;
  }
  options.onProgress?.("compiled");
  return { compiledPath, contentHash };
}
