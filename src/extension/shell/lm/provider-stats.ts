// The provider's part of Show Session Stats: the sessions each model's pool holds and what
// the last requests cost (which session served them, cached, prefilled, rewound, restored).

import type * as vscode from "vscode";
import type { ModelPools } from "./lm-pools";

const REQUESTS_SHOWN = 10;

/** Writes the section; returns false when the provider has served nothing yet. */
export async function writeProviderStats(pools: ModelPools, out: vscode.OutputChannel): Promise<boolean> {
  const views = await pools.views();
  if (pools.served.length === 0 && views.length === 0) return false;
  out.appendLine("VS Code Chat and other extensions (language model provider, @stateful):");
  for (const view of views) {
    const live = view.live.map((s) => `${s.id} (${s.position} tokens)`).join(", ") || "none";
    const parked = view.parked.map((s) => `${s.id} (${s.tokens} tokens${s.snapshot ? ", snapshot" : ""})`).join(", ") || "none";
    out.appendLine(`  ${view.model}: live sessions ${live}; parked ${parked}`);
  }
  for (const r of pools.served.slice(-REQUESTS_SHOWN)) {
    const extras = [r.restored ? `restored (${r.restored})` : "", r.parked ? `parked ${r.parked}` : "", r.toolCalls ? `${r.toolCalls} tool calls` : ""].filter(Boolean).join(", ");
    out.appendLine(
      `  ${r.at} ${r.via === "participant" ? "@stateful" : "request"} → ${r.model} ${r.sessionId}: ${r.cached} cached, ${r.prefilled} prefilled, ` +
        `${r.rewound} rewound, ${r.generated} generated, first token ${r.ttftMs} ms, ${r.decodeTokensPerSec} tok/s${extras ? `; ${extras}` : ""}`,
    );
  }
  return true;
}
