// Where node-llama-cpp looks for a prebuilt package, and the link that puts a stored one there.
//
// How node-llama-cpp finds it: a prebuilt is looked up only by a bare
// `import("@node-llama-cpp/linux-x64-cuda")` (and `-cuda-ext`) from node-llama-cpp's own
// files (dist/bindings/utils/compileLLamaCpp.js, getPrebuiltBinariesPackageDirectoryForBuildOptions),
// taking the package's `getBinsDir()` when its version equals node-llama-cpp's; no option
// or environment variable names another folder, and NODE_PATH does not apply to ESM. Node's
// resolver looks in the `node_modules` of every folder above the importing file, node-llama-cpp's
// own `node_modules` first, so a link there (a symlink; on Windows a junction, which needs no
// privilege) to the unpacked package is found exactly as an npm-installed optional dependency
// would be. Node resolves the link to its real path, so the package's `dist/index.js` reports
// its `bins/` in global storage. The link serves every process that imports this node-llama-cpp:
// the GPU probe's children and the engine process. An update of the extension replaces its
// folder and the link with it; the next use links the stored package again without a download.

import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, rmSync, symlinkSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { GpuPackageError } from "./gpu-packages";

/** The folder and version of `name` as Node would resolve it from `fromDir` (the node_modules of each folder above). */
export function resolvablePackage(fromDir: string, name: string): { dir: string; version?: string } | undefined {
  for (let dir = resolve(fromDir); ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) {
      try {
        const { version } = JSON.parse(readFileSync(join(candidate, "package.json"), "utf8")) as { version?: unknown };
        return { dir: candidate, version: typeof version === "string" ? version : undefined };
      } catch {
        return { dir: candidate };
      }
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/** Links the stored package into node-llama-cpp's own node_modules, replacing only an older link. */
export function linkForNodeLlamaCpp(nodeLlamaCppDir: string, name: string, packageDir: string): void {
  const link = join(nodeLlamaCppDir, "node_modules", name);
  let existing: string | undefined;
  try {
    existing = lstatSync(link).isSymbolicLink() ? readlinkSync(link) : "not a link";
  } catch {
    existing = undefined;
  }
  if (existing === "not a link") throw new GpuPackageError("failed", `${link} is a folder, not a link; it is left alone`);
  if (existing !== undefined && resolve(dirname(link), existing) === resolve(packageDir)) return;
  if (existing !== undefined) rmSync(link, { force: true });
  try {
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(resolve(packageDir), link, "junction");
  } catch (error) {
    throw new GpuPackageError("failed", `cannot link ${name} for node-llama-cpp at ${link}: ${messageOf(error)}`, { cause: error });
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
