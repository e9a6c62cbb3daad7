// @stateful in VS Code's Chat view: the same cached sessions as the model provider, with our
// incremental workspace context. The active editor and #file references become context
// items; what the conversation already holds is not sent again (changed files go as diffs,
// within the context budgets). Each turn stores the exact user message and reply it sent in
// the result's metadata, so later requests re-render the history token for token and the
// session's cache is reused. /reset starts over. Each reply ends with the panel's stats line.
// Replies are shown without images (their alt text instead), as the webview shows them.

import { randomUUID } from "node:crypto";
import * as vscode from "vscode";
import type { FeatureHosts } from "../../activation/feature-hosts";
import { ContextLedger, type ContextItem } from "../../core/context-delta";
import { DEFAULT_TURN_OPTIONS } from "../../core/conversation";
import { CancelledError, toStatefulChatError } from "../../core/errors";
import type { RequestMessage } from "../../core/request-pool/request-shape";
import { formatStats } from "../../../webview/protocol/stats-line";
import { documentItem, gatherEditorContext, relativeLabel } from "../context/context-sources";
import { resolveModelPath } from "../models/model-location";
import { readSettings } from "../settings/settings";
import { ImageFreeMarkdown } from "./image-free-markdown";
import { catalogModelOf, type CatalogModel } from "./lm-catalog";
import type { ModelPools } from "./lm-pools";
import { LM_VENDOR } from "./lm-provider";
import { servedRecord, serveRequest, type ServedReply } from "./serve-request";

const PARTICIPANT_ID = "statefulChat.stateful";
const CONVERSATIONS_KEPT = 32;

/** What each of our turns remembers (ChatResult.metadata), validated when read back. */
interface TurnMetadata {
  readonly conversation: string;
  /** The user message exactly as sent (context included); absent on a /reset turn. */
  readonly userMessage?: string;
  readonly reply?: string;
}

function metadataOf(value: unknown): TurnMetadata | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const m = value as Record<string, unknown>;
  if (typeof m.conversation !== "string") return undefined;
  if (m.userMessage !== undefined && typeof m.userMessage !== "string") return undefined;
  if (m.reply !== undefined && typeof m.reply !== "string") return undefined;
  return { conversation: m.conversation, userMessage: m.userMessage as string | undefined, reply: m.reply as string | undefined };
}

/** Our earlier turns since the last /reset, in order. */
function earlierTurns(history: vscode.ChatContext["history"]): TurnMetadata[] {
  const turns: TurnMetadata[] = [];
  for (const turn of history) {
    if (!(turn instanceof vscode.ChatResponseTurn) || turn.participant !== PARTICIPANT_ID) continue;
    const metadata = metadataOf(turn.result.metadata);
    if (!metadata) continue;
    if (metadata.userMessage === undefined) turns.length = 0; // a /reset
    else turns.push(metadata);
  }
  return turns;
}

class StatefulParticipant {
  /** Per conversation: what its model has seen of the workspace. */
  private readonly ledgers = new Map<string, ContextLedger>();

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly pools: ModelPools,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  readonly handler: vscode.ChatRequestHandler = async (request, chatContext, stream, token) => {
    const turns = earlierTurns(chatContext.history);
    if (request.command === "reset") {
      const last = turns[turns.length - 1];
      if (last) this.ledgers.delete(last.conversation);
      this.pools.resets++;
      stream.markdown("Started over: the next question begins a new conversation (nothing before it is sent).");
      return { metadata: { conversation: randomUUID() } satisfies TurnMetadata };
    }
    const conversation = turns[turns.length - 1]?.conversation ?? randomUUID();
    try {
      return await this.pools.use(await this.modelFor(request), async (target) => {
        const ledger = this.ledgerOf(conversation, turns.length === 0);
        const settings = readSettings();
        const items = await this.contextItems(request);
        const delta = settings.context.enabled
          ? ledger.delta(items, {
              maxTokensPerTurn: settings.context.maxTokensPerTurn,
              maxTokensPerItem: settings.context.maxTokensPerItem,
              countTokens: (text) => target.tokenizer.encode(text, { specials: false }).length,
            })
          : undefined;
        const contextText = delta?.text.trim();
        const userMessage = contextText ? `${contextText}\n\n${request.prompt}` : request.prompt;
        for (const item of items) if (item.kind === "file") this.referenceOf(item, stream);
        const messages: RequestMessage[] = [{ role: "system", content: settings.turn.systemPrompt || DEFAULT_TURN_OPTIONS.systemPrompt }];
        for (const turn of turns) messages.push({ role: "user", content: turn.userMessage! }, { role: "assistant", content: turn.reply ?? "" });
        messages.push({ role: "user", content: userMessage });
        const controller = new AbortController();
        const cancel = token.onCancellationRequested(() => controller.abort());
        try {
          // The reply reaches VS Code's Chat without images, as in the webview (image-free-markdown.ts).
          const imageFree = new ImageFreeMarkdown();
          const send = (markdown: string): void => {
            if (markdown) stream.markdown(markdown);
          };
          let served: ServedReply;
          try {
            served = await serveRequest(target, messages, [], { maxTokens: settings.turn.maxTokens, sampling: settings.turn.sampling }, { text: (t) => send(imageFree.push(t)), toolCall: () => undefined }, controller.signal);
          } finally {
            send(imageFree.end());
          }
          delta?.commit();
          this.pools.record(servedRecord(served, target.modelName, "participant"));
          const r = served.reply;
          const line = formatStats({ ...r, replyTokens: r.generated, ttftMs: served.ttftMs, decodeTokensPerSec: served.decodeTokensPerSec, restored: false, resumed: r.restored ? { from: r.restored === "reprefill" ? "reprefill" : "snapshot", tokens: r.cached } : undefined });
          stream.markdown(`\n\n---\n*${line}*${r.stopReason === "cancelled" ? " · stopped" : ""}`);
          return { metadata: { conversation, userMessage, reply: served.text } satisfies TurnMetadata };
        } finally {
          cancel.dispose();
        }
      });
    } catch (error) {
      if (error instanceof CancelledError) return { metadata: { conversation } satisfies TurnMetadata };
      const failure = toStatefulChatError(error);
      this.log.error(`@stateful: ${failure.code}: ${failure.message}`);
      return { errorDetails: { message: failure.message }, metadata: { conversation } satisfies TurnMetadata };
    }
  };

  private async modelFor(request: vscode.ChatRequest): Promise<CatalogModel> {
    const settings = readSettings();
    // The picker's model when it is one of ours, else the model the panels use.
    const picked = pickedModel(request);
    const chosen =
      picked?.vendor === LM_VENDOR
        ? await catalogModelOf(this.context, settings, this.log, { id: picked.id })
        : await catalogModelOf(this.context, settings, this.log, { path: await resolveModelPath(this.context, settings.modelPath) });
    return chosen;
  }

  /** The conversation's context ledger; a conversation we no longer remember sends its context in full again. */
  private ledgerOf(conversation: string, fresh: boolean): ContextLedger {
    let ledger = this.ledgers.get(conversation);
    if (!ledger || fresh) {
      ledger = new ContextLedger();
      this.ledgers.set(conversation, ledger);
      while (this.ledgers.size > CONVERSATIONS_KEPT) this.ledgers.delete(this.ledgers.keys().next().value!);
    }
    return ledger;
  }

  /** The active editor (file, selection, problems) and every #file / #selection reference. */
  private async contextItems(request: vscode.ChatRequest): Promise<ContextItem[]> {
    const gathered = await gatherEditorContext(vscode.window.activeTextEditor);
    const items = new Map(gathered.items.map((item) => [item.id, item]));
    for (const reference of request.references) {
      const value = reference.value;
      const uri = value instanceof vscode.Uri ? value : value instanceof vscode.Location ? value.uri : undefined;
      if (!uri) continue;
      try {
        const document = await vscode.workspace.openTextDocument(uri);
        const found = await documentItem(document, "mention", value instanceof vscode.Location ? value.range.start.line : undefined);
        if ("item" in found) items.set(found.item.id, found.item);
        else this.log.info(`@stateful: ${found.refused.label} not sent: ${found.refused.reason}`);
      } catch (error) {
        this.log.info(`@stateful: could not read ${uri.toString()}: ${String(error)}`);
      }
    }
    return [...items.values()];
  }

  private referenceOf(item: ContextItem, stream: vscode.ChatResponseStream): void {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder) return;
    const uri = vscode.Uri.joinPath(folder.uri, item.label);
    if (relativeLabel(uri).label === item.label) stream.reference(uri);
  }
}

/** The Chat view's model, when one is picked (VS Code throws "Language model unavailable" when none is). */
function pickedModel(request: vscode.ChatRequest): { readonly vendor: string; readonly id: string } | undefined {
  try {
    return { vendor: request.model.vendor, id: request.model.id };
  } catch {
    return undefined;
  }
}

export function registerStatefulParticipant(context: vscode.ExtensionContext, pools: ModelPools, log: vscode.LogOutputChannel, hosts: FeatureHosts): vscode.Disposable {
  const participant = new StatefulParticipant(context, pools, log);
  // Its icon is set where it was created, at activation (activation/lazy-features.ts).
  return hosts.createChatParticipant(PARTICIPANT_ID, participant.handler);
}
