// Whether Apply may write a path, judged on the real file system rather than the path's text:
// a symbolic link inside the workspace may lead anywhere, and writing through it changes what
// it points to. Refused: a target whose real path (links resolved, up to its deepest existing
// folder for a new file) leaves the workspace folders, a dangling link, and anything in a
// `.git` folder (hooks there run code; the index and objects are Git's). Asked first: `.vscode`
// (tasks.json and launch.json run commands, settings.json changes what tools do) and any
// `*.code-workspace` file, which carries the same settings, tasks and launch configs. Node only,
// no `vscode`, so it is tested on real folders with real links.

import { lstat, realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, sep } from "node:path";

export type TargetVerdict =
  | { readonly kind: "allowed" }
  | { readonly kind: "refused"; readonly reason: string }
  | { readonly kind: "confirm"; readonly reason: string };

/** Folders Apply never writes into, and folders it asks about first (compared case-insensitively). */
const REFUSED_FOLDERS = [".git"] as const;
const CONFIRMED_FOLDERS = [".vscode"] as const;
/** File name endings Apply asks about first, wherever the file is (compared case-insensitively). */
const CONFIRMED_FILE_ENDINGS = [".code-workspace"] as const;

/**
 * Judges `target` (an absolute path) inside `folder` (the workspace folder it belongs to);
 * `folders`: every workspace folder (a link from one into another stays in the workspace).
 * `label` names the target in the reason. `resolveLinks: false` for paths that are not on this
 * machine's file system (a virtual workspace): only the path's own folders are judged.
 */
export async function judgeTarget(target: string, folder: string, folders: readonly string[], label: string, options: { readonly resolveLinks?: boolean } = {}): Promise<TargetVerdict> {
  const lexical = inside(folder, target);
  if (lexical === undefined) return { kind: "refused", reason: `${label} is outside the workspace: Apply only changes files in the workspace folders.` };
  if (options.resolveLinks === false) return judgeSegments([segmentsOf(lexical)], label);
  const real = await realTarget(target);
  if (real.kind === "dangling") return { kind: "refused", reason: `${label} is a symbolic link Apply cannot follow (what it points to is missing): writing through it would create a file wherever it points.` };
  const roots = await Promise.all(folders.map((f) => realpath(f).catch(() => undefined)));
  const containing = roots.map((root) => (root === undefined ? undefined : inside(root, real.path))).find((rel) => rel !== undefined);
  if (containing === undefined) {
    return { kind: "refused", reason: `${label} leads outside the workspace through a symbolic link (to ${real.path}): Apply only changes files in the workspace folders.` };
  }
  return judgeSegments([segmentsOf(lexical), segmentsOf(containing)], label);
}

/** The verdict on a path's folders and file name, as written and as resolved (each a list of segments). */
function judgeSegments(paths: readonly (readonly string[])[], label: string): TargetVerdict {
  const segments = paths.flat();
  const refused = REFUSED_FOLDERS.find((name) => segments.includes(name));
  if (refused) return { kind: "refused", reason: `${label} is inside ${refused}/, which belongs to Git (its hooks run code): Apply does not change it.` };
  const confirmed = CONFIRMED_FOLDERS.find((name) => segments.includes(name));
  if (confirmed) {
    return { kind: "confirm", reason: `${label} is in ${confirmed}/, the workspace's VS Code configuration: tasks.json and launch.json run commands, settings.json changes what tools do.` };
  }
  const names = paths.map((path) => path[path.length - 1] ?? "");
  const ending = CONFIRMED_FILE_ENDINGS.find((end) => names.some((name) => name.endsWith(end)));
  if (ending) {
    return { kind: "confirm", reason: `${label} is a VS Code workspace file (*${ending}): like .vscode/, its settings change what tools do and its tasks and launch configs run commands.` };
  }
  return { kind: "allowed" };
}

/** `path` relative to `root` when it is inside it ("" for the root itself), else undefined. */
function inside(root: string, path: string): string | undefined {
  const rel = relative(root, path);
  if (rel === "") return rel;
  if (isAbsolute(rel) || rel === ".." || rel.startsWith(`..${sep}`)) return undefined;
  return rel;
}

/**
 * Path segments as the file system may read them: lower-cased (macOS and Windows ignore
 * case) and without what Windows drops or treats as a stream (trailing dots and spaces, `::$…`).
 */
function segmentsOf(rel: string): string[] {
  return rel
    .split(/[\\/]+/)
    .filter((s) => s !== "")
    .map((s) => s.replace(/:.*$/, "").replace(/[. ]+$/, "").toLowerCase());
}

/**
 * The real path the target resolves to: its own if it exists, else its deepest existing
 * folder's with the missing names appended. A link whose destination is missing is reported:
 * writing to it would create the file wherever the link points.
 */
async function realTarget(target: string): Promise<{ readonly kind: "real"; readonly path: string } | { readonly kind: "dangling" }> {
  const missing: string[] = [];
  let at = target;
  for (;;) {
    try {
      return { kind: "real", path: join(await realpath(at), ...missing.reverse()) };
    } catch {
      if (await lstat(at).then(() => true, () => false)) return { kind: "dangling" };
      const parent = dirname(at);
      if (parent === at) return { kind: "real", path: join(at, ...missing.reverse()) };
      missing.push(basename(at));
      at = parent;
    }
  }
}
