// A small surface the integration tests (running in the real extension host) use to drive
// panels and read session figures. It exposes only what a user can do from the UI.

import * as vscode from "vscode";
import type { TurnStats } from "../../core/stats";
import type { CacheCheck } from "../../core/cache-check";
import type { ApplyRegistration } from "../apply/apply-commands";
import type { RestoreOutcome } from "../../snapshots/snapshot-store";
import type { ChatPanel } from "../chat/chat-panel";
import type { BannerAction, TranscriptEntry } from "../../../webview/protocol/messages";
import type { EngineRegistry } from "../engines/engine-registry";
import type { ModelPools, ServedRequest } from "../lm/lm-pools";
import { settingWarnings } from "../settings/settings";
import type { PanelManager } from "../chat/panel-manager";
import type { HistoryItem, SavedTranscript, TranscriptStore } from "../../chats/transcript-store";

export interface TestingPanel {
  readonly id: string;
  readonly busy: boolean;
  readonly position: number;
  readonly ledgerLength: number;
  /**
   * What the engine itself says the panel's KV cache holds (KvState.probeCache: llama.cpp's
   * positions, the Core ML session's, the server's count) against the ledger, queued behind
   * the panel's turns; undefined before the panel has a session.
   */
  probeCache(): Promise<CacheCheck | undefined>;
  readonly transcript: readonly TranscriptEntry[];
  readonly lastBanner: { level: string; message: string; actions: readonly BannerAction[] } | undefined;
  readonly ignoredMessages: number;
  send(text: string): Promise<TurnStats | undefined>;
  stop(): void;
  reset(): Promise<void>;
  /** Feeds a raw message as if the webview had posted it (protocol fuzzing). */
  receive(raw: unknown): void;
  /** Closes the panel like the user clicking its close button. */
  close(): void;
  /**
   * Closes the panel the way a window reload does (the extension host shutting down keeps
   * every snapshot), without racing the delay after which a closed chat's snapshot goes.
   */
  closeForReload(): void;
}

/** Apply (shell/apply): its questions answered ahead, its pending changes and what code blocks were told. */
interface TestingApply {
  /** Answers Apply's next questions (create a missing file; which file, `null` for dismissing the pick) instead of showing them. */
  answer(answers: { readonly create?: boolean; readonly pick?: string | null; readonly sensitive?: boolean }): void;
  /** Workspace-relative paths of the applied changes waiting for Keep or Undo. */
  pending(): string[];
  /** The last state a chat's code block was told: panel id, entry id, block index. */
  blockState(panelId: string, entryId: string, block: number): { readonly state: string; readonly message: string; readonly offerFast?: boolean } | undefined;
  /** Fast apply answers with this reply instead of running the model (undefined: the model again). */
  scriptFastApply(reply: string | undefined): void;
  /** Stops running fast applies, as their notification's Cancel does. */
  cancel(): void;
  /** The text of an Apply document (the original side of a diff, a fast apply's proposal) by URI. */
  virtualText(uri: string): string | undefined;
}

export interface TestingApi {
  /** The chats in editor tabs. */
  panels(): TestingPanel[];
  /** The side bar view's chat, once the view was shown. */
  viewChat(): TestingPanel | undefined;
  /** The status bar item as shown (text, tooltip), or undefined while it is hidden. */
  statusBar(): { readonly text: string; readonly tooltip: string } | undefined;
  loadedEngines(): number;
  /** One engine host process per loaded model: its pid (undefined while restarting) and crashes so far. */
  engineProcesses(): Array<{ readonly pid: number | undefined; readonly crashes: number }>;
  /** The transcript as saved on disk for a panel id (what survives a reload). */
  savedTranscript(id: string): Promise<SavedTranscript | undefined>;
  /** Archived conversations (Open Chat History…). */
  history(): Promise<HistoryItem[]>;
  /** Opens a closed chat again by id, as the serializer does after a window reload. */
  reopen(id: string): Promise<TestingPanel>;
  /** How the last reopen of a chat got its KV cache (snapshot, conversation only, none and why). */
  snapshotOutcome(id: string): RestoreOutcome | undefined;
  /** Whether a chat's KV snapshot is on disk. */
  hasSnapshot(id: string): Promise<boolean>;
  readonly apply: TestingApply;
  /** Requests the language model provider and @stateful served, oldest first (last 50). */
  chatProviderRequests(): readonly ServedRequest[];
  /** The setting corrections warned about so far (statefulChat.* values outside their schema). */
  settingWarnings(): readonly string[];
  /** Releases the provider's sessions and engines (a suite that used VS Code's Chat leaves no engine loaded). */
  releaseChatProvider(): Promise<void>;
  /** The idle sweep now, as if `idleMs` were the idle time: the models it let go. */
  releaseIdleChatProvider(idleMs: number): Promise<string[]>;
  /** How many times @stateful's /reset ran. */
  chatParticipantResets(): number;
  /** The provider's live and parked sessions per model. */
  chatProviderSessions(): ReturnType<ModelPools["views"]>;
}

function wrap(panel: ChatPanel, manager: PanelManager): TestingPanel {
  return {
    id: panel.id,
    get busy() {
      return panel.busy;
    },
    get position() {
      return panel.stats.position;
    },
    get ledgerLength() {
      return panel.stats.ledgerLength;
    },
    get transcript() {
      return panel.transcript;
    },
    get lastBanner() {
      return panel.lastBanner;
    },
    get ignoredMessages() {
      return panel.ignoredMessages;
    },
    probeCache: () => panel.probeCache(),
    receive: (raw: unknown) => panel.onMessage(raw),
    close: () => panel.close(),
    closeForReload: () => manager.closeForReload(panel),
    send: (text: string) => panel.send(text),
    stop: () => panel.stop(),
    reset: () => panel.reset(),
  };
}

export function createTestingApi(
  manager: PanelManager,
  registry: EngineRegistry,
  store: TranscriptStore,
  pools: ModelPools,
  apply: ApplyRegistration,
  statusBar: () => { readonly text: string; readonly tooltip: string } | undefined = () => undefined,
): TestingApi {
  return {
    viewChat: () => (manager.inView ? wrap(manager.inView, manager) : undefined),
    statusBar,
    chatProviderRequests: () => [...pools.served],
    chatProviderSessions: () => pools.views(),
    chatParticipantResets: () => pools.resets,
    releaseChatProvider: () => pools.releaseAll(),
    releaseIdleChatProvider: (idleMs) => pools.releaseIdle(idleMs),
    settingWarnings: () => [...settingWarnings],
    panels: () => manager.editorChats.map((panel) => wrap(panel, manager)),
    loadedEngines: () => registry.loadedCount,
    engineProcesses: () => registry.engineProcesses,
    savedTranscript: (id: string) => store.load(id),
    history: () => store.history(),
    reopen: async (id: string) => wrap(await manager.reopen(id), manager),
    snapshotOutcome: (id: string) => manager.snapshots.outcomes.get(id),
    hasSnapshot: (id: string) => manager.snapshots.has(id),
    apply: {
      answer: (answers) => apply.controller.prompts.answer(answers),
      pending: () => apply.controller.pending.all.map((p) => p.label),
      blockState: (panelId, entryId, block) => apply.chat.states.get(`${panelId}:${entryId}:${block}`),
      scriptFastApply: (reply) => (apply.controller.scriptedFastReply = reply),
      cancel: () => apply.controller.cancelAll(),
      virtualText: (uri) => apply.controller.documents.textOf(vscode.Uri.parse(uri)),
    },
  };
}
