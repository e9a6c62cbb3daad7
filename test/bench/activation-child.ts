// The child of test/bench/activation-time.ts: one measurement in a fresh plain-Node process
// (no tsx: its loader would transform and source-map the 850 kB bundle, which VS Code does not).
// Loads out/extension.js with a stand-in for the `vscode` module (a test double, this bench
// only: registrations are recorded and return inert objects, settings are unset), runs
// activate() and one turn of the event loop, and prints the times as JSON.

import { mkdtempSync, readFileSync } from "node:fs";
import Module from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

const root = process.env.STATEFUL_CHAT_ROOT ?? process.cwd();
const bundle = join(root, "out", "extension.js");

export interface RunTimes {
  readonly loadMs: number;
  readonly activateMs: number;
  readonly firstTickMs: number;
  readonly registrations: number;
  /** The first use after it (a command run): loading out/extension-features.js and activating the features. */
  readonly firstUseMs: number;
}

/** A stand-in for the `vscode` module: enough surface for activate(), every call recorded. */
function vscodeStandIn(calls: string[], commands: Map<string, (...args: unknown[]) => unknown>): Record<string, unknown> {
  const disposable = () => ({ dispose() {} });
  const event = () => () => disposable();
  class Disposable {
    constructor(private readonly onDispose?: () => void) {}
    static from(...items: Array<{ dispose(): unknown }>) {
      return new Disposable(() => items.forEach((i) => i.dispose()));
    }
    dispose() {
      this.onDispose?.();
    }
  }
  class EventEmitter {
    event = event();
    fire() {}
    dispose() {}
  }
  const uri = (fsPath: string) => ({ fsPath, path: fsPath, scheme: "file", toString: () => `file://${fsPath}` });
  const Uri = { file: uri, parse: (s: string) => uri(s.replace(/^file:\/\//, "")), joinPath: (base: { fsPath: string }, ...parts: string[]) => uri(join(base.fsPath, ...parts)) };
  const configuration = { get: () => undefined, inspect: () => undefined, has: () => false, update: async () => {} };
  /** What an unknown call returns (a status bar item, a view, a watcher…): every method a no-op, every property settable. */
  const anything = (): unknown => {
    const own = new Map<PropertyKey, unknown>();
    const self: unknown = new Proxy(function () {}, {
      get: (_t, prop) => (own.has(prop) ? own.get(prop) : prop === "then" || typeof prop === "symbol" ? undefined : typeof prop === "string" && prop.startsWith("on") ? event() : () => self),
      set: (_t, prop, value) => own.set(prop, value) !== undefined,
      apply: () => self,
    });
    return self;
  };
  /** Any other member of a namespace: a function that records its call and returns anything(). */
  const namespace = (name: string, known: Record<string, unknown> = {}) =>
    new Proxy(known, {
      get(target, prop) {
        if (prop in target) return target[prop as string];
        if (typeof prop !== "string") return undefined;
        if (prop.startsWith("onDid") || prop.startsWith("onWill")) return event();
        return (..._args: unknown[]) => {
          calls.push(`${name}.${prop}`);
          return anything();
        };
      },
    });
  const outputChannel = () => ({ ...namespace("channel"), appendLine() {}, append() {}, info() {}, warn() {}, error() {}, debug() {}, trace() {}, show() {}, dispose() {} });
  const enumOf = (...names: string[]) => Object.fromEntries(names.map((n, i) => [n, i + 1]));
  return {
    Disposable,
    EventEmitter,
    Uri,
    ThemeIcon: class {},
    Range: class {},
    Position: class {},
    RelativePattern: class {},
    WorkspaceEdit: class {},
    LanguageModelTextPart: class {},
    LanguageModelToolCallPart: class {},
    ExtensionMode: enumOf("Production", "Development", "Test"),
    ConfigurationTarget: enumOf("Global", "Workspace", "WorkspaceFolder"),
    ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
    StatusBarAlignment: enumOf("Left", "Right"),
    ViewColumn: { Active: -1, Beside: -2, One: 1, Two: 2 },
    window: namespace("window", { createOutputChannel: outputChannel, activeTextEditor: undefined, visibleTextEditors: [], tabGroups: { all: [] } }),
    workspace: namespace("workspace", { getConfiguration: () => configuration, workspaceFolders: undefined, workspaceFile: undefined, textDocuments: [] }),
    commands: namespace("commands", {
      registerCommand: (id: string, handler: (...args: unknown[]) => unknown) => {
        calls.push("commands.registerCommand");
        commands.set(id, handler);
        return disposable();
      },
      executeCommand: async () => undefined,
    }),
    languages: namespace("languages"),
    lm: namespace("lm"),
    chat: namespace("chat"),
    env: namespace("env", { uiKind: 1, remoteName: undefined }),
    extensions: namespace("extensions"),
  };
}

function fakeContext(): Record<string, unknown> {
  const storage = mkdtempSync(join(tmpdir(), "sc-activation-"));
  const memento = () => ({ get: (_k: string, d?: unknown) => d, update: async () => {}, keys: () => [], setKeysForSync() {} });
  return {
    subscriptions: [],
    extensionPath: root,
    extensionUri: { fsPath: root, path: root, scheme: "file" },
    globalStorageUri: { fsPath: storage, path: storage, scheme: "file" },
    storageUri: undefined,
    logUri: { fsPath: storage, path: storage, scheme: "file" },
    extensionMode: 1,
    globalState: memento(),
    workspaceState: memento(),
    secrets: { get: async () => undefined, store: async () => {}, delete: async () => {}, onDidChange: () => ({ dispose() {} }) },
    asAbsolutePath: (p: string) => join(root, p),
    // VS Code hands the manifest over already parsed.
    extension: { packageJSON: JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as unknown },
  };
}

/** One measurement, in this (fresh) process. */
export async function measureOnce(): Promise<RunTimes> {
  const calls: string[] = [];
  const commands = new Map<string, (...args: unknown[]) => unknown>();
  const stub = vscodeStandIn(calls, commands);
  const load = (Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown })._load;
  (Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown })._load = function (request: string, ...rest: unknown[]) {
    return request === "vscode" ? stub : load.call(this, request, ...rest);
  };
  const context = fakeContext();
  const t0 = performance.now();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const extension = require(bundle) as { activate(context: unknown): unknown };
  const t1 = performance.now();
  extension.activate(context);
  const t2 = performance.now();
  await new Promise((resolve) => setTimeout(resolve, 0));
  const t3 = performance.now();
  const registrations = calls.length;
  // First use: a command (Show Session Stats) loads and activates the features; the command itself is a no-op here.
  const showStats = commands.get("statefulChat.showStats");
  if (!showStats) throw new Error("activate() registered no statefulChat.showStats");
  const t4 = performance.now();
  await showStats();
  const t5 = performance.now();
  return { loadMs: t1 - t0, activateMs: t2 - t1, firstTickMs: t3 - t2, registrations, firstUseMs: t5 - t4 };
}

void measureOnce().then(
  (times) => {
    process.stdout.write(JSON.stringify(times));
    process.exit(0); // the extension's timers and watchers would keep the process alive
  },
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
