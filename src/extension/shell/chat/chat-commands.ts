// Commands that act on chat panels: New Chat, Reset Conversation, Stop Generating,
// Show Session Stats; the history's commands are in history-commands.ts.

import * as vscode from "vscode";
import type { ChatPanel } from "./chat-panel";
import { registerHistoryCommands } from "./history-commands";
import type { ModelPools } from "../lm/lm-pools";
import { writeProviderStats } from "../lm/provider-stats";
import type { PanelManager } from "./panel-manager";
import type { TranscriptStore } from "../../chats/transcript-store";

async function pickPanel(manager: PanelManager, placeHolder: string, quiet = false): Promise<ChatPanel | undefined> {
  const active = manager.active;
  if (active) return active;
  const panels = manager.all;
  if (panels.length === 0) {
    if (!quiet) void vscode.window.showInformationMessage("No chat is open. Run “Stateful Chat: New Chat” first.");
    return undefined;
  }
  if (panels.length === 1) return panels[0];
  const picked = await vscode.window.showQuickPick(
    panels.map((panel) => ({ label: panel.title, description: panel.busy ? "generating" : undefined, panel })),
    { placeHolder },
  );
  return picked?.panel;
}

export function registerChatCommands(
  context: vscode.ExtensionContext,
  manager: PanelManager,
  store: TranscriptStore,
  stats: vscode.OutputChannel,
  pools: ModelPools,
): void {
  registerHistoryCommands(context, manager, store);
  context.subscriptions.push(
    vscode.commands.registerCommand("statefulChat.newChat", () => manager.create()),
    vscode.commands.registerCommand("statefulChat.resetConversation", async () => {
      const panel = await pickPanel(manager, "Reset which conversation?");
      if (panel) await panel.reset();
    }),
    vscode.commands.registerCommand("statefulChat.stopGenerating", () => {
      const panel = manager.active ?? manager.all.find((p) => p.busy);
      panel?.stop();
    }),
    vscode.commands.registerCommand("statefulChat.showStats", async () => {
      const servedByProvider = pools.served.length > 0;
      const panel = await pickPanel(manager, "Show the stats of which conversation?", servedByProvider);
      stats.clear();
      if (!panel) {
        if (await writeProviderStats(pools, stats)) stats.show(true);
        return;
      }
      const s = panel.stats;
      const t = s.lastTurn;
      stats.appendLine(`Chat: ${panel.title}`);
      stats.appendLine(`Model: ${s.model ? `${s.model.name} (${s.model.details})` : "not loaded"}`);
      stats.appendLine(`Context: ${s.position} / ${s.capacity} tokens (${s.capacity ? Math.round((100 * s.position) / s.capacity) : 0}%)`);
      if (t) {
        stats.appendLine(`Last turn #${t.turn}: ${t.prefilled} tokens prefilled, ${t.cached} reused from cache, ${t.replyTokens} generated`);
        stats.appendLine(`  first token ${t.ttftMs} ms, decode ${t.decodeTokensPerSec} tokens/s, stopped by ${t.stopReason}${t.restored ? ", restored from transcript" : ""}`);
        if (t.rewound > 0) stats.appendLine(`  rewound ${t.rewound} tokens: the chat template re-rendered the last exchange`);
        if (t.thinkingTokens > 0) stats.appendLine(`  thought for ${t.thinkingTokens} tokens`);
        if (t.speculation) {
          const sp = t.speculation;
          stats.appendLine(`  speculative decoding: ${sp.accepted} of ${sp.drafted} drafted tokens accepted, ${sp.steps} model steps, ${sp.tokensPerStep} tokens per step`);
        }
        if (t.overflow) stats.appendLine(`  overflow: ${t.overflow.strategy}, ${t.overflow.positionBefore} → ${t.overflow.positionAfter} tokens`);
      }
      if (servedByProvider) {
        stats.appendLine("");
        await writeProviderStats(pools, stats);
      }
      stats.show(true);
    }),
    // Offered by the banner after an engine crash: the active chat sends its failed message again.
    vscode.commands.registerCommand("statefulChat.retry", async () => {
      await manager.active?.retry();
    }),
    vscode.commands.registerCommand("statefulChat.openSettings", () =>
      vscode.commands.executeCommand("workbench.action.openSettings", "statefulChat"),
    ),
  );
}
