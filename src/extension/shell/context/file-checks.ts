// Whether a workspace file may be attached, and its text: refused when it looks like a
// secrets file, is ignored by a .gitignore (the root's or a sub-folder's), is binary or not
// UTF-8, or is gone.
// Plain Node (no VS Code), so the refusals are unit-tested on real files.

import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
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

/** A file's text from disk, or why it cannot be sent (deleted, binary, not UTF-8, secrets). */
export async function readFileVerdict(fsPath: string): Promise<ContentVerdict> {
  try {
    return decodeWorkspaceBytes(await readFile(fsPath));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { ok: false, reason: "file no longer exists" };
    if (code === "EISDIR") return { ok: false, reason: "a folder, not a file" };
    return { ok: false, reason: `cannot be read (${code ?? String(error)})` };
  }
}
