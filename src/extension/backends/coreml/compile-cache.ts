// Compiles a .mlpackage once and keeps the .mlmodelc in a stable folder keyed by the
// package's content hash, so every later window loads in seconds. The hash itself is
// remembered under a stat-only fingerprint (package-hash.ts): finding a cached compile
// reads no weights.
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { CoreMLAddon } from "./addon";
import { packageContentHash } from "./package-hash";

export { hashModelPackage } from "./package-hash";

export type CompileProgress = (stage: "hashing" | "compiling" | "cached" | "compiled") => void;

export function defaultCacheRoot(): string {
  if (process.env.STATEFUL_CHAT_CACHE) return path.join(process.env.STATEFUL_CHAT_CACHE, "coreml");
  const base = process.platform === "darwin" ? path.join(os.homedir(), "Library", "Caches") : path.join(os.homedir(), ".cache");
  return path.join(base, "stateful-chat", "coreml");
}

const exists = (file: string): Promise<boolean> => fs.stat(file).then(() => true, () => false);

export async function compiledModelFor(
  addon: Pick<CoreMLAddon, "compileModel">,
  packagePath: string,
  options: { readonly cacheRoot?: string; readonly onProgress?: CompileProgress } = {},
): Promise<{ readonly compiledPath: string; readonly contentHash: string }> {
  const root = options.cacheRoot ?? defaultCacheRoot();
  const { contentHash } = await packageContentHash(packagePath, path.join(root, "package-hashes.json"), () =>
    options.onProgress?.("hashing"),
  );
  const compiledPath = path.join(root, `${contentHash.slice(0, 32)}.mlmodelc`);
  if (await exists(compiledPath)) {
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
    if (!(await exists(compiledPath))) throw error;
  }
  options.onProgress?.("compiled");
  return { compiledPath, contentHash };
}
