// Thin activation: everything VS Code must find at activation (each contributed command, the
// webview view, the panel serializer, the chat model provider, the chat participant) is
// registered here as a stand-in, and the features bundle (out/extension-features.js: chats,
// engines, model discovery, ~900 kB) is loaded on the first use of any of them. So activating,
// which VS Code does at every startup (onStartupFinished: the Chat view's picker lists only
// providers that are already up), costs a small bundle, not the whole extension.
//
// A command stand-in, when run, removes every command stand-in, loads the features (which
// register the real commands) and runs the real command with the same arguments. The other
// stand-ins stay registered and delegate to what the features attach through FeatureHosts.

import type * as vscode from "vscode";
import type { ContributedIds } from "./contributed-ids";
import type { ActivateFeatures, FeatureHosts } from "./feature-hosts";
import { LazyModelProvider } from "./lazy-model-provider";

/** The part of the `vscode` module the thin activation uses (the real module in VS Code, a test double in unit tests). */
export interface ActivationApi {
  readonly commands: Pick<typeof vscode.commands, "registerCommand" | "executeCommand">;
  readonly window: Pick<typeof vscode.window, "registerWebviewViewProvider" | "registerWebviewPanelSerializer">;
  readonly lm: Pick<typeof vscode.lm, "registerLanguageModelChatProvider">;
  readonly chat: Pick<typeof vscode.chat, "createChatParticipant">;
  readonly workspace: Pick<typeof vscode.workspace, "onDidChangeConfiguration" | "getConfiguration">;
  readonly EventEmitter: typeof vscode.EventEmitter;
  readonly ThemeIcon: typeof vscode.ThemeIcon;
}

/** The chat participant's icon (a codicon), shown before the features load too. */
const PARTICIPANT_ICON = "comment-discussion";

/** The extension's own section: a change there may change the model list. */
const SETTINGS_SECTION = "statefulChat";

export class LazyFeatures<Api> implements FeatureHosts, vscode.Disposable {
  private commandStandIns: vscode.Disposable[] = [];
  private readonly registrations: vscode.Disposable[] = [];
  private readonly views = new Map<string, vscode.WebviewViewProvider>();
  private readonly serializers = new Map<string, vscode.WebviewPanelSerializer>();
  private readonly providers = new Map<string, LazyModelProvider>();
  private readonly participants = new Map<string, { readonly participant: vscode.ChatParticipant; handler?: vscode.ChatRequestHandler }>();
  private loaded: { readonly api: Api } | undefined;
  private failure: Error | undefined;
  private loading = false;

  constructor(
    private readonly api: ActivationApi,
    private readonly context: vscode.ExtensionContext,
    private readonly ids: ContributedIds,
    private readonly loadFeatures: () => ActivateFeatures<Api>,
  ) {
    for (const id of ids.commands) {
      this.commandStandIns.push(api.commands.registerCommand(id, (...args: unknown[]) => this.runCommand(id, args)));
    }
    for (const id of ids.webviewViews) {
      const standIn: vscode.WebviewViewProvider = { resolveWebviewView: (view, resolveContext, token) => this.loadedView(id).resolveWebviewView(view, resolveContext, token) };
      // Hidden, a view's webview is destroyed and reloads from the chat's state when shown
      // again (the chat itself lives in the host): no webview kept in memory for a closed side bar.
      this.registrations.push(api.window.registerWebviewViewProvider(id, standIn, { webviewOptions: { retainContextWhenHidden: false } }));
    }
    for (const type of ids.webviewPanels) {
      const standIn: vscode.WebviewPanelSerializer = { deserializeWebviewPanel: (panel, state: unknown) => this.loadedSerializer(type).deserializeWebviewPanel(panel, state) };
      this.registrations.push(api.window.registerWebviewPanelSerializer(type, standIn));
    }
    for (const vendor of ids.modelVendors) {
      const changed = new api.EventEmitter<void>();
      const provider = new LazyModelProvider({ state: context.globalState, fingerprint: () => this.modelListFingerprint(), load: () => this.load(), vendor, changed });
      this.providers.set(vendor, provider);
      this.registrations.push(changed, api.lm.registerLanguageModelChatProvider(vendor, provider));
      // VS Code resolves a provider's models on a selector or on this event; the Chat view's
      // picker only lists resolved ones, so tell it now.
      changed.fire();
    }
    for (const id of ids.chatParticipants) {
      const entry: { participant: vscode.ChatParticipant; handler?: vscode.ChatRequestHandler } = {
        participant: api.chat.createChatParticipant(id, (request, chatContext, stream, token) => this.loadedHandler(id)(request, chatContext, stream, token)),
      };
      entry.participant.iconPath = new api.ThemeIcon(PARTICIPANT_ICON);
      this.participants.set(id, entry);
      this.registrations.push(entry.participant);
    }
    this.registrations.push(
      api.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration(SETTINGS_SECTION)) for (const provider of this.providers.values()) provider.invalidate();
      }),
    );
  }

  get isLoaded(): boolean {
    return this.loaded !== undefined;
  }

  /** Loads the features bundle and activates it, once; what it returned (the testing API in tests). */
  load(): Api {
    if (this.loaded) return this.loaded.api;
    if (this.failure) throw this.failure;
    if (this.loading) throw new Error("Stateful Chat is still starting: try again");
    this.loading = true;
    try {
      // The real commands replace the stand-ins: VS Code refuses two handlers for one id.
      for (const standIn of this.commandStandIns) standIn.dispose();
      this.commandStandIns = [];
      this.loaded = { api: this.loadFeatures()(this.context, this) };
      return this.loaded.api;
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      failure.message = `Stateful Chat could not start: ${failure.message}`;
      this.failure = failure;
      // Every command the features did not get to register says why, instead of "command not found".
      for (const id of this.ids.commands) {
        try {
          this.commandStandIns.push(this.api.commands.registerCommand(id, () => Promise.reject(failure)));
        } catch {
          // Registered by the features before they failed: theirs stays.
        }
      }
      throw failure;
    } finally {
      this.loading = false;
    }
  }

  registerWebviewViewProvider(viewId: string, provider: vscode.WebviewViewProvider): vscode.Disposable {
    return this.attach(this.views, this.ids.webviewViews, viewId, provider, "webview view");
  }

  registerWebviewPanelSerializer(viewType: string, serializer: vscode.WebviewPanelSerializer): vscode.Disposable {
    return this.attach(this.serializers, this.ids.webviewPanels, viewType, serializer, "webview panel type");
  }

  registerLanguageModelChatProvider(vendor: string, provider: vscode.LanguageModelChatProvider): vscode.Disposable {
    const standIn = this.providers.get(vendor);
    if (!standIn) throw new Error(`package.json contributes no language model chat provider ${vendor}`);
    return standIn.attach(provider);
  }

  createChatParticipant(id: string, handler: vscode.ChatRequestHandler): vscode.ChatParticipant {
    const entry = this.participants.get(id);
    if (!entry) throw new Error(`package.json contributes no chat participant ${id}`);
    entry.handler = handler;
    return entry.participant;
  }

  dispose(): void {
    for (const d of [...this.commandStandIns, ...this.registrations]) d.dispose();
    this.commandStandIns = [];
    this.registrations.length = 0;
  }

  /** What the stored model list depends on: our version and our settings as this window resolves them. */
  private modelListFingerprint(): string {
    const version = (this.context.extension?.packageJSON as { version?: unknown } | undefined)?.version;
    return JSON.stringify([version, this.api.workspace.getConfiguration(SETTINGS_SECTION)]);
  }

  private runCommand(id: string, args: readonly unknown[]): Thenable<unknown> {
    this.load();
    return this.api.commands.executeCommand(id, ...args);
  }

  private loadedView(id: string): vscode.WebviewViewProvider {
    this.load();
    const provider = this.views.get(id);
    if (!provider) throw new Error(`Stateful Chat registered no provider for the view ${id}`);
    return provider;
  }

  private loadedSerializer(type: string): vscode.WebviewPanelSerializer {
    this.load();
    const serializer = this.serializers.get(type);
    if (!serializer) throw new Error(`Stateful Chat registered no serializer for ${type}`);
    return serializer;
  }

  private loadedHandler(id: string): vscode.ChatRequestHandler {
    this.load();
    const handler = this.participants.get(id)?.handler;
    if (!handler) throw new Error(`Stateful Chat registered no handler for the participant ${id}`);
    return handler;
  }

  private attach<T>(map: Map<string, T>, contributed: readonly string[], id: string, value: T, what: string): vscode.Disposable {
    // Only a stand-in registered at activation can reach it: package.json must declare it.
    if (!contributed.includes(id)) throw new Error(`package.json contributes no ${what} ${id}`);
    if (map.has(id)) throw new Error(`a second registration of the ${what} ${id}`);
    map.set(id, value);
    return { dispose: () => (map.get(id) === value ? map.delete(id) : undefined) };
  }
}
