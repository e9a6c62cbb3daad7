// The workspace's file list for @-completion and @workspace: asked of VS Code once
// (`workspace.findFiles`, which applies `files.exclude`), filtered by each folder's
// .gitignore, then cached and kept current by a file watcher, so completing on every
// keystroke ranks an in-memory list instead of searching the disk.

import * as vscode from "vscode";
import { workspaceOutline } from "../../core/context-outline";
import { PathIndex } from "../../core/context-ranking";
import { relativeLabel } from "./context-sources";
import { forgetGitignores, isGitignored } from "./file-checks";

/** Enough for large repositories; past it the list is cut (and completion says so). */
const MAX_INDEXED_FILES = 50_000;

export class WorkspaceFileIndex implements vscode.Disposable {
  private files: Promise<Map<string, vscode.Uri>> | undefined;
  private ranking: { files: Map<string, vscode.Uri>; index: PathIndex } | undefined;
  private outlined: { files: Map<string, vscode.Uri>; maxTokens: number; text: string } | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor() {
    const watcher = vscode.workspace.createFileSystemWatcher("**/*", false, true, false);
    const invalidate = (uri: vscode.Uri) => {
      if (uri.path.endsWith("/.gitignore")) forgetGitignores();
      this.files = undefined;
    };
    this.subscriptions.push(
      watcher,
      watcher.onDidCreate(invalidate),
      watcher.onDidDelete(invalidate),
      vscode.workspace.onDidChangeWorkspaceFolders(() => (this.files = undefined)),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration("files.exclude")) this.files = undefined;
      }),
    );
  }

  /** Workspace-relative paths ("src/a.ts") of every file a mention may name. */
  async paths(): Promise<string[]> {
    return [...(await this.load()).keys()];
  }

  async uriOf(path: string): Promise<vscode.Uri | undefined> {
    return (await this.load()).get(path);
  }

  async complete(query: string, limit: number): Promise<string[]> {
    const files = await this.load();
    if (this.ranking?.files !== files) this.ranking = { files, index: new PathIndex([...files.keys()]) };
    return this.ranking.index.rank(query, limit).map((r) => r.path);
  }

  /** The @workspace folder tree within `maxTokens`, kept until the file list changes (chips recompute often). */
  async outline(maxTokens: number, count: (text: string) => number): Promise<string> {
    const files = await this.load();
    if (this.outlined?.files !== files || this.outlined.maxTokens !== maxTokens) {
      this.outlined = { files, maxTokens, text: workspaceOutline([...files.keys()], maxTokens, count) };
    }
    return this.outlined.text;
  }

  private load(): Promise<Map<string, vscode.Uri>> {
    this.files ??= this.scan().catch((error: unknown) => {
      this.files = undefined;
      throw error;
    });
    return this.files;
  }

  private async scan(): Promise<Map<string, vscode.Uri>> {
    const found = await vscode.workspace.findFiles("**/*", undefined, MAX_INDEXED_FILES);
    const files = new Map<string, vscode.Uri>();
    for (const uri of found) {
      const { label, root } = relativeLabel(uri);
      if (root && isGitignored(root, label)) continue;
      files.set(label, uri);
    }
    return new Map([...files.entries()].sort(([a], [b]) => a.localeCompare(b)));
  }

  dispose(): void {
    for (const d of this.subscriptions.splice(0)) d.dispose();
  }
}

let shared: WorkspaceFileIndex | undefined;

/** One index for all panels (created on first use; registerContextCommands disposes it). */
export function sharedWorkspaceFiles(): WorkspaceFileIndex {
  shared ??= new WorkspaceFileIndex();
  return shared;
}

export function disposeSharedWorkspaceFiles(): void {
  shared?.dispose();
  shared = undefined;
}
