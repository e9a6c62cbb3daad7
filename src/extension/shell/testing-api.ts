// A small surface the integration tests (running in the real extension host) use to drive
// panels and read session figures. It exposes only what a user can do from the UI.

import type { TurnStats } from "../core/stats";
import type { RestoreOutcome } from "../snapshots/snapshot-store";
import type { ChatPanel } from "./chat-panel";
import type { BannerAction, TranscriptEntry } from "../../webview/protocol";
import type { EngineRegistry } from "./engine-registry";
import type { PanelManager } from "./panel-manager";
import type { HistoryItem, SavedTranscript, TranscriptStore } from "./transcript-store";

export interface TestingPanel {
  readonly id: string;
  readonly busy: boolean;
  readonly position: number;
  readonly ledgerLength: number;
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
}

export interface TestingApi {
  panels(): TestingPanel[];
  loadedEngines(): number;
  /** One engine host process per loaded model: its pid (undefined while restarting) and crashes so far. */
  engineProcesses(): Array<{ readonly pid: number | undefined; readonly crashes: number }>;
  /** The transcript as saved on disk for a panel id (what survives a reload). */
  savedTranscript(id: string): Promise<SavedTranscript | undefined>;
  /** Archived conversations (Open Chat History…). */
  history(): Promise<HistoryItem[]>;
  /** Opens a closed chat again by id, as the serializer does after a window reload. */
  reopen(id: string): Promise<TestingPanel>;
  /** How the last revive of a chat got its KV cache (snapshot, conversation only, none and why). */
  snapshotOutcome(id: string): RestoreOutcome | undefined;
  /** Whether a chat's KV snapshot is on disk. */
  hasSnapshot(id: string): Promise<boolean>;
}

function wrap(panel: ChatPanel): TestingPanel {
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
    receive: (raw: unknown) => panel.onMessage(raw),
    close: () => panel.panel.dispose(),
    send: (text: string) => panel.send(text),
    stop: () => panel.stop(),
    reset: () => panel.reset(),
  };
}

export function createTestingApi(manager: PanelManager, registry: EngineRegistry, store: TranscriptStore): TestingApi {
  return {
    panels: () => manager.all.map(wrap),
    loadedEngines: () => registry.loadedCount,
    engineProcesses: () => registry.engineProcesses,
    savedTranscript: (id: string) => store.load(id),
    history: () => store.history(),
    reopen: async (id: string) => wrap(await manager.reopen(id)),
    snapshotOutcome: (id: string) => manager.snapshots.outcomes.get(id),
    hasSnapshot: (id: string) => manager.snapshots.has(id),
  };
}
