// Apply from a chat: the webview's Apply / Apply All / Cancel on a reply's code blocks. The
// host reads the block's file and "whole file" hint from its own copy of the reply (the
// webview only says which block and sends its code), falls back to the file the question was
// about (the file chip its message was sent with), uses the chat's model for fast apply, and
// tells the block how it went. An applied file is re-checked on the next turn, so the model
// gets its diff.

import { codeBlocksOf, findBlock } from "../../core/apply/code-blocks";
import type { Engine } from "../../core/engine";
import { splitReasoning, type ReasoningMarkers } from "../../core/reasoning";
import type { ApplyState, HostToWebview, TranscriptEntry, WebviewToHost } from "../../../webview/protocol/messages";
import type { ApplyController, ApplyOutcome, ApplyRequest } from "./apply-controller";

/** What Apply needs of a chat panel. */
export interface ApplyPort {
  readonly panelId: string;
  transcript(): readonly TranscriptEntry[];
  markers(): ReasoningMarkers | undefined;
  /** The chat's model (loads it if needed), for fast apply's side session. */
  engine(): Promise<Engine>;
  /** The file as the model last saw it in this chat's context. */
  seen(path: string): string | undefined;
  /** A file changed by Apply: the next message re-checks it. */
  noteApplied(path: string): void;
  post(message: HostToWebview): void;
}

export type ApplyMessage = Extract<WebviewToHost, { type: "applyCode" | "applyAll" | "cancelApply" }>;

export class ChatApply {
  private readonly cancels = new Map<string, AbortController>();
  /** The last state each block was told (the testing API reads it). */
  readonly states = new Map<string, { readonly state: ApplyState; readonly message: string; readonly offerFast?: boolean }>();

  constructor(private readonly controller: ApplyController) {}

  async handle(port: ApplyPort, message: ApplyMessage): Promise<void> {
    switch (message.type) {
      case "applyCode":
        await this.applyBlock(port, message.entryId, message.block, message.code, message.fast);
        return;
      case "applyAll":
        await this.applyAll(port, message.entryId, message.codes);
        return;
      case "cancelApply":
        this.cancels.get(keyOf(port, message.entryId, message.block))?.abort();
        return;
    }
  }

  /** The webview (re)loaded (a hidden webview is rebuilt when shown): tell its blocks again. */
  replay(port: ApplyPort): void {
    const prefix = `${port.panelId}:`;
    for (const [key, state] of this.states) {
      if (!key.startsWith(prefix)) continue;
      const rest = key.slice(prefix.length);
      const at = rest.lastIndexOf(":");
      const entryId = rest.slice(0, at);
      if (!port.transcript().some((e) => e.id === entryId)) continue;
      port.post({ type: "applyState", entryId, block: Number(rest.slice(at + 1)), ...state });
    }
  }

  /** The reply's code blocks as the host sees them (the last reply's when `entryId` is absent). */
  replyBlocks(port: ApplyPort, entryId?: string) {
    const entries = port.transcript();
    const entry = entryId ? entries.find((e) => e.id === entryId && e.role === "assistant") : [...entries].reverse().find((e) => e.role === "assistant" && codeBlocksOf(this.answerOf(port, e)).length > 0);
    return entry ? { entry, blocks: codeBlocksOf(this.answerOf(port, entry)) } : undefined;
  }

  applyBlock(port: ApplyPort, entryId: string, index: number, code: string, fast = false): Promise<ApplyOutcome> {
    return this.run(port, entryId, index, code, fast, false);
  }

  async applyAll(port: ApplyPort, entryId: string, codes: readonly string[]): Promise<ApplyOutcome[]> {
    const outcomes: ApplyOutcome[] = [];
    for (const [index, code] of codes.entries()) outcomes.push(await this.run(port, entryId, index, code, false, true));
    return outcomes;
  }

  private async run(port: ApplyPort, entryId: string, index: number, code: string, fast: boolean, all: boolean): Promise<ApplyOutcome> {
    const key = keyOf(port, entryId, index);
    const notify = (state: ApplyState, message: string, offerFast?: boolean) => {
      this.states.set(key, { state, message, ...(offerFast ? { offerFast } : {}) });
      port.post({ type: "applyState", entryId, block: index, state, message, ...(offerFast ? { offerFast } : {}) });
    };
    const found = this.replyBlocks(port, entryId);
    if (!found) {
      const outcome: ApplyOutcome = { status: "error", message: "That reply is no longer in this chat." };
      notify("error", outcome.message);
      return outcome;
    }
    const block = findBlock(found.blocks, index, code);
    const fallbackPath = questionFile(port.transcript(), entryId);
    if (all && !block?.path && !fallbackPath) {
      const outcome: ApplyOutcome = { status: "cancelled", message: "This block names no file: use its own Apply to choose one." };
      notify("cancelled", outcome.message);
      return outcome;
    }
    // A second click while the block is being applied: the first one goes on.
    if (this.cancels.has(key)) return { status: "error", message: "This block is being applied already." };
    const cancel = new AbortController();
    this.cancels.set(key, cancel);
    const request: ApplyRequest = {
      code,
      language: block?.language,
      namedPath: block?.path,
      fallbackPath,
      saysWholeFile: block?.saysWholeFile,
      forceFast: fast,
      engine: () => port.engine(),
      seen: (path) => port.seen(path),
      notify,
      signal: cancel.signal,
    };
    try {
      const outcome = await this.controller.apply(request);
      if (outcome.status === "applied" && outcome.path) port.noteApplied(outcome.path);
      return outcome;
    } finally {
      if (this.cancels.get(key) === cancel) this.cancels.delete(key);
    }
  }

  private answerOf(port: ApplyPort, entry: TranscriptEntry): string {
    return splitReasoning(entry.text, port.markers()).answer;
  }
}

function keyOf(port: ApplyPort, entryId: string, block: number): string {
  return `${port.panelId}:${entryId}:${block}`;
}

/**
 * The file the question behind a reply was about: the file chip of the nearest message before
 * it that carried one (an unchanged file is not sent again, so its chip is on an earlier message).
 */
export function questionFile(entries: readonly TranscriptEntry[], replyId: string): string | undefined {
  const at = entries.findIndex((e) => e.id === replyId);
  for (let i = (at < 0 ? entries.length : at) - 1; i >= 0; i--) {
    const entry = entries[i]!;
    if (entry.role !== "user") continue;
    const chip = entry.chips?.find((c) => c.kind === "file" || c.kind === "diff");
    if (chip) return chip.label;
  }
  return undefined;
}
