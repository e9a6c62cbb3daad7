// The features bundle (out/extension-features.js), loaded by the thin activation (extension.ts)
// on first use: it only wires features together; each registers its own disposables. What VS
// Code needed at activation (views, panel serializer, model provider, participant) goes to the
// stand-ins through `hosts`.

import { join } from "node:path";
import * as vscode from "vscode";
import type { FeatureHosts } from "./activation/feature-hosts";
import { registerApplyCommands } from "./shell/apply/apply-commands";
import { registerChatCommands } from "./shell/chat/chat-commands";
import { CHAT_VIEW_ID, registerChatView } from "./shell/chat/chat-view";
import { registerSetupModel } from "./shell/models/setup-model";
import { ChatStatusBar } from "./shell/chat/status-bar";
import { registerContextCommands } from "./shell/chat/context-commands";
import { EngineRegistry } from "./shell/engines/engine-registry";
import { GpuBinaries, registerGpuBinaries } from "./shell/engines/gpu-binaries";
import { registerServerSecretCommands, ServerSecrets } from "./shell/settings/server-secrets";
import { registerLanguageModelFeatures } from "./shell/lm/register-lm";
import { registerModelCommands } from "./shell/models/model-commands";
import { PanelManager } from "./shell/chat/panel-manager";
import { createTestingApi, type TestingApi } from "./shell/testing/testing-api";
import { TranscriptStore } from "./chats/transcript-store";
import { readHistoryMaxConversations, registerSettings } from "./shell/settings/settings";

export interface StatefulChatApi {
  /** Only while VS Code runs the extension's tests (ExtensionMode.Test): what the integration suites drive. */
  readonly testing?: TestingApi;
}

export function activateFeatures(context: vscode.ExtensionContext, hosts: FeatureHosts): StatefulChatApi {
  const log = vscode.window.createOutputChannel("Stateful Chat", { log: true });
  const stats = vscode.window.createOutputChannel("Stateful Chat Stats");
  registerSettings(context, log);
  const serverSecrets = new ServerSecrets(context.secrets, context.globalState);
  const gpuBinaries = new GpuBinaries(context, log);
  registerGpuBinaries(context, gpuBinaries);
  const registry = new EngineRegistry(log, join(context.globalStorageUri.fsPath, "llama-threads.json"), serverSecrets, gpuBinaries);
  const store = new TranscriptStore(join(context.globalStorageUri.fsPath, "transcripts"), { maxConversations: readHistoryMaxConversations });
  const manager = new PanelManager(context, registry, store, log, hosts);
  context.subscriptions.push(log, stats, registry, manager);
  // One KV disk budget: the chat provider's parked sessions share the panels' snapshot budget.
  const pools = registerLanguageModelFeatures(context, registry, log, hosts, manager.kvBudget);
  registerChatCommands(context, manager, store, stats, pools);
  const chatView = registerChatView(context, manager, store, hosts);
  const statusBar = new ChatStatusBar(manager);
  context.subscriptions.push(statusBar);
  registerContextCommands(context, manager, chatView);
  registerSetupModel(context, log, () => void vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`));
  const apply = registerApplyCommands(context, manager, log, () => vscode.window.activeTextEditor?.document.uri);
  registerModelCommands(context, log);
  registerServerSecretCommands(context, serverSecrets);
  return context.extensionMode === vscode.ExtensionMode.Test ? { testing: createTestingApi(manager, registry, store, pools, apply, () => statusBar.view) } : {};
}
