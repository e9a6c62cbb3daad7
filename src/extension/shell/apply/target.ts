// Which file a block goes to, and whether Apply may touch it. The target is the file the block
// names (its info string or the line before it), else the file the question was about (the
// active-file chip it was sent with), else the user picks one. Refused, with nothing
// changed: a path outside the workspace (also through a symbolic link), anything in `.git`, a
// folder, a read-only, binary or not-UTF-8 file, or one over the size budget
// (`statefulChat.apply.maxFileBytes`); `.vscode` is asked about first (core/apply/target-safety.ts).

import { stat } from "node:fs/promises";
import * as vscode from "vscode";
import { matchWorkspacePaths, normalizeRelative, relativeToRoots } from "../../core/apply/paths";
import { relativeLabel } from "../context/context-sources";
import type { WorkspaceFileIndex } from "../context/workspace-files";
import type { ApplyPrompts } from "./prompts";
import { judgeTarget, type TargetVerdict } from "../../core/apply/target-safety";

export interface ApplyTarget {
  readonly uri: vscode.Uri;
  /** Workspace-relative path, as messages and the chat's context name it. */
  readonly label: string;
  readonly exists: boolean;
}

export type Refusal = { readonly ok: false; readonly status: "error" | "cancelled"; readonly message: string };

export interface TargetInput {
  /** The path the block names, as written. */
  readonly named?: string;
  /** The file the question was about (a workspace-relative chip label). */
  readonly fallback?: string;
  readonly prompts: ApplyPrompts;
  readonly files: WorkspaceFileIndex;
  /** Listed first when the user is asked to pick. */
  readonly activeFile?: vscode.Uri;
}

export async function resolveTarget(input: TargetInput): Promise<{ readonly ok: true; readonly target: ApplyTarget } | Refusal> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length === 0) return { ok: false, status: "error", message: "Open a folder first: Apply changes files of the workspace." };
  const path = input.named ?? input.fallback;
  if (path !== undefined) return resolvePath(path, folders, input);
  return pick(input, "The code block names no file: which file should it be applied to?");
}

async function resolvePath(raw: string, folders: readonly vscode.WorkspaceFolder[], input: TargetInput): Promise<{ readonly ok: true; readonly target: ApplyTarget } | Refusal> {
  const outside: Refusal = { ok: false, status: "error", message: `${raw} is outside the workspace: Apply only changes files in the workspace folders.` };
  const relative = normalizeRelative(raw);
  let folder: vscode.WorkspaceFolder | undefined;
  let path: string;
  if (relative.ok) path = relative.path;
  else if (relative.reason === "outside") return outside;
  else {
    const inside = relativeToRoots(raw.replace(/^~(?=[\\/])/, process.env.HOME ?? "~"), folders.map((f) => f.uri.fsPath));
    if (!inside) return outside;
    folder = folders.find((f) => f.uri.fsPath === inside.root);
    path = inside.path;
  }
  // Several folders: a path may start with the folder's name.
  if (!folder && folders.length > 1) {
    const [first, ...rest] = path.split("/");
    const named = folders.find((f) => f.name === first);
    if (named && rest.length > 0) {
      folder = named;
      path = rest.join("/");
    }
  }
  const candidates = folder ? [folder] : folders;
  for (const f of candidates) {
    const uri = vscode.Uri.joinPath(f.uri, ...path.split("/"));
    if (await exists(uri)) return { ok: true, target: { uri, label: relativeLabel(uri).label, exists: true } };
  }
  // Not there as written: models often drop the leading folders (limits.ts for src/limits.ts).
  const matches = matchWorkspacePaths(path, await input.files.paths().catch(() => []));
  if (matches.length === 1 || (matches.length > 1 && input.named === undefined)) {
    const uri = await input.files.uriOf(matches[0]!);
    if (uri) return { ok: true, target: { uri, label: matches[0]!, exists: true } };
  }
  if (matches.length > 1) {
    const chosen = await input.prompts.pickFile(matches, `${raw} is not in the workspace; ${matches.length} files end with it. Which one?`);
    if (!chosen) return { ok: false, status: "cancelled", message: "No file chosen: nothing changed." };
    const uri = await input.files.uriOf(chosen);
    if (uri) return { ok: true, target: { uri, label: chosen, exists: true } };
  }
  const uri = vscode.Uri.joinPath((folder ?? folders[0]!).uri, ...path.split("/"));
  return { ok: true, target: { uri, label: relativeLabel(uri).label, exists: false } };
}

async function pick(input: TargetInput, placeHolder: string): Promise<{ readonly ok: true; readonly target: ApplyTarget } | Refusal> {
  const paths = await input.files.paths().catch(() => [] as string[]);
  const active = input.activeFile ? relativeLabel(input.activeFile).label : undefined;
  const ordered = active && paths.includes(active) ? [active, ...paths.filter((p) => p !== active)] : paths;
  if (ordered.length === 0) return { ok: false, status: "error", message: "The code block names no file, and the workspace has none to apply it to." };
  const chosen = await input.prompts.pickFile(ordered, placeHolder);
  if (!chosen) return { ok: false, status: "cancelled", message: "No file chosen: nothing changed." };
  const uri = await input.files.uriOf(chosen);
  if (!uri) return { ok: false, status: "error", message: `${chosen} is no longer in the workspace.` };
  return { ok: true, target: { uri, label: chosen, exists: true } };
}

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether Apply may write the target, on the real file system (links resolved). Paths of other
 * file systems (a virtual workspace) have no links to follow: their path's folders are judged.
 */
export async function judgeApplyTarget(target: ApplyTarget): Promise<TargetVerdict> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  const folder = vscode.workspace.getWorkspaceFolder(target.uri);
  if (!folder) return { kind: "refused", reason: `${target.label} is outside the workspace: Apply only changes files in the workspace folders.` };
  if (target.uri.scheme === "file" && folder.uri.scheme === "file") {
    return judgeTarget(target.uri.fsPath, folder.uri.fsPath, folders.filter((f) => f.uri.scheme === "file").map((f) => f.uri.fsPath), target.label);
  }
  return judgeTarget(target.uri.path, folder.uri.path, [folder.uri.path], target.label, { resolveLinks: false });
}

export interface TargetContent {
  readonly ok: true;
  /** The text Apply starts from: the editor's buffer when the file is open (dirty or not), else the file. */
  readonly text: string | undefined;
  readonly languageId?: string;
}

/** Whether Apply may change the target, and its current text. */
export async function readTarget(target: ApplyTarget, maxBytes: number): Promise<TargetContent | Refusal> {
  const refuse = (message: string): Refusal => ({ ok: false, status: "error", message });
  if (!target.exists) return { ok: true, text: undefined };
  if (vscode.workspace.fs.isWritableFileSystem(target.uri.scheme) === false) return refuse(`${target.label} is read-only: nothing changed.`);
  let info: vscode.FileStat;
  try {
    info = await vscode.workspace.fs.stat(target.uri);
  } catch {
    return refuse(`${target.label} no longer exists: nothing changed.`);
  }
  if (info.type & vscode.FileType.Directory) return refuse(`${target.label} is a folder, not a file.`);
  if ((info.permissions ?? 0) & vscode.FilePermission.Readonly || (await modeIsReadOnly(target.uri))) {
    return refuse(`${target.label} is read-only: nothing changed.`);
  }
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === target.uri.toString());
  const budget = `${formatBytes(maxBytes)} (statefulChat.apply.maxFileBytes)`;
  if (open?.isDirty) {
    const text = open.getText();
    if (Buffer.byteLength(text) > maxBytes) return refuse(`${target.label} is over the size budget for Apply: ${formatBytes(Buffer.byteLength(text))}, the budget is ${budget}.`);
    if (text.includes("\u0000")) return refuse(`${target.label} is a binary file: Apply only changes text files.`);
    return { ok: true, text, languageId: open.languageId };
  }
  if (info.size > maxBytes) return refuse(`${target.label} is over the size budget for Apply: ${formatBytes(info.size)}, the budget is ${budget}.`);
  const bytes = await vscode.workspace.fs.readFile(target.uri);
  if (bytes.subarray(0, 8192).includes(0)) return refuse(`${target.label} is a binary file: Apply only changes text files.`);
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return refuse(`${target.label} is not valid UTF-8: Apply only changes UTF-8 text files.`);
  }
  const document = open ?? (await vscode.workspace.openTextDocument(target.uri));
  return { ok: true, text: document.getText(), languageId: document.languageId };
}

/** On disk, nobody may write it (root ignores permissions, so write access alone would not say). */
async function modeIsReadOnly(uri: vscode.Uri): Promise<boolean> {
  if (uri.scheme !== "file") return false;
  try {
    return ((await stat(uri.fsPath)).mode & 0o222) === 0;
  } catch {
    return false;
  }
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 102.4) / 10} KB`;
  return `${Math.round(bytes / (1024 * 102.4)) / 10} MB`;
}
