// Reads workspace context from the editor at send time: the active file, the selection and
// the active file's problems. Files that are ignored by .gitignore, binary, not UTF-8 or
// look like secrets are skipped (and shown as skipped chips), never sent.

import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import ignore, { type Ignore } from "ignore";
import * as vscode from "vscode";
import type { ContextChipData, ContextItem } from "../core/context-delta";
import { checkText, decodeWorkspaceBytes, looksLikeSecretFile } from "../core/context-filter";

export interface GatheredContext {
  readonly items: ContextItem[];
  readonly skipped: ContextChipData[];
}

const ignoreCache = new Map<string, Ignore>();

function gitignoreOf(root: string): Ignore {
  let rules = ignoreCache.get(root);
  if (!rules) {
    rules = ignore().add([".git/", "node_modules/"]);
    const file = join(root, ".gitignore");
    if (existsSync(file)) rules.add(readFileSync(file, "utf8"));
    ignoreCache.set(root, rules);
  }
  return rules;
}

function relativeLabel(uri: vscode.Uri): { label: string; root?: string } {
  const folder = vscode.workspace.getWorkspaceFolder(uri);
  if (!folder) return { label: uri.fsPath.split(/[\\/]/).pop() ?? uri.fsPath };
  return { label: relative(folder.uri.fsPath, uri.fsPath).replace(/\\/g, "/"), root: folder.uri.fsPath };
}

async function documentText(document: vscode.TextDocument): Promise<{ ok: true; text: string } | { ok: false; reason: string }> {
  if (document.uri.scheme === "file" && !document.isDirty) {
    try {
      return decodeWorkspaceBytes(await readFile(document.uri.fsPath));
    } catch {
      // fall back to the editor's buffer
    }
  }
  return checkText(document.getText());
}

export async function gatherEditorContext(editor: vscode.TextEditor | undefined): Promise<GatheredContext> {
  const items: ContextItem[] = [];
  const skipped: ContextChipData[] = [];
  if (!editor) return { items, skipped };
  const document = editor.document;
  if (document.uri.scheme !== "file" && document.uri.scheme !== "untitled" && document.uri.scheme !== "vscode-remote") {
    return { items, skipped };
  }
  const { label, root } = relativeLabel(document.uri);
  if (looksLikeSecretFile(document.uri.fsPath)) {
    skipped.push({ label, kind: "skipped", detail: "looks like a secrets file" });
    return { items, skipped };
  }
  if (root && label && !label.startsWith("..") && gitignoreOf(root).ignores(label)) {
    skipped.push({ label, kind: "skipped", detail: "ignored by .gitignore" });
    return { items, skipped };
  }
  const text = await documentText(document);
  if (!text.ok) {
    skipped.push({ label, kind: "skipped", detail: text.reason });
    return { items, skipped };
  }
  items.push({ id: `file:${label}`, kind: "file", label, content: text.text, language: document.languageId });

  const selection = editor.selection;
  if (!selection.isEmpty) {
    const selected = document.getText(selection);
    items.push({
      id: "selection",
      kind: "selection",
      label: `Selection in ${label} (lines ${selection.start.line + 1}-${selection.end.line + 1})`,
      content: selected,
      language: document.languageId,
    });
  }

  const problems = vscode.languages
    .getDiagnostics(document.uri)
    .filter((d) => d.severity <= vscode.DiagnosticSeverity.Warning)
    .slice(0, 30)
    .map((d) => `line ${d.range.start.line + 1}: ${d.severity === vscode.DiagnosticSeverity.Error ? "error" : "warning"}: ${d.message}${d.source ? ` (${d.source})` : ""}`);
  if (problems.length > 0) {
    items.push({ id: `diagnostics:${label}`, kind: "diagnostics", label: `Problems in ${label}`, content: problems.join("\n") });
  }
  return { items, skipped };
}
