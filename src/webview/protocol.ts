// The one message protocol between the extension host and the chat webview. Both sides
// import these types; each side validates what it receives (a webview is untrusted input
// for the host, and a malformed message is ignored and logged, never a crash).

export type EntryRole = "user" | "assistant" | "notice";
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
}

/** The model's reasoning markers (`<think>` … `</think>` unless its template names others). */
export interface ReasoningMarkersView {
  readonly open: string;
  readonly close: string;
  /** The prompt opens the block: replies start inside the reasoning. */
  readonly openedByPrompt?: boolean;
}

export interface ContextChip {
  readonly label: string;
  readonly kind: "file" | "selection" | "diagnostics" | "diff" | "removed" | "skipped";
  readonly detail?: string;
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
}

/** Commands a banner may offer; the host refuses any other. */
export const BANNER_COMMANDS = [
  "statefulChat.selectModel",
  "statefulChat.downloadModel",
  "statefulChat.resetConversation",
  "statefulChat.openSettings",
  "statefulChat.retry",
] as const;
export type BannerCommand = (typeof BANNER_COMMANDS)[number];

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
  | { readonly type: "cleared" };

export type WebviewToHost =
  | { readonly type: "ready" }
  | { readonly type: "send"; readonly text: string }
  | { readonly type: "stop" }
  | { readonly type: "reset" }
  | { readonly type: "copyCode"; readonly code: string }
  | { readonly type: "insertCode"; readonly code: string }
  | { readonly type: "runCommand"; readonly command: BannerCommand }
  | { readonly type: "openLink"; readonly url: string };

/** Longest message text accepted from the webview (characters); larger pastes get a clear error. */
export const MAX_MESSAGE_CHARS = 200_000;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isString(value: unknown, max = MAX_MESSAGE_CHARS): value is string {
  return typeof value === "string" && value.length <= max;
}

/** Validates a message from the webview; returns undefined (caller logs) when malformed. */
export function parseWebviewMessage(value: unknown): WebviewToHost | undefined {
  if (!isRecord(value) || typeof value.type !== "string") return undefined;
  switch (value.type) {
    case "ready":
    case "stop":
    case "reset":
      return { type: value.type };
    case "send":
      return isString(value.text, Number.MAX_SAFE_INTEGER) ? { type: "send", text: value.text } : undefined;
    case "copyCode":
    case "insertCode":
      return isString(value.code) ? { type: value.type, code: value.code } : undefined;
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
    default:
      return undefined;
  }
}
