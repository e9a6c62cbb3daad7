// Which machine-scoped settings a workspace's own settings files try to set. VS Code drops such
// values before an extension sees them (neither `get()` nor `inspect()` shows them), so the
// only way to tell the user that `.vscode/settings.json` asked for another model or server,
// and was ignored, is to read the files. Read lazily (the first settings read, then when a
// settings file changes), never on activation.

import * as vscode from "vscode";
import { parseJsonc } from "./jsonc";
import { machineSettingsSetIn } from "./setting-reader";

/** The workspace's settings files: each folder's `.vscode/settings.json`, and a `.code-workspace` file's `settings`. */
function settingFiles(): Array<{ readonly uri: vscode.Uri; readonly inWorkspaceFile: boolean }> {
  const files = (vscode.workspace.workspaceFolders ?? []).map((folder) => ({ uri: vscode.Uri.joinPath(folder.uri, ".vscode", "settings.json"), inWorkspaceFile: false }));
  const workspaceFile = vscode.workspace.workspaceFile;
  if (workspaceFile && workspaceFile.scheme !== "untitled") files.push({ uri: workspaceFile, inWorkspaceFile: true });
  return files;
}

async function machineSettingsIn(file: { readonly uri: vscode.Uri; readonly inWorkspaceFile: boolean }): Promise<string[]> {
  let text: string;
  try {
    text = new TextDecoder().decode(await vscode.workspace.fs.readFile(file.uri));
  } catch {
    return []; // no such file: nothing set
  }
  try {
    const parsed = parseJsonc(text);
    const settings = file.inWorkspaceFile && typeof parsed === "object" && parsed !== null ? (parsed as { settings?: unknown }).settings : parsed;
    return machineSettingsSetIn(settings);
  } catch {
    return []; // VS Code reports a broken settings file itself
  }
}

/**
 * Watches the workspace's settings files and reports (short names) the machine-scoped settings
 * they set: once at `start()`, then after each change. Reporting the same name twice is the
 * caller's to dedupe.
 */
export class WorkspaceSettingFiles implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private started = false;
  private scanning: Promise<void> | undefined;
  private again = false;

  constructor(private readonly report: (name: string, file: vscode.Uri) => void) {}

  start(): void {
    if (this.started) return;
    this.started = true;
    const watchers = [
      vscode.workspace.createFileSystemWatcher("**/.vscode/settings.json"),
      ...(vscode.workspace.workspaceFile?.scheme === "file" ? [vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.joinPath(vscode.workspace.workspaceFile, ".."), "*.code-workspace"))] : []),
    ];
    for (const watcher of watchers) {
      this.disposables.push(watcher, watcher.onDidChange(() => this.scan()), watcher.onDidCreate(() => this.scan()));
    }
    // A settings edit also shows as a configuration change (when it touches a setting VS Code applies): scan then too.
    this.disposables.push(vscode.workspace.onDidChangeWorkspaceFolders(() => this.scan()), vscode.workspace.onDidChangeConfiguration(() => this.scan()));
    this.scan();
  }

  /** One scan at a time; a change during a scan runs one more after it. */
  scan(): void {
    if (this.scanning) {
      this.again = true;
      return;
    }
    this.scanning = (async () => {
      for (const file of settingFiles()) for (const name of await machineSettingsIn(file)) this.report(name, file.uri);
    })()
      .catch(() => undefined) // a report that throws must not end the watching
      .finally(() => {
        this.scanning = undefined;
        if (this.again) {
          this.again = false;
          this.scan();
        }
      });
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
