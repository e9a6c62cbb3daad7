// A panel's workspace context: what the conversation already holds (ContextLedger), what the
// user chose for the next message (ContextChoices), and the composer chips that show it
// before sending. Chips and sent context come from one plan (core/context-plan), so what is
// sent is what the chips showed (DESIGN: workspace context, incrementally).

import * as vscode from "vscode";
import { ContextLedger, type ContextChipData, type SavedContextItem } from "../../core/context-delta";
import { planContext, type ContextPlanInput } from "../../core/context-plan";
import type { Tokenizer } from "../../core/engine";
import type { TurnInput } from "../../core/turn-runner";
import type { ComposerChip, HostToWebview, MentionOption, WebviewToHost } from "../../../webview/protocol/messages";
import { ContextChoices, MENTION_KEYWORDS } from "../../chats/context-choices";
import { gatherContext } from "../context/gather-context";
import { mentionOptions } from "../context/mention-options";
import type { WorkspaceFileIndex } from "../context/workspace-files";
import { isContextScheme, selectionItem } from "../context/context-sources";
import { Disposable } from "./disposable";
import type { ChatSurface } from "./chat-surface";
import { readSettings } from "../settings/settings";

export interface AttachedContext {
  readonly turn: TurnInput;
  /** Record the context as seen by the model; call once the turn was prefilled. */
  readonly commit: () => void;
}

export interface PanelContextDeps {
  /** Where the chat is shown: chips are recomputed only while it is visible. */
  readonly surface: Pick<ChatSurface, "visible" | "onDidChangeViewState">;
  readonly files: WorkspaceFileIndex;
  readonly editor: () => vscode.TextEditor | undefined;
  /** The loaded model's tokenizer; until it loads, chips show an estimate. */
  readonly tokenizer: () => Tokenizer | undefined;
  readonly post: (message: HostToWebview) => void;
  /** Where a failed chip refresh is reported (it would otherwise leave the chips stale, silently). */
  readonly warn: (message: string) => void;
  /** A pin or the active-file switch changed: the transcript saves them (they outlast a reload). */
  readonly onLastingChange?: () => void;
}

export type ContextMessage = Extract<WebviewToHost, { type: "removeChip" | "pinChip" | "setActiveFile" | "mentionQuery" | "addMention" }>;

/** Editor events come in bursts (typing, moving the cursor): recompute the chips once per pause. */
const REFRESH_DELAY_MS = 150;
const MAX_COUNT_CACHE = 256;

export class PanelContext extends Disposable {
  private readonly ledger = new ContextLedger();
  readonly choices = new ContextChoices();
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;
  private refreshSeq = 0;
  private readonly counts = new Map<string, number>();
  private countsFor: Tokenizer | undefined;

  constructor(private readonly deps: PanelContextDeps) {
    super();
    const later = () => this.scheduleRefresh();
    this.own(vscode.window.onDidChangeActiveTextEditor(later));
    // Output channels (our own log among them) are documents too: only workspace files count.
    this.own(vscode.window.onDidChangeTextEditorSelection((e) => isContextScheme(e.textEditor.document.uri) && later()));
    this.own(vscode.workspace.onDidChangeTextDocument((e) => isContextScheme(e.document.uri) && later()));
    this.own(vscode.languages.onDidChangeDiagnostics(later));
    this.own(deps.surface.onDidChangeViewState(later));
    this.own(vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration("statefulChat.context") && later()));
  }

  clear(): void {
    this.ledger.clear();
    this.choices.clear();
    this.scheduleRefresh();
  }

  /** What the model holds, saved with the chat's KV snapshot. */
  saved(): SavedContextItem[] {
    return this.ledger.saved();
  }

  /** A reopened chat's cache was restored from its snapshot: the context it holds is known again (not re-sent). */
  restore(items: readonly SavedContextItem[]): void {
    this.ledger.restore(items);
    this.scheduleRefresh();
  }

  /** Handles the composer's context messages (chips, pins, the active-file switch, mentions). */
  async handle(message: ContextMessage): Promise<void> {
    switch (message.type) {
      case "removeChip":
        this.choices.remove(message.id);
        this.deps.onLastingChange?.();
        break;
      case "pinChip":
        if (message.id.startsWith("file:")) this.choices.pin(message.id.slice(5), message.pinned);
        this.deps.onLastingChange?.();
        break;
      case "setActiveFile":
        this.choices.activeFileOff = !message.on;
        this.deps.onLastingChange?.();
        break;
      case "mentionQuery": {
        const options: MentionOption[] = await mentionOptions(message.query, this.deps.files);
        this.deps.post({ type: "mentionResults", requestId: message.requestId, options });
        return;
      }
      case "addMention":
        this.addMention(message.value);
        break;
    }
    await this.refresh();
  }

  /** A workspace file as the model last saw it in this conversation (Apply checks a reply's anchors against it). */
  seenFile(path: string): string | undefined {
    return this.ledger.contentOf(`file:${path}`);
  }

  /** Apply changed a file: the next message re-checks it, so a file the model knows goes as a diff. */
  noteApplied(path: string): void {
    if (this.ledger.has(`file:${path}`)) this.addFile(path);
  }

  /** A mention from the composer, a command (Add File to Chat) or a keyword. */
  addMention(value: string): void {
    const keyword = MENTION_KEYWORDS.find((k) => k === value);
    if (keyword === "selection") this.attachSelection();
    else if (keyword) this.choices.mention({ kind: "keyword", keyword });
    else this.choices.mention({ kind: "file", path: value.replace(/^\.?\//, "") });
    this.scheduleRefresh();
  }

  /** Add File to Chat: a workspace-relative path (never read as a keyword). */
  addFile(path: string): void {
    this.choices.mention({ kind: "file", path });
    this.scheduleRefresh();
  }

  /** Ask About Selection / @selection: the selection as it is now, even if the editor moves on. */
  attachSelection(): boolean {
    return this.attachSelectionOf(this.deps.editor());
  }

  attachSelectionOf(editor: vscode.TextEditor | undefined): boolean {
    const item = editor && selectionItem(editor, "mention");
    if (!item) {
      this.deps.post({ type: "banner", level: "warning", message: "Nothing is selected in the editor: select some code first, then mention @selection.", actions: [] });
      return false;
    }
    this.choices.mention({ kind: "snapshot", item });
    this.scheduleRefresh();
    return true;
  }

  async attach(text: string, tokenizer: Tokenizer, showChips: (chips: readonly ContextChipData[]) => void, chosen?: readonly string[]): Promise<AttachedContext> {
    const settings = readSettings().context;
    // Off: nothing is sent, but a reset state (an overflow) still no longer holds what was sent before.
    if (!settings.enabled) {
      const nothing = (fresh: boolean) => {
        if (fresh) this.ledger.clear();
        return "";
      };
      return { turn: { text, context: nothing }, commit: () => undefined };
    }
    const input = await this.planInput(tokenizer, chosen);
    const budget = this.budget(tokenizer);
    let plan = planContext(this.ledger, input, budget);
    // The mentions and set-asides belonged to this message; the composer starts over.
    this.choices.sent();
    this.scheduleRefresh();
    if (plan.delta.chips.length > 0) showChips(plan.delta.chips);
    return {
      turn: {
        text,
        context: (fresh) => {
          if (fresh && this.ledger.size > 0) {
            // The state was reset (first turn or overflow): send items in full, not as diffs.
            this.ledger.clear();
            plan = planContext(this.ledger, input, budget);
            showChips(plan.delta.chips);
          }
          return plan.delta.text;
        },
      },
      commit: () => {
        plan.delta.commit();
        this.scheduleRefresh();
      },
    };
  }

  scheduleRefresh(): void {
    if (this.isDisposed) return;
    clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => void this.refresh().catch((error: unknown) => this.deps.warn(`Updating the composer's context chips failed: ${String(error)}`)), REFRESH_DELAY_MS);
  }

  /** Recomputes the composer chips and posts them (only while the panel can be seen). */
  async refresh(): Promise<void> {
    clearTimeout(this.refreshTimer);
    if (this.isDisposed || !this.deps.surface.visible) return;
    const seq = ++this.refreshSeq;
    const settings = readSettings().context;
    let chips: ComposerChip[] = [];
    if (settings.enabled) {
      const tokenizer = this.deps.tokenizer();
      const plan = planContext(this.ledger, await this.planInput(tokenizer), this.budget(tokenizer));
      chips = plan.chips.map((c) => ({ ...c }));
    }
    if (seq !== this.refreshSeq || this.isDisposed) return;
    this.deps.post({ type: "composerContext", chips, activeFileOff: this.choices.activeFileOff });
  }

  private async planInput(tokenizer: Tokenizer | undefined, chosen?: readonly string[]): Promise<ContextPlanInput> {
    const settings = readSettings().context;
    const gathered = await gatherContext({
      editor: this.deps.editor(),
      choices: this.choices,
      files: this.deps.files,
      maxTokensPerItem: settings.maxTokensPerItem,
      countTokens: this.counter(tokenizer),
    });
    return { ...gathered, setAside: new Set(this.choices.setAside), chosen: chosen ? new Set(chosen) : undefined };
  }

  private budget(tokenizer: Tokenizer | undefined) {
    const settings = readSettings().context;
    return { maxTokensPerTurn: settings.maxTokensPerTurn, maxTokensPerItem: settings.maxTokensPerItem, countTokens: this.counter(tokenizer) };
  }

  /** Token counts, memoized: the chips are recomputed on every pause in typing. */
  private counter(tokenizer: Tokenizer | undefined): (text: string) => number {
    if (!tokenizer) return (text) => Math.ceil(text.length / 4);
    if (this.countsFor !== tokenizer) {
      this.counts.clear();
      this.countsFor = tokenizer;
    }
    return (text) => {
      let n = this.counts.get(text);
      if (n === undefined) {
        n = tokenizer.encode(text, { specials: false }).length;
        if (this.counts.size >= MAX_COUNT_CACHE) this.counts.clear();
        this.counts.set(text, n);
      }
      return n;
    };
  }

  protected override onDispose(): void {
    clearTimeout(this.refreshTimer);
  }
}
