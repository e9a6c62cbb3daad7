// The thin activation (src/extension/activation/): activating registers a stand-in for each
// contributed command, view, panel type, model vendor and participant without loading the
// features; the first use loads them once and reaches the real implementation with the same
// arguments; the model list is answered from the last stored one until the features are loaded
// or our settings change. The `vscode` API here is a test double (no extension host outside
// VS Code), named as such; the real path runs in the integration and e2e suites.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { buildSync } from "esbuild";
import type * as vscode from "vscode";
import { contributedIds, type ContributedIds } from "../../src/extension/activation/contributed-ids";
import type { FeatureHosts } from "../../src/extension/activation/feature-hosts";
import { LazyFeatures, type ActivationApi } from "../../src/extension/activation/lazy-features";
import { MODEL_INFO_KEY } from "../../src/extension/activation/model-info-cache";

const root = join(__dirname, "..", "..");

class EventEmitterDouble<T> {
  private listeners: Array<(value: T) => void> = [];
  readonly event = (listener: (value: T) => void) => {
    this.listeners.push(listener);
    return { dispose: () => void (this.listeners = this.listeners.filter((l) => l !== listener)) };
  };
  fire(value: T): void {
    for (const l of [...this.listeners]) l(value);
  }
  dispose(): void {
    this.listeners = [];
  }
}

/** A test double of the `vscode` namespaces the thin activation uses: it records what is registered and refuses a second handler for one command, as VS Code does. */
function apiDouble() {
  const commands = new Map<string, (...args: unknown[]) => unknown>();
  const executed: Array<{ id: string; args: unknown[] }> = [];
  const views = new Map<string, vscode.WebviewViewProvider>();
  const serializers = new Map<string, vscode.WebviewPanelSerializer>();
  const providers = new Map<string, vscode.LanguageModelChatProvider>();
  const participants = new Map<string, vscode.ChatRequestHandler>();
  const configuration = new EventEmitterDouble<vscode.ConfigurationChangeEvent>();
  /** Our settings as this window resolves them (what the stored model list's fingerprint covers). */
  const settings: Record<string, unknown> = { contextSize: 4096 };
  const api = {
    commands: {
      registerCommand: (id: string, handler: (...args: unknown[]) => unknown) => {
        if (commands.has(id)) throw new Error(`command '${id}' already exists`);
        commands.set(id, handler);
        return { dispose: () => void (commands.get(id) === handler && commands.delete(id)) };
      },
      executeCommand: async (id: string, ...args: unknown[]) => {
        executed.push({ id, args });
        const handler = commands.get(id);
        if (!handler) throw new Error(`command '${id}' not found`);
        return handler(...args);
      },
    },
    window: {
      registerWebviewViewProvider: (id: string, provider: vscode.WebviewViewProvider) => (views.set(id, provider), { dispose: () => void views.delete(id) }),
      registerWebviewPanelSerializer: (type: string, serializer: vscode.WebviewPanelSerializer) => (serializers.set(type, serializer), { dispose: () => void serializers.delete(type) }),
    },
    lm: { registerLanguageModelChatProvider: (vendor: string, provider: vscode.LanguageModelChatProvider) => (providers.set(vendor, provider), { dispose: () => void providers.delete(vendor) }) },
    chat: {
      createChatParticipant: (id: string, handler: vscode.ChatRequestHandler) => {
        participants.set(id, handler);
        return { id, dispose: () => void participants.delete(id) } as unknown as vscode.ChatParticipant;
      },
    },
    workspace: { onDidChangeConfiguration: configuration.event, getConfiguration: () => ({ ...settings }) },
    EventEmitter: EventEmitterDouble,
    ThemeIcon: class {
      constructor(readonly id: string) {}
    },
  } as unknown as ActivationApi;
  return { api, commands, executed, views, serializers, providers, participants, configuration, settings };
}

function contextDouble(stored?: unknown, version = "1.0.0"): vscode.ExtensionContext {
  const state = new Map<string, unknown>(stored === undefined ? [] : [[MODEL_INFO_KEY, stored]]);
  return {
    subscriptions: [],
    extension: { packageJSON: { version } },
    globalState: { get: (key: string) => state.get(key), update: async (key: string, value: unknown) => void state.set(key, value), keys: () => [...state.keys()] },
  } as unknown as vscode.ExtensionContext;
}

const IDS: ContributedIds = {
  commands: ["ext.newChat", "ext.addFile"],
  webviewViews: ["ext.view"],
  webviewPanels: ["ext.panel"],
  modelVendors: ["ext-vendor"],
  chatParticipants: ["ext.participant"],
};

/** A list as the thin activation stores it: made by version 1.0.0 with the double's default settings. */
const storedList = (models: unknown, settings: unknown = { contextSize: 4096 }, version = "1.0.0") => ({ fingerprint: JSON.stringify([version, settings]), models });

const MODEL: vscode.LanguageModelChatInformation = { id: "m1", name: "Model One", family: "qwen2", version: "Q4_K_M", maxInputTokens: 30000, maxOutputTokens: 2048, capabilities: { toolCalling: true } };
const token = { isCancellationRequested: false, onCancellationRequested: () => ({ dispose() {} }) } as unknown as vscode.CancellationToken;

/** The features bundle stand-in: what activateFeatures does, recorded. */
function featuresDouble(calls: string[], models: vscode.LanguageModelChatInformation[] = [MODEL]) {
  const changed = new EventEmitterDouble<void>();
  let loads = 0;
  const activate = (api: ActivationApi) => (_context: vscode.ExtensionContext, hosts: FeatureHosts) => {
    loads++;
    api.commands.registerCommand("ext.newChat", (...args: unknown[]) => calls.push(`newChat ${JSON.stringify(args)}`));
    api.commands.registerCommand("ext.addFile", (...args: unknown[]) => calls.push(`addFile ${JSON.stringify(args)}`));
    hosts.registerWebviewViewProvider("ext.view", { resolveWebviewView: () => void calls.push("view resolved") });
    hosts.registerWebviewPanelSerializer("ext.panel", { deserializeWebviewPanel: async (_p, state) => void calls.push(`panel revived ${JSON.stringify(state)}`) });
    hosts.registerLanguageModelChatProvider("ext-vendor", {
      onDidChangeLanguageModelChatInformation: changed.event,
      provideLanguageModelChatInformation: async () => (calls.push("models listed"), models),
      provideLanguageModelChatResponse: async () => void calls.push("response"),
      provideTokenCount: async () => 7,
    });
    hosts.createChatParticipant("ext.participant", () => void calls.push("participant answered"));
    return { testing: "api" };
  };
  return { activate, changed, loads: () => loads };
}

describe("thin activation", () => {
  it("registers a stand-in for everything package.json contributes and loads nothing", () => {
    const vs = apiDouble();
    let loaded = 0;
    const lazy = new LazyFeatures(vs.api, contextDouble(), IDS, () => (loaded++, () => ({})));
    assert.deepEqual([...vs.commands.keys()], IDS.commands);
    assert.deepEqual([...vs.views.keys()], IDS.webviewViews);
    assert.deepEqual([...vs.serializers.keys()], IDS.webviewPanels);
    assert.deepEqual([...vs.providers.keys()], IDS.modelVendors);
    assert.deepEqual([...vs.participants.keys()], IDS.chatParticipants);
    assert.equal(loaded, 0);
    assert.equal(lazy.isLoaded, false);
    assert.equal((lazy.createChatParticipant("ext.participant", () => {}).iconPath as { id?: string }).id, "comment-discussion", "the participant has its icon before the features load");
  });

  it("a command loads the features once and runs the real command with its arguments", async () => {
    const vs = apiDouble();
    const calls: string[] = [];
    const features = featuresDouble(calls);
    new LazyFeatures(vs.api, contextDouble(), IDS, () => features.activate(vs.api));
    await vs.commands.get("ext.addFile")!("file:///a.ts", ["file:///b.ts"]);
    await vs.api.commands.executeCommand("ext.newChat");
    assert.deepEqual(calls, ['addFile ["file:///a.ts",["file:///b.ts"]]', "newChat []"]);
    assert.equal(features.loads(), 1);
  });

  it("the view, the panel serializer and the participant reach the features' own", async () => {
    const vs = apiDouble();
    const calls: string[] = [];
    const features = featuresDouble(calls);
    new LazyFeatures(vs.api, contextDouble(), IDS, () => features.activate(vs.api));
    await vs.serializers.get("ext.panel")!.deserializeWebviewPanel({} as vscode.WebviewPanel, { chatId: "c1" });
    await vs.views.get("ext.view")!.resolveWebviewView({} as vscode.WebviewView, {} as vscode.WebviewViewResolveContext, token);
    await vs.participants.get("ext.participant")!({} as vscode.ChatRequest, {} as vscode.ChatContext, {} as vscode.ChatResponseStream, token);
    assert.deepEqual(calls, ['panel revived {"chatId":"c1"}', "view resolved", "participant answered"]);
    assert.equal(features.loads(), 1);
  });

  it("the model list comes from the stored one without loading, until our settings change", async () => {
    const vs = apiDouble();
    const calls: string[] = [];
    const features = featuresDouble(calls, [{ ...MODEL, id: "m2", name: "Model Two" }]);
    let changes = 0;
    new LazyFeatures(vs.api, contextDouble(storedList([MODEL])), IDS, () => features.activate(vs.api));
    const provider = vs.providers.get("ext-vendor")!;
    provider.onDidChangeLanguageModelChatInformation!(() => changes++);
    assert.deepEqual(await provider.provideLanguageModelChatInformation({ silent: true }, token), [MODEL]);
    assert.equal(features.loads(), 0);
    // Another extension's setting: the stored list stands.
    vs.configuration.fire({ affectsConfiguration: (s: string) => s === "editor" });
    assert.deepEqual(await provider.provideLanguageModelChatInformation({ silent: true }, token), [MODEL]);
    vs.configuration.fire({ affectsConfiguration: (s: string) => s === "statefulChat" });
    assert.equal(changes, 1, "VS Code is told the list may have changed");
    const fresh = await provider.provideLanguageModelChatInformation({ silent: true }, token);
    assert.deepEqual(fresh?.map((m) => m.id), ["m2"]);
    assert.equal(features.loads(), 1);
    assert.equal(changes, 2, "the stored list was served: once loaded, VS Code is asked to query again");
    // The features' own change events now reach VS Code through the stand-in.
    features.changed.fire();
    assert.equal(changes, 3);
  });

  it("a list stored by another version or under other settings (changed while VS Code was closed, another workspace) is not served", async () => {
    for (const stored of [storedList([MODEL], { contextSize: 4096 }, "0.9.0"), storedList([MODEL], { contextSize: 32768 }), [MODEL]]) {
      const vs = apiDouble();
      const features = featuresDouble([], [{ ...MODEL, id: "m2" }]);
      new LazyFeatures(vs.api, contextDouble(stored), IDS, () => features.activate(vs.api));
      const models = await vs.providers.get("ext-vendor")!.provideLanguageModelChatInformation({ silent: true }, token);
      assert.deepEqual(models?.map((m) => m.id), ["m2"], JSON.stringify(stored).slice(0, 80));
      assert.equal(features.loads(), 1);
    }
  });

  it("with no stored list, or a malformed one, the list loads the features and is stored for the next start", async () => {
    for (const stored of [undefined, storedList([{ id: "m1", name: 3 }]), storedList([]), "junk"]) {
      const vs = apiDouble();
      const calls: string[] = [];
      const features = featuresDouble(calls);
      const context = contextDouble(stored);
      new LazyFeatures(vs.api, context, IDS, () => features.activate(vs.api));
      const models = await vs.providers.get("ext-vendor")!.provideLanguageModelChatInformation({ silent: true }, token);
      assert.deepEqual(models, [MODEL]);
      assert.equal(features.loads(), 1);
      assert.deepEqual(context.globalState.get(MODEL_INFO_KEY), storedList([MODEL]));
    }
  });

  it("a response or a token count always goes to the features' provider", async () => {
    const vs = apiDouble();
    const calls: string[] = [];
    const features = featuresDouble(calls);
    new LazyFeatures(vs.api, contextDouble(storedList([MODEL])), IDS, () => features.activate(vs.api));
    const provider = vs.providers.get("ext-vendor")!;
    assert.equal(await provider.provideTokenCount(MODEL, "hello", token), 7);
    await provider.provideLanguageModelChatResponse(MODEL, [], {} as vscode.ProvideLanguageModelChatResponseOptions, { report() {} }, token);
    assert.deepEqual(calls, ["response"]);
  });

  it("a features bundle that fails to start says so, every time, without loading again", async () => {
    const vs = apiDouble();
    let loads = 0;
    new LazyFeatures(vs.api, contextDouble(), IDS, () => {
      loads++;
      throw new Error("Cannot find module 'extension-features.js'");
    });
    const newChat = vs.commands.get("ext.newChat")!;
    assert.throws(() => newChat(), /Stateful Chat could not start: Cannot find module/);
    assert.throws(() => vs.views.get("ext.view")!.resolveWebviewView({} as vscode.WebviewView, {} as vscode.WebviewViewResolveContext, token), /could not start/);
    // The commands are still there, and say why instead of "command not found".
    await assert.rejects(Promise.resolve(vs.api.commands.executeCommand("ext.addFile")), /Stateful Chat could not start/);
    assert.equal(loads, 1);
  });

  it("the features may attach only to what package.json declares", () => {
    const vs = apiDouble();
    const lazy = new LazyFeatures(vs.api, contextDouble(), IDS, () => () => ({}));
    assert.throws(() => lazy.registerWebviewViewProvider("ext.other", { resolveWebviewView() {} }), /contributes no webview view ext\.other/);
    assert.throws(() => lazy.registerWebviewPanelSerializer("ext.other", { deserializeWebviewPanel: async () => {} }), /contributes no webview panel type/);
    assert.throws(() => lazy.createChatParticipant("ext.other", () => {}), /contributes no chat participant/);
  });
});

describe("the real manifest and bundle", () => {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { contributes: { commands: Array<{ command: string }> } };

  it("every id VS Code needs at activation is read from package.json", () => {
    const ids = contributedIds(manifest);
    assert.deepEqual(ids.commands, manifest.contributes.commands.map((c) => c.command));
    assert.deepEqual(ids.webviewViews, ["statefulChat.chatView"]);
    assert.deepEqual(ids.webviewPanels, ["statefulChat.chat"]);
    assert.deepEqual(ids.modelVendors, ["stateful-chat"]);
    assert.deepEqual(ids.chatParticipants, ["statefulChat.stateful"]);
    assert.throws(() => contributedIds({ contributes: { commands: [{ title: "no id" }] } }), /commands\[0\]\.command is not a string/);
  });

  it("the activation bundle holds only the activation code: the features stay in their own bundle", () => {
    const result = buildSync({
      absWorkingDir: root,
      entryPoints: ["src/extension/extension.ts"],
      bundle: true,
      platform: "node",
      format: "cjs",
      write: false,
      metafile: true,
      external: ["vscode", "node-llama-cpp", "@node-llama-cpp/*", "*.node"],
      logLevel: "silent",
    });
    const inputs = Object.keys(result.metafile.inputs);
    const outside = inputs.filter((p) => !/^src\/extension\/(extension\.ts|activation\/)/.test(p));
    assert.deepEqual(outside, []);
  });
});
