// The chat model provider VS Code sees from activation on. Until the features bundle is
// loaded it answers the model list from the last list the real provider gave (globalState),
// so the Chat view's picker can list our models at startup without model discovery; every
// other call (and any list once the settings changed) loads the features and is delegated.

import type * as vscode from "vscode";
import { readModelInfo, writeModelInfo } from "./model-info-cache";

export interface LazyProviderDeps {
  readonly state: Pick<vscode.Memento, "get" | "update">;
  /** What the stored list depends on, now (model-info-cache.ts). */
  readonly fingerprint: () => string;
  /** Loads the features bundle (once); it attaches its provider for this vendor. */
  readonly load: () => void;
  readonly vendor: string;
  readonly changed: vscode.EventEmitter<void>;
}

export class LazyModelProvider implements vscode.LanguageModelChatProvider {
  readonly onDidChangeLanguageModelChatInformation: vscode.Event<void>;
  private target: vscode.LanguageModelChatProvider | undefined;
  private forwarding: vscode.Disposable | undefined;
  /** The stored list answers only while nothing it depends on may have changed since activation. */
  private cacheValid = true;
  /** VS Code was answered from the stored list: once the real provider is here, it must ask again. */
  private servedStored = false;

  constructor(private readonly deps: LazyProviderDeps) {
    this.onDidChangeLanguageModelChatInformation = deps.changed.event;
  }

  /** The features bundle's provider: from now on every call goes to it, and its change events are VS Code's. */
  attach(provider: vscode.LanguageModelChatProvider): vscode.Disposable {
    this.target = provider;
    this.forwarding = provider.onDidChangeLanguageModelChatInformation?.(() => this.deps.changed.fire());
    // The stored list may miss models added to disk since (or list removed ones): ask VS Code to re-query.
    if (this.servedStored) this.deps.changed.fire();
    return { dispose: () => this.detach(provider) };
  }

  /** Our settings changed before the features were loaded: the stored list may be wrong now. */
  invalidate(): void {
    if (this.target || !this.cacheValid) return;
    this.cacheValid = false;
    this.deps.changed.fire();
  }

  async provideLanguageModelChatInformation(options: vscode.PrepareLanguageModelChatModelOptions, token: vscode.CancellationToken): Promise<vscode.LanguageModelChatInformation[]> {
    if (!this.target && this.cacheValid) {
      const stored = readModelInfo(this.deps.state, this.deps.fingerprint());
      if (stored) {
        this.servedStored = true;
        return stored;
      }
    }
    const models = (await this.provider().provideLanguageModelChatInformation(options, token)) ?? [];
    await writeModelInfo(this.deps.state, this.deps.fingerprint(), models);
    return models;
  }

  provideLanguageModelChatResponse(
    model: vscode.LanguageModelChatInformation,
    messages: readonly vscode.LanguageModelChatRequestMessage[],
    options: vscode.ProvideLanguageModelChatResponseOptions,
    progress: vscode.Progress<vscode.LanguageModelResponsePart>,
    token: vscode.CancellationToken,
  ): Thenable<void> {
    return this.provider().provideLanguageModelChatResponse(model, messages, options, progress, token);
  }

  provideTokenCount(model: vscode.LanguageModelChatInformation, text: string | vscode.LanguageModelChatRequestMessage, token: vscode.CancellationToken): Thenable<number> {
    return this.provider().provideTokenCount(model, text, token);
  }

  private provider(): vscode.LanguageModelChatProvider {
    if (!this.target) this.deps.load();
    if (!this.target) throw new Error(`Stateful Chat registered no chat model provider for ${this.deps.vendor}`);
    return this.target;
  }

  private detach(provider: vscode.LanguageModelChatProvider): void {
    if (this.target !== provider) return;
    this.forwarding?.dispose();
    this.forwarding = undefined;
    this.target = undefined;
  }
}
