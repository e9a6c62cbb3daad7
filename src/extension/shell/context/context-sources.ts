// Reads workspace context from the editor at send time: the active file, the selection and
// the active file's problems, and any file by path (mentions, pins). Files that are ignored
// by .gitignore, binary, not UTF-8 or look like secrets are refused with a reason (shown as
// skipped chips), never sent.

import { relative } from "node:path";
import * as vscode from "vscode";
import type { ContextItem } from "../../core/context-delta";
import { checkText, type ContentVerdict } from "../../core/context-filter";
import type { RefusedItem } from "../../core/context-plan";
import { readFileVerdict, refusalByPath as refusalOf } from "./file-checks";

export interface GatheredContext {
  readonly items: ContextItem[];
  readonly refused: RefusedItem[];
}

export function relativeLabel(uri: vscode.Uri): { label: string; root?: string } {
  const folder = vscode.workspace.getWorkspaceFolder(uri);
  if (!folder) return { label: uri.fsPath.split(/[\\/]/).pop() ?? uri.fsPath };
  return { label: relative(folder.uri.fsPath, uri.fsPath).replace(/\\/g, "/"), root: folder.uri.fsPath };
}

/** Why a file may not be attached by its name and place alone, or undefined when it may. */
export function refusalByPath(uri: vscode.Uri): string | undefined {
  const { label, root } = relativeLabel(uri);
  return refusalOf(uri.fsPath, root, label);
}

/** A file's text from disk, or why it cannot be sent (deleted, binary, not UTF-8, secrets). */
export function readWorkspaceFile(uri: vscode.Uri): Promise<ContentVerdict> {
  return readFileVerdict(uri.fsPath);
}

async function documentText(document: vscode.TextDocument): Promise<ContentVerdict> {
  if (document.uri.scheme === "file" && !document.isDirty) {
    const fromDisk = await readWorkspaceFile(document.uri);
    // A deleted file still open in an editor: fall back to the editor's buffer.
    if (fromDisk.ok || fromDisk.reason !== "file no longer exists") return fromDisk;
  }
  return checkText(document.getText());
}

/** The open document as a context item: the editor's buffer when it has unsaved edits. */
export async function documentItem(
  document: vscode.TextDocument,
  origin: ContextItem["origin"],
  focusLine?: number,
): Promise<{ item: ContextItem } | { refused: RefusedItem }> {
  const { label } = relativeLabel(document.uri);
  const id = `file:${label}`;
  const byPath = refusalByPath(document.uri);
  if (byPath) return { refused: { id, label, kind: "file", origin: origin ?? "auto", reason: byPath } };
  const text = await documentText(document);
  if (!text.ok) return { refused: { id, label, kind: "file", origin: origin ?? "auto", reason: text.reason } };
  return { item: { id, kind: "file", label, content: text.text, language: document.languageId, origin, focusLine } };
}

export function isContextScheme(uri: vscode.Uri): boolean {
  return uri.scheme === "file" || uri.scheme === "untitled" || uri.scheme === "vscode-remote";
}

export function selectionItem(editor: vscode.TextEditor, origin: ContextItem["origin"]): ContextItem | undefined {
  const selection = editor.selection;
  if (selection.isEmpty) return undefined;
  const { label } = relativeLabel(editor.document.uri);
  return {
    id: "selection",
    kind: "selection",
    label: `Selection in ${label} (lines ${selection.start.line + 1}-${selection.end.line + 1})`,
    content: editor.document.getText(selection),
    language: editor.document.languageId,
    origin,
  };
}

export function problemLines(uri: vscode.Uri, limit: number): string[] {
  return vscode.languages
    .getDiagnostics(uri)
    .filter((d) => d.severity <= vscode.DiagnosticSeverity.Warning)
    .slice(0, limit)
    .map((d) => `line ${d.range.start.line + 1}: ${d.severity === vscode.DiagnosticSeverity.Error ? "error" : "warning"}: ${d.message}${d.source ? ` (${d.source})` : ""}`);
}

/** The automatic context: the active file (unless switched off), its selection and problems. */
export async function gatherEditorContext(editor: vscode.TextEditor | undefined, includeFile = true): Promise<GatheredContext> {
  const items: ContextItem[] = [];
  const refused: RefusedItem[] = [];
  if (!editor || !isContextScheme(editor.document.uri)) return { items, refused };
  const document = editor.document;
  if (includeFile) {
    const file = await documentItem(document, "auto", editor.selection.active.line);
    if ("refused" in file) {
      refused.push(file.refused);
      // Nothing else from a refused file: its selection and problems would leak it.
      return { items, refused };
    }
    items.push(file.item);
  }
  const selected = selectionItem(editor, "auto");
  if (selected) items.push(selected);
  const problems = problemLines(document.uri, 30);
  const { label } = relativeLabel(document.uri);
  if (problems.length > 0) {
    items.push({ id: `diagnostics:${label}`, kind: "diagnostics", label: `Problems in ${label}`, content: problems.join("\n"), origin: "auto" });
  }
  return { items, refused };
}
