// The registrations VS Code needs at activation time, which the features bundle makes later:
// the thin activation (lazy-features.ts) registered stand-ins for them, and the features hand
// their real implementations to those stand-ins through this interface instead of calling
// `vscode.window.registerWebviewViewProvider` & co. themselves (VS Code refuses a second
// registration of the same id).

import type * as vscode from "vscode";

export interface FeatureHosts {
  registerWebviewViewProvider(viewId: string, provider: vscode.WebviewViewProvider): vscode.Disposable;
  registerWebviewPanelSerializer(viewType: string, serializer: vscode.WebviewPanelSerializer): vscode.Disposable;
  registerLanguageModelChatProvider(vendor: string, provider: vscode.LanguageModelChatProvider): vscode.Disposable;
  /** The participant registered at activation, now answered by `handler`. */
  createChatParticipant(id: string, handler: vscode.ChatRequestHandler): vscode.ChatParticipant;
}

/** What the features bundle exports (out/extension-features.js), loaded on first use. */
export type ActivateFeatures<Api> = (context: vscode.ExtensionContext, hosts: FeatureHosts) => Api;
