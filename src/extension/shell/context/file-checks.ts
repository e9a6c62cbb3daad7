// Whether a workspace file may be attached, and its text: refused when it looks like a
// secrets file, is ignored by its folder's .gitignore, is binary or not UTF-8, or is gone.
// Plain Node (no VS Code), so the refusals are unit-tested on real files.

import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import ignore, { type Ignore } from "ignore";
import { decodeWorkspaceBytes, looksLikeSecretFile, type ContentVerdict } from "../../core/context-filter";

const ignoreCache = new Map<string, Ignore>();

/** The root .gitignore of a workspace folder (plus .git/ and node_modules/), cached. */
export function gitignoreOf(root: string): Ignore {
  let rules = ignoreCache.get(root);
  if (!rules) {
    rules = ignore().add([".git/", "node_modules/"]);
    const file = join(root, ".gitignore");
    if (existsSync(file)) rules.add(readFileSync(file, "utf8"));
    ignoreCache.set(root, rules);
  }
  return rules;
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
  if (root && label && !label.startsWith("..") && gitignoreOf(root).ignores(label)) return "ignored by .gitignore";
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
