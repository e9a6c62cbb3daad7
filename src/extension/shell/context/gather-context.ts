// Everything the next message may carry, read fresh from the editor and the disk: the
// automatic context, pinned files and mentions. When one item comes from several places (a
// pinned file that is also the active one), it appears once with the strongest origin.

import * as vscode from "vscode";
import type { ContextItem, ContextOrigin } from "../../core/context-delta";
import type { RefusedItem } from "../../core/context-plan";
import {
  documentItem,
  gatherEditorContext,
  isContextScheme,
  problemLines,
  readWorkspaceFile,
  refusalByPath,
  relativeLabel,
  type GatheredContext,
} from "./context-sources";
import type { ContextChoices, Mention } from "../../chats/context-choices";
import type { WorkspaceFileIndex } from "./workspace-files";

const STRENGTH: Record<ContextOrigin, number> = { auto: 0, mention: 1, pinned: 2 };
/** Open editors attached by @open, at most. */
const MAX_OPEN_EDITORS = 10;

export interface GatherOptions {
  readonly editor: vscode.TextEditor | undefined;
  readonly choices: ContextChoices;
  readonly files: WorkspaceFileIndex;
  readonly maxTokensPerItem: number;
  readonly countTokens: (text: string) => number;
}

async function fileByPath(path: string, origin: ContextOrigin, files: WorkspaceFileIndex): Promise<{ item: ContextItem } | { refused: RefusedItem }> {
  const id = `file:${path}`;
  const uri = (await files.uriOf(path)) ?? uriInWorkspace(path);
  const refuse = (reason: string) => ({ refused: { id, label: path, kind: "file" as const, origin, reason } });
  if (!uri) return refuse("not in the workspace");
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (open?.isDirty) return documentItem(open, origin);
  const byPath = refusalByPath(uri);
  if (byPath) return refuse(byPath);
  const text = await readWorkspaceFile(uri);
  if (!text.ok) return refuse(text.reason);
  return { item: { id, kind: "file", label: path, content: text.text, language: open?.languageId ?? languageOf(path), origin } };
}

/** A path the index does not list (ignored, excluded, or just created): resolve it in the first folder that has it. */
function uriInWorkspace(path: string): vscode.Uri | undefined {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (path.split("/").includes("..")) return undefined;
  return folders.length > 0 ? vscode.Uri.joinPath(folders[0].uri, path) : undefined;
}

function languageOf(path: string): string | undefined {
  const ext = /\.([A-Za-z0-9]+)$/.exec(path)?.[1];
  return ext?.toLowerCase();
}

async function mentionItems(mention: Mention, options: GatherOptions): Promise<Array<{ item: ContextItem } | { refused: RefusedItem }>> {
  switch (mention.kind) {
    case "file":
      return [await fileByPath(mention.path, "mention", options.files)];
    case "snapshot":
      return [{ item: mention.item }];
    case "keyword":
      switch (mention.keyword) {
        case "problems": {
          const lines = vscode.languages
            .getDiagnostics()
            .flatMap(([uri, _]) => problemLines(uri, 20).map((line) => `${relativeLabel(uri).label} ${line}`))
            .slice(0, 60);
          const content = lines.length > 0 ? lines.join("\n") : "No errors or warnings.";
          return [{ item: { id: "diagnostics:workspace", kind: "diagnostics", label: "Problems in the workspace", content, origin: "mention" } }];
        }
        case "workspace": {
          const outline = await options.files.outline(options.maxTokensPerItem, options.countTokens);
          return [{ item: { id: "outline", kind: "outline", label: "Workspace outline", content: outline, origin: "mention" } }];
        }
        case "open": {
          const uris = vscode.window.tabGroups.all
            .flatMap((group) => group.tabs)
            .map((tab) => (tab.input instanceof vscode.TabInputText ? tab.input.uri : undefined))
            .filter((uri): uri is vscode.Uri => uri !== undefined && isContextScheme(uri));
          const paths = [...new Set(uris.map((uri) => relativeLabel(uri).label))].slice(0, MAX_OPEN_EDITORS);
          return Promise.all(paths.map((path) => fileByPath(path, "mention", options.files)));
        }
      }
  }
}

/**
 * Whether a file is open in an editor tab. The last text editor is remembered while a chat has
 * the focus, but once its tab is closed its file is no longer "the active file".
 */
function isOpenInTab(uri: vscode.Uri): boolean {
  const key = uri.toString();
  return vscode.window.tabGroups.all.some((group) => group.tabs.some((tab) => tab.input instanceof vscode.TabInputText && tab.input.uri.toString() === key));
}

export async function gatherContext(options: GatherOptions): Promise<GatheredContext> {
  const { choices } = options;
  const editor = options.editor && isOpenInTab(options.editor.document.uri) ? options.editor : undefined;
  const auto = await gatherEditorContext(editor, !choices.activeFileOff);
  const found: Array<{ item: ContextItem } | { refused: RefusedItem }> = [
    ...auto.refused.map((refused) => ({ refused })),
    ...auto.items.map((item) => ({ item })),
  ];
  for (const path of choices.pinned) found.push(await fileByPath(path, "pinned", options.files));
  for (const mention of choices.mentioned) found.push(...(await mentionItems(mention, options)));

  const byId = new Map<string, { item: ContextItem } | { refused: RefusedItem }>();
  for (const entry of found) {
    const id = "item" in entry ? entry.item.id : entry.refused.id;
    const origin = ("item" in entry ? entry.item.origin : entry.refused.origin) ?? "auto";
    const existing = byId.get(id);
    const existingOrigin = existing ? (("item" in existing ? existing.item.origin : existing.refused.origin) ?? "auto") : undefined;
    if (!existing || STRENGTH[origin] > STRENGTH[existingOrigin ?? "auto"]) {
      // Keep the cursor focus of the active file when a pin or mention names the same file.
      const focusLine = existing && "item" in existing ? existing.item.focusLine : undefined;
      byId.set(id, "item" in entry && focusLine !== undefined ? { item: { ...entry.item, focusLine } } : entry);
    }
  }
  const items: ContextItem[] = [];
  const refused: RefusedItem[] = [];
  for (const entry of byId.values()) {
    if ("item" in entry) items.push(entry.item);
    else refused.push(entry.refused);
  }
  return { items, refused };
}
