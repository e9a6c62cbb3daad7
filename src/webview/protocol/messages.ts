// The one message protocol between the extension host and the chat webview. Both sides
// import these types; each side validates what it receives (a webview is untrusted input
// for the host, and a malformed message is ignored and logged, never a crash).

type EntryRole = "user" | "assistant" | "notice";
export type EntryStatus = "streaming" | "complete" | "stopped" | "error" | "not-sent";

export interface TurnStatsView {
  readonly prefilled: number;
  readonly cached: number;
  readonly position: number;
  readonly capacity: number;
  readonly ttftMs: number;
  readonly decodeTokensPerSec: number;
  readonly replyTokens: number;
  readonly restored: boolean;
  /** Tokens taken back from the cache because the template re-rendered the last exchange. */
  readonly rewound?: number;
  /** Reply tokens spent inside the reasoning markers. */
  readonly thinkingTokens?: number;
  /** First turn after a restore or an engine restart: the KV cache came from a snapshot, or the conversation was re-prefilled. */
  readonly resumed?: { readonly from: "snapshot" | "reprefill"; readonly tokens: number };
  /** Speculative decoding in this reply: tokens drafted and accepted, target steps, reply tokens per step. */
  readonly speculation?: { readonly drafted: number; readonly accepted: number; readonly steps: number; readonly tokensPerStep: number };
  /** Remote backend: the prompt tokens the inference server reports it reused from its own cache. */
  readonly serverCached?: number;
}

/** The model's reasoning markers (`<think>` … `</think>` unless its template names others). */
interface ReasoningMarkersView {
  readonly open: string;
  readonly close: string;
  /** The prompt opens the block: replies start inside the reasoning. */
  readonly openedByPrompt?: boolean;
}

/** The one list of chip kinds: the type and every guard come from it. */
export const CONTEXT_CHIP_KINDS = ["file", "selection", "diagnostics", "outline", "diff", "removed", "skipped"] as const;
type ContextChipKind = (typeof CONTEXT_CHIP_KINDS)[number];

export interface ContextChip {
  readonly label: string;
  readonly kind: ContextChipKind;
  readonly detail?: string;
}

/** A chip above the input: what the next message will carry, before it is sent. */
export interface ComposerChip {
  /** The context item's id; `send.context` lists the ids the user left in place. */
  readonly id: string;
  readonly label: string;
  readonly kind: "file" | "selection" | "diagnostics" | "outline";
  /**
   * new: sent in full; diff: sent as changes; known: the model has it, costs nothing; skipped:
   * refused (detail says why); removed: no longer open, a one-line note tells the model.
   */
  readonly state: "new" | "diff" | "known" | "skipped" | "removed";
  readonly tokens: number;
  readonly detail?: string;
  /** Where it came from: the active editor (auto), an @-mention or a pin. */
  readonly origin: "auto" | "mention" | "pinned";
  /** Only files can be pinned (re-checked every turn). */
  readonly pinnable: boolean;
}

/** One row of the @-completion list. */
export interface MentionOption {
  /** What the mention inserts after "@": a workspace-relative path or a keyword (problems, selection, open, workspace). */
  readonly value: string;
  readonly label: string;
  readonly detail?: string;
  readonly kind: "file" | "keyword";
}

export interface TranscriptEntry {
  readonly id: string;
  readonly role: EntryRole;
  readonly text: string;
  readonly status: EntryStatus;
  readonly stats?: TurnStatsView;
  readonly chips?: readonly ContextChip[];
}

export interface ModelView {
  readonly name: string;
  readonly backend: string;
  readonly capacity: number;
  readonly details: string;
  readonly notice?: string;
  readonly reasoning?: ReasoningMarkersView;
  /** The tiny default model answers (a model to try things with): the empty chat offers a better one. */
  readonly starter?: boolean;
}

/** Commands a banner may offer; the host refuses any other. */
export const BANNER_COMMANDS = [
  "statefulChat.selectModel",
  "statefulChat.downloadModel",
  "statefulChat.resetConversation",
  "statefulChat.openSettings",
  "statefulChat.retry",
  "statefulChat.setServerApiKey",
  "statefulChat.setUpModel",
] as const;
export type BannerCommand = (typeof BANNER_COMMANDS)[number];

/** What Apply reports on a code block: the one list, the type and every guard come from it. */
export const APPLY_STATES = ["working", "applied", "unchanged", "proposed", "error", "cancelled", "kept", "undone", "reverted"] as const;
export type ApplyState = (typeof APPLY_STATES)[number];
/**
 * An applied change once the user had their word: kept, undone, or reverted (kept, then the
 * editor's undo brought the text before Apply back). The block follows the document after
 * that: a redo makes a reverted change kept again.
 */
export const SETTLED_APPLY_STATES = ["kept", "undone", "reverted"] as const satisfies readonly ApplyState[];
export type SettledApplyState = (typeof SETTLED_APPLY_STATES)[number];
/** Code blocks of one reply Apply All takes at most. */
export const MAX_APPLY_BLOCKS = 64;

export interface BannerAction {
  readonly label: string;
  readonly command: BannerCommand;
}

export type HostToWebview =
  | {
      readonly type: "init";
      readonly transcript: readonly TranscriptEntry[];
      readonly busy: boolean;
      readonly model?: ModelView;
      /** Kept in the webview state so the panel serializer can find the transcript after a reload. */
      readonly panelId?: string;
    }
  | { readonly type: "model"; readonly state: "loading" | "ready" | "error"; readonly model?: ModelView; readonly message?: string }
  | { readonly type: "entry"; readonly entry: TranscriptEntry }
  | { readonly type: "tokens"; readonly id: string; readonly text: string }
  | { readonly type: "entryDone"; readonly id: string; readonly status: EntryStatus; readonly text: string; readonly stats?: TurnStatsView }
  | { readonly type: "busy"; readonly busy: boolean; readonly queued: number }
  | { readonly type: "banner"; readonly level: "error" | "warning" | "info"; readonly message: string; readonly actions: readonly BannerAction[] }
  | { readonly type: "cleared" }
  | {
      readonly type: "composerContext";
      readonly chips: readonly ComposerChip[];
      /** The active-file chip is switched off for this panel. */
      readonly activeFileOff: boolean;
    }
  | { readonly type: "mentionResults"; readonly requestId: number; readonly options: readonly MentionOption[] }
  /** Apply's progress and outcome on a reply's code block (`block`: its position among the reply's code blocks). */
  | { readonly type: "applyState"; readonly entryId: string; readonly block: number; readonly state: ApplyState; readonly message: string; readonly offerFast?: boolean };

export type WebviewToHost =
  | { readonly type: "ready" }
  /** `context`: the ids of the composer chips at the moment of sending; exactly those are attached. */
  | { readonly type: "send"; readonly text: string; readonly context?: readonly string[] }
  /** Takes a chip off the next message (a mention or pin is dropped altogether). */
  | { readonly type: "removeChip"; readonly id: string }
  | { readonly type: "pinChip"; readonly id: string; readonly pinned: boolean }
  /** Switches the active-file chip on or off for this panel. */
  | { readonly type: "setActiveFile"; readonly on: boolean }
  | { readonly type: "mentionQuery"; readonly requestId: number; readonly query: string }
  | { readonly type: "addMention"; readonly value: string }
  | { readonly type: "stop" }
  | { readonly type: "reset" }
  | { readonly type: "copyCode"; readonly code: string }
  | { readonly type: "insertCode"; readonly code: string }
  /**
   * Apply a reply's code block to the workspace: `block` is its position among the reply's
   * code blocks, `code` its text (the host reads the file it names from its own copy of the
   * reply). `fast`: straight to fast apply (offered after a refusal).
   */
  | { readonly type: "applyCode"; readonly entryId: string; readonly block: number; readonly code: string; readonly fast?: boolean }
  /** Apply All: every code block of the reply, their codes in order. */
  | { readonly type: "applyAll"; readonly entryId: string; readonly codes: readonly string[] }
  /** Stop a running fast apply of a block. */
  | { readonly type: "cancelApply"; readonly entryId: string; readonly block: number }
  | { readonly type: "runCommand"; readonly command: BannerCommand }
  | { readonly type: "openLink"; readonly url: string };

/** Longest message text accepted from the webview (characters); larger pastes get a clear error. */
export const MAX_MESSAGE_CHARS = 200_000;
/** Limits on context messages: ids and mention values are paths, queries are what follows "@". */
const MAX_CONTEXT_ID_CHARS = 4096;
export const MAX_MENTION_QUERY_CHARS = 512;
export const MAX_CONTEXT_IDS = 256;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isString(value: unknown, max = MAX_MESSAGE_CHARS): value is string {
  return typeof value === "string" && value.length <= max;
}

function isEntryId(value: unknown): value is string {
  return isString(value, MAX_CONTEXT_ID_CHARS) && value !== "";
}

function isBlockIndex(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) < MAX_APPLY_BLOCKS;
}

/** Validates a message from the webview; returns undefined (caller logs) when malformed. */
export function parseWebviewMessage(value: unknown): WebviewToHost | undefined {
  if (!isRecord(value) || typeof value.type !== "string") return undefined;
  switch (value.type) {
    case "ready":
    case "stop":
    case "reset":
      return { type: value.type };
    case "send": {
      if (!isString(value.text, Number.MAX_SAFE_INTEGER)) return undefined;
      if (value.context === undefined) return { type: "send", text: value.text };
      const context = value.context;
      const ids = Array.isArray(context) && context.length <= MAX_CONTEXT_IDS && context.every((id) => isString(id, MAX_CONTEXT_ID_CHARS));
      return ids ? { type: "send", text: value.text, context: [...(context as string[])] } : undefined;
    }
    case "removeChip":
      return isString(value.id, MAX_CONTEXT_ID_CHARS) && value.id !== "" ? { type: "removeChip", id: value.id } : undefined;
    case "pinChip":
      return isString(value.id, MAX_CONTEXT_ID_CHARS) && value.id !== "" && typeof value.pinned === "boolean"
        ? { type: "pinChip", id: value.id, pinned: value.pinned }
        : undefined;
    case "setActiveFile":
      return typeof value.on === "boolean" ? { type: "setActiveFile", on: value.on } : undefined;
    case "mentionQuery":
      return Number.isSafeInteger(value.requestId) && isString(value.query, MAX_MENTION_QUERY_CHARS)
        ? { type: "mentionQuery", requestId: value.requestId as number, query: value.query }
        : undefined;
    case "addMention":
      return isString(value.value, MAX_CONTEXT_ID_CHARS) && value.value.trim() !== "" ? { type: "addMention", value: value.value } : undefined;
    case "copyCode":
    case "insertCode":
      return isString(value.code) ? { type: value.type, code: value.code } : undefined;
    case "applyCode":
      return isEntryId(value.entryId) && isBlockIndex(value.block) && isString(value.code) && (value.fast === undefined || typeof value.fast === "boolean")
        ? { type: "applyCode", entryId: value.entryId, block: value.block, code: value.code, ...(value.fast ? { fast: true } : {}) }
        : undefined;
    case "applyAll": {
      const codes = value.codes;
      const valid = Array.isArray(codes) && codes.length > 0 && codes.length <= MAX_APPLY_BLOCKS && codes.every((c) => isString(c));
      return isEntryId(value.entryId) && valid ? { type: "applyAll", entryId: value.entryId, codes: [...(codes as string[])] } : undefined;
    }
    case "cancelApply":
      return isEntryId(value.entryId) && isBlockIndex(value.block) ? { type: "cancelApply", entryId: value.entryId, block: value.block } : undefined;
    case "openLink":
      return typeof value.url === "string" && value.url.length <= 2048 && /^https?:\/\/[^\s]+$/i.test(value.url)
        ? { type: "openLink", url: value.url }
        : undefined;
    case "runCommand":
      return typeof value.command === "string" && (BANNER_COMMANDS as readonly string[]).includes(value.command)
        ? { type: "runCommand", command: value.command as BannerCommand }
        : undefined;
    default:
      return undefined;
  }
}

const STATUSES: readonly EntryStatus[] = ["streaming", "complete", "stopped", "error", "not-sent"];
const ROLES: readonly EntryRole[] = ["user", "assistant", "notice"];

function isEntry(value: unknown): value is TranscriptEntry {
  return (
    isRecord(value) &&
    typeof value.id === "string" &&
    typeof value.text === "string" &&
    (ROLES as readonly unknown[]).includes(value.role) &&
    (STATUSES as readonly unknown[]).includes(value.status)
  );
}

/** Validates a message from the host (defence in depth in the webview). */
export function parseHostMessage(value: unknown): HostToWebview | undefined {
  if (!isRecord(value) || typeof value.type !== "string") return undefined;
  switch (value.type) {
    case "init":
      return Array.isArray(value.transcript) && value.transcript.every(isEntry) && typeof value.busy === "boolean"
        ? (value as unknown as HostToWebview)
        : undefined;
    case "model":
      return ["loading", "ready", "error"].includes(value.state as string) ? (value as unknown as HostToWebview) : undefined;
    case "entry":
      return isEntry(value.entry) ? (value as unknown as HostToWebview) : undefined;
    case "tokens":
      return typeof value.id === "string" && typeof value.text === "string" ? (value as unknown as HostToWebview) : undefined;
    case "entryDone":
      return typeof value.id === "string" && typeof value.text === "string" && (STATUSES as readonly unknown[]).includes(value.status)
        ? (value as unknown as HostToWebview)
        : undefined;
    case "busy":
      return typeof value.busy === "boolean" && typeof value.queued === "number" ? (value as unknown as HostToWebview) : undefined;
    case "banner":
      return typeof value.message === "string" && Array.isArray(value.actions) ? (value as unknown as HostToWebview) : undefined;
    case "cleared":
      return { type: "cleared" };
    case "composerContext":
      return Array.isArray(value.chips) && value.chips.every(isComposerChip) && typeof value.activeFileOff === "boolean"
        ? (value as unknown as HostToWebview)
        : undefined;
    case "mentionResults":
      return typeof value.requestId === "number" && Array.isArray(value.options) && value.options.every(isMentionOption)
        ? (value as unknown as HostToWebview)
        : undefined;
    case "applyState":
      return typeof value.entryId === "string" &&
        isBlockIndex(value.block) &&
        (APPLY_STATES as readonly unknown[]).includes(value.state) &&
        typeof value.message === "string" &&
        (value.offerFast === undefined || typeof value.offerFast === "boolean")
        ? (value as unknown as HostToWebview)
        : undefined;
    default:
      return undefined;
  }
}

function isComposerChip(value: unknown): value is ComposerChip {
  return (
    isRecord(value) &&
    typeof value.id === "string" &&
    typeof value.label === "string" &&
    ["file", "selection", "diagnostics", "outline"].includes(value.kind as string) &&
    ["new", "diff", "known", "skipped", "removed"].includes(value.state as string) &&
    typeof value.tokens === "number" &&
    ["auto", "mention", "pinned"].includes(value.origin as string) &&
    typeof value.pinnable === "boolean"
  );
}

function isMentionOption(value: unknown): value is MentionOption {
  return isRecord(value) && typeof value.value === "string" && typeof value.label === "string" && (value.kind === "file" || value.kind === "keyword");
}
