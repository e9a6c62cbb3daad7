// A panel's workspace context: what the conversation already holds (ContextLedger) and
// the delta to attach to the next message (DESIGN: workspace context, incrementally).

import type * as vscode from "vscode";
import { ContextLedger, type ContextChipData } from "../core/context-delta";
import type { Tokenizer } from "../core/engine";
import type { TurnInput } from "../core/turn-runner";
import { gatherEditorContext } from "./context-sources";
import { readSettings } from "./settings";

export interface AttachedContext {
  readonly turn: TurnInput;
  /** Record the context as seen by the model; call once the turn was prefilled. */
  readonly commit: () => void;
}

export class PanelContext {
  private readonly ledger = new ContextLedger();

  clear(): void {
    this.ledger.clear();
  }

  async attach(
    text: string,
    tokenizer: Tokenizer,
    editor: vscode.TextEditor | undefined,
    showChips: (chips: readonly ContextChipData[]) => void,
  ): Promise<AttachedContext> {
    const settings = readSettings().context;
    if (!settings.enabled) return { turn: { text }, commit: () => undefined };
    const gathered = await gatherEditorContext(editor);
    const budget = {
      maxTokensPerTurn: settings.maxTokensPerTurn,
      maxTokensPerItem: settings.maxTokensPerItem,
      countTokens: (t: string) => tokenizer.encode(t, { specials: false }).length,
    };
    let delta = this.ledger.delta(gathered.items, budget, gathered.skipped);
    if (delta.chips.length > 0) showChips(delta.chips);
    return {
      turn: {
        text,
        context: (fresh) => {
          if (fresh && this.ledger.size > 0) {
            // The state was reset (first turn or overflow): send items in full, not as diffs.
            this.ledger.clear();
            delta = this.ledger.delta(gathered.items, budget, gathered.skipped);
            showChips(delta.chips);
          }
          return delta.text;
        },
      },
      commit: () => delta.commit(),
    };
  }
}
