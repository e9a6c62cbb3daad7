// VS Code's Chat: the model provider (and, with it, the @stateful participant) wired into the
// extension. Both serve from the same per-model session pools.

import { join } from "node:path";
import * as vscode from "vscode";
import type { FeatureHosts } from "../../activation/feature-hosts";
import type { KvDiskBudget } from "../../core/request-pool/kv-disk-budget";
import { KV_FOLDERS } from "../../snapshots/kv-disk-budget";
import type { EngineRegistry } from "../engines/engine-registry";
import { SETTINGS_SECTION } from "../settings/settings";
import { ModelPools } from "./lm-pools";
import { LM_VENDOR, StatefulChatModelProvider } from "./lm-provider";
import { registerStatefulParticipant } from "./stateful-participant";

export function registerLanguageModelFeatures(context: vscode.ExtensionContext, registry: EngineRegistry, log: vscode.LogOutputChannel, hosts: FeatureHosts, kvBudget?: KvDiskBudget): ModelPools {
  const pools = new ModelPools(registry, join(context.globalStorageUri.fsPath, KV_FOLDERS.pool), log, kvBudget);
  const provider = new StatefulChatModelProvider(context, pools, log);
  context.subscriptions.push(
    pools,
    hosts.registerLanguageModelChatProvider(LM_VENDOR, provider),
    registerStatefulParticipant(context, pools, log, hosts),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(SETTINGS_SECTION)) provider.refresh();
    }),
  );
  // VS Code resolves a provider's models on a selector or on this event; the Chat view's picker
  // only lists resolved ones, so tell it now.
  provider.refresh();
  return pools;
}
