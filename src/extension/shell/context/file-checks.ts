// Whether a workspace file may be attached, and its text: refused when it looks like a
// secrets file, is ignored by a .gitignore (the root's or a sub-folder's), is larger than the
// cap, is not a regular file, is binary or not UTF-8, or is gone. The size is judged before a
// byte is read: a pinned multi-gigabyte dump would otherwise be read, decoded and scanned in
// the extension host on every refresh.
// Plain Node (no VS Code), so the refusals are unit-tested on real files.

import { existsSync, readFileSync } from "node:fs";
import { open, stat } from "node:fs/promises";
import { join } from "node:path";
import ignore, { type Ignore } from "ignore";
import { decodeWorkspaceBytes, looksLikeSecretFile, type ContentVerdict } from "../../core/context-filter";

const ignoreCache = new Map<string, Ignore>();

/** The rules of one folder's own .gitignore (the workspace root adds .git/ and node_modules/), cached. */
function rulesOf(folder: string, isRoot: boolean): Ignore {
  let rules = ignoreCache.get(folder);
  if (!rules) {
    rules = ignore().add(isRoot ? [".git/", "node_modules/"] : []);
    const file = join(folder, ".gitignore");
    if (existsSync(file)) rules.add(readFileSync(file, "utf8"));
    ignoreCache.set(folder, rules);
  }
  return rules;
}

/**
 * Whether git would ignore `label` (a "/"-separated path relative to the workspace folder
 * `root`), by the .gitignore of the root and of every folder on the way down: a pattern is
 * relative to its own folder, and the deepest .gitignore with a rule for the path decides, so
 * a sub-folder's `!pattern` takes back what a parent ignores. One difference from git: git
 * never reads the .gitignore inside a folder a parent ignores, so there a `!pattern` cannot
 * take a file back; here it can.
 */
export function isGitignored(root: string, label: string): boolean {
  const parts = label.split("/");
  for (let depth = parts.length - 1; depth >= 0; depth--) {
    const folder = join(root, ...parts.slice(0, depth));
    const verdict = rulesOf(folder, depth === 0).test(parts.slice(depth).join("/"));
    if (verdict.ignored) return true;
    if (verdict.unignored) return false;
  }
  return false;
}

/** A .gitignore changed: read it again next time. */
export function forgetGitignores(): void {
  ignoreCache.clear();
}

/**
 * Why a file may not be attached by its name and place alone, or undefined when it may.
 * `label` is its path relative to `root` (the workspace folder), when it has one.
 */
export function refusalByPath(fsPath: string, root?: string, label?: string): string | undefined {
  if (looksLikeSecretFile(fsPath)) return "looks like a secrets file";
  if (root && label && !label.startsWith("..") && isGitignored(root, label)) return "ignored by .gitignore";
  return undefined;
}

/**
 * The largest file attached as context. A context item is cut to its token budget
 * (`context.maxTokensPerFile`, 512 tokens by default) anyway, so a megabyte (~250,000 tokens)
 * is already far more than is ever sent; above it the file is refused, not read.
 */
export const MAX_CONTEXT_FILE_BYTES = 1024 * 1024;

/** A file's text from disk, or why it cannot be sent (too large, deleted, binary, not UTF-8, secrets). */
export async function readFileVerdict(fsPath: string): Promise<ContentVerdict> {
  try {
    // Judged before opening: opening a named pipe waits for a writer, and reading a huge file is what the cap prevents.
    const info = await stat(fsPath);
    if (info.isDirectory()) return { ok: false, reason: "a folder, not a file" };
    if (!info.isFile()) return { ok: false, reason: "not a regular file" };
    if (info.size > MAX_CONTEXT_FILE_BYTES) return tooLarge(info.size);
    const bytes = await readAtMost(fsPath, MAX_CONTEXT_FILE_BYTES + 1);
    // It grew between the size check and the read.
    if (bytes.length > MAX_CONTEXT_FILE_BYTES) return tooLarge(bytes.length);
    return decodeWorkspaceBytes(bytes);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { ok: false, reason: "file no longer exists" };
    if (code === "EISDIR") return { ok: false, reason: "a folder, not a file" };
    return { ok: false, reason: `cannot be read (${code ?? String(error)})` };
  }
}

function tooLarge(bytes: number): ContentVerdict {
  return { ok: false, reason: `over the ${formatBytes(MAX_CONTEXT_FILE_BYTES)} limit for context files (${formatBytes(bytes, 1)})` };
}

/** At most `limit` bytes from the start of a file (fewer when it is shorter). */
async function readAtMost(fsPath: string, limit: number): Promise<Buffer> {
  const handle = await open(fsPath, "r");
  try {
    const buffer = Buffer.alloc(limit);
    let filled = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, filled, limit - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (filled === limit) break;
    }
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

/** "1 MB", "3.0 GB": binary units, `digits` after the point (none for a whole number of units when 0). */
function formatBytes(bytes: number, digits = 0): string {
  const units = ["bytes", "KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(digits)} ${units[unit]}`;
}
