// Activation only wires features together; each registers its own disposables.

import { join } from "node:path";
import * as vscode from "vscode";
import { registerChatCommands } from "./shell/chat-commands";
import { registerContextCommands } from "./shell/context/context-commands";
import { EngineRegistry } from "./shell/engine-registry";
import { registerModelCommands } from "./shell/model-commands";
import { PanelManager } from "./shell/panel-manager";
import { createTestingApi, type TestingApi } from "./shell/testing-api";
import { TranscriptStore } from "./shell/transcript-store";

export interface StatefulChatApi {
  readonly testing: TestingApi;
}

export function activate(context: vscode.ExtensionContext): StatefulChatApi {
  const log = vscode.window.createOutputChannel("Stateful Chat", { log: true });
  const stats = vscode.window.createOutputChannel("Stateful Chat Stats");
  const registry = new EngineRegistry(log, join(context.globalStorageUri.fsPath, "llama-threads.json"));
  const store = new TranscriptStore(join(context.globalStorageUri.fsPath, "transcripts"));
  const manager = new PanelManager(context, registry, store, log);
  context.subscriptions.push(log, stats, registry, manager);
  registerChatCommands(context, manager, store, stats);
  registerContextCommands(context, manager);
  registerModelCommands(context);
  return { testing: createTestingApi(manager, registry, store) };
}

export function deactivate(): void {}
