// The soak: thousands of randomized operations a user and a flaky machine produce (send,
// send while streaming, stop, reset, close and reopen with KV-snapshot restore, settings
// changes, SIGKILL of the engine process, also mid-reply) on the default model through the
// engine process. It counts rather than stops: after every operation llama.cpp's own count of
// the chat's KV cache (its positions for the sequence, asked through the engine process's
// probe message, in turn with the operations) must equal the ledger's; at every checkpoint the
// next-token distribution at the last position must equal a fresh prefill's of the ledger and
// the saved transcript what the user saw; a reopened chat must hold the conversation it was
// closed with. `npm run soak` runs 10,000 operations; CI runs 200 (`test/model/soak.test.ts`).

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { Conversation } from "../../src/extension/core/conversation";
import { StatefulChatError } from "../../src/extension/core/errors";
import type { ProxyEngine } from "../../src/extension/engine-host/proxy-engine";
import type { ChatMessage } from "../../src/extension/core/chat-template";
import { conversationOf } from "../../src/extension/chats/conversation-of";
import { TranscriptStore, type SavedTranscript } from "../../src/extension/chats/transcript-store";
import { SnapshotStore } from "../../src/extension/snapshots/snapshot-store";
import type { TranscriptEntry } from "../../src/webview/protocol/messages";
import { defaultModelFile } from "../support/default-model";
import { startProxyEngine } from "../support/engine-process";
import { cacheDiffersFromFreshPrefill, CacheProbeTally } from "../support/cache-agreement";
import { InstrumentedEngine } from "../support/instrumented-engine";
import { seededRandom } from "../support/random";
import { isTurnPhase, STOP_PHASES, StopPhaseTally, type StopPhaseFigures, type StopPhase } from "./stop-phases";
import type { TurnCallbacks } from "../../src/extension/core/turn-runner";
import { testThreads } from "../support/test-threads";

export const SOAK_OPERATIONS = ["send", "send", "sendWhileStreaming", "stop", "stopInPhase", "reset", "reopen", "settings", "kill", "killWhileStreaming"] as const;
type Operation = (typeof SOAK_OPERATIONS)[number];
const MESSAGES = ["hi", "What is 3 + 4?", "Name a color.", "Write hello world in C.", "Say yes.", "Thanks"];
/** A long message (~150 tokens), so a Stop aimed at the overflow phase finds one due more often. */
const LONG_MESSAGE = `Explain what this does, line by line:\n${"for (let i = 0; i < items.length; i++) { total += items[i].price * items[i].count; }\n".repeat(5)}`;
const ALLOWED_ERRORS = new Set(["cancelled", "disposed", "engine_crashed"]);

export interface SoakOptions {
  readonly operations: number;
  readonly seed?: number;
  readonly checkpointEvery?: number;
  readonly log?: (line: string) => void;
}

export interface SoakFigures {
  readonly operations: number;
  readonly counts: Readonly<Record<string, number>>;
  /** Wall time spent in each kind of operation (and in checkpoints), seconds. */
  readonly secondsByOperation: Readonly<Record<string, number>>;
  readonly turnsCompleted: number;
  readonly kills: number;
  readonly turnsFailedByCrash: number;
  readonly restores: { readonly snapshot: number; readonly conversation: number };
  readonly checkpoints: number;
  /**
   * After every operation: llama.cpp's own count against the ledger's evaluated tokens.
   * `resyncPending`: the session already saw its state lost to a kill (re-prefills next);
   * `unanswered`: the probe was cancelled by a reset or failed by a kill.
   */
  readonly cacheProbes: { readonly compared: number; readonly resyncPending: number; readonly unanswered: number; readonly mismatches: number };
  /** At every checkpoint: the logits at the last position against a fresh prefill of the ledger (exact with our llama.cpp build). */
  readonly logitChecks: number;
  readonly logitMismatches: number;
  /** Probe mismatches, and checkpoints where the count or the logits did not match. */
  readonly corruptions: number;
  readonly corruptionDetails: readonly string[];
  /** Checkpoints or reopens where a transcript or conversation was not what the user saw. */
  readonly lostTranscripts: number;
  readonly unexpectedErrors: readonly string[];
  readonly overlaps: number;
  /** Stop pressed as a turn enters each phase: how long until the turn ended, and text after it. */
  readonly stopByPhase: Readonly<Record<StopPhase, StopPhaseFigures>>;
  readonly wallSeconds: number;
}

function withoutSystem(messages: readonly ChatMessage[]): ChatMessage[] {
  return messages.filter((m) => m.role !== "system").map((m) => ({ role: m.role, content: m.content }));
}

export async function runSoak(options: SoakOptions): Promise<SoakFigures> {
  const started = Date.now();
  const log = options.log ?? (() => undefined);
  const random = seededRandom(options.seed ?? 7);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const root = mkdtempSync(join(tmpdir(), "stateful-chat-soak-"));
  const transcripts = new TranscriptStore(join(root, "transcripts"));
  const snapshots = new SnapshotStore(join(root, "snapshots"));
  // Kills here are deliberate and many: the crash-loop guard must not stop the soak.
  const proxy: ProxyEngine = await startProxyEngine(
    { modelPath: defaultModelFile(), backend: "llamacpp", contextSize: 512, threads: testThreads() },
    { guard: { maxCrashes: 1_000_000, baseDelayMs: 10, maxDelayMs: 50 } },
  );
  const engine = new InstrumentedEngine(proxy);
  const counts: Record<string, number> = {};
  const unexpected: string[] = [];
  let turnsCompleted = 0;
  let kills = 0;
  let turnsFailedByCrash = 0;
  let checkpoints = 0;
  let corruptions = 0;
  const corruptionDetails: string[] = [];
  const probes = new CacheProbeTally();
  let logitChecks = 0;
  let logitMismatches = 0;
  let lost = 0;
  const restores = { snapshot: 0, conversation: 0 };
  const turnOptions = () => ({ maxTokens: 1 + Math.floor(random() * 6), margin: 48 });
  let chat = await Conversation.create(engine, { turn: turnOptions(), prefillChunk: 16 });
  // The state this chat's session owns (Conversation.create made it last).
  let chatState = engine.states.at(-1)!;
  const id = "soak-chat";
  const createdAt = new Date().toISOString();
  let entries: TranscriptEntry[] = [];
  let entryCount = 0;
  const inFlight: Promise<unknown>[] = [];

  const saveTranscript = () => {
    const saved: SavedTranscript = { version: 1, id, title: "soak", createdAt, updatedAt: new Date().toISOString(), entries: [...entries] };
    return transcripts.save(saved);
  };
  const stopTally = new StopPhaseTally();
  /** One turn as a panel runs it: the user's entry, then the reply or the error, saved after each. */
  const send = (conversation: Conversation, callbacks?: TurnCallbacks, text = pick(MESSAGES), onEnd?: () => void): Promise<void> => {
    entries.push({ id: `e${++entryCount}`, role: "user", text, status: "complete" });
    void saveTranscript();
    return conversation.send({ text }, callbacks).then(
      (stats) => {
        onEnd?.();
        turnsCompleted++;
        entries.push({ id: `e${++entryCount}`, role: "assistant", text: stats.reply, status: "complete" });
        return saveTranscript();
      },
      (error: unknown) => {
        onEnd?.();
        if (!(error instanceof StatefulChatError) || !ALLOWED_ERRORS.has(error.code)) unexpected.push(String(error));
        else if (error.code === "engine_crashed") turnsFailedByCrash++;
        entries.push({ id: `e${++entryCount}`, role: "notice", text: error instanceof StatefulChatError ? error.code : String(error), status: "error" });
        return saveTranscript();
      },
    );
  };
  const kill = () => {
    const pid = proxy.pid;
    if (pid === undefined) return;
    process.kill(pid, "SIGKILL");
    kills++;
  };
  const exited = async (pid: number | undefined) => {
    while (pid !== undefined && proxy.pid === pid) await new Promise((r) => setTimeout(r, 5));
  };

  const checkpoint = async () => {
    await Promise.all(inFlight.splice(0));
    await chat.whenIdle();
    checkpoints++;
    // After a kill the cache is empty until the next turn re-prefills it, and a failed turn can
    // leave ledger tokens pending (a rewind undone: evaluated on the next call): run one, then compare.
    const before = await chat.probeCache();
    // An empty conversation (a reset just before) has no logits to compare: give it a turn too.
    if (before.resyncPending || before.evaluated !== before.ledger || chat.ledger.length === 0) await send(chat);
    const check = await chat.probeCache();
    const ledger = [...chat.ledger];
    if (!check.probe || check.resyncPending || check.mismatch) {
      corruptions++;
      corruptionDetails.push(`checkpoint ${checkpoints}: ${check.mismatch ?? (check.resyncPending ? "the state is still lost after a turn" : "the engine did not answer the probe")}`);
    } else if (ledger.length > 0 && check.evaluated === ledger.length) {
      // The fresh prefill on the engine itself, so its scratch state is not taken for the chat's.
      logitChecks++;
      const mismatch = await cacheDiffersFromFreshPrefill(chatState.inner, proxy, ledger);
      if (mismatch) {
        corruptions++;
        logitMismatches++;
        corruptionDetails.push(`checkpoint ${checkpoints} (${ledger.length} tokens): ${mismatch}`);
      }
    }
    const saved = await transcripts.load(id);
    if (!saved || !isDeepStrictEqual(saved.entries, entries)) lost++;
  };

  const seconds: Record<string, number> = {};
  for (let op = 0; op < options.operations; op++) {
    const kind: Operation = pick(SOAK_OPERATIONS);
    counts[kind] = (counts[kind] ?? 0) + 1;
    const opStarted = performance.now();
    switch (kind) {
      case "send":
        await send(chat);
        break;
      case "sendWhileStreaming":
        inFlight.push(send(chat), send(chat));
        break;
      case "stop":
        inFlight.push(send(chat));
        chat.stop();
        break;
      case "stopInPhase": {
        // Stop pressed the moment a turn enters the phase; measured until that turn ends. For
        // the overflow phase, long messages fill the context until one of them needs it.
        const phase = pick(STOP_PHASES);
        const measure = stopTally.begin(phase);
        const session = chat;
        let pressedIn: number | undefined;
        const press = (turn: number) => {
          if (pressedIn !== undefined) return;
          pressedIn = turn;
          measure.stopped();
          session.stop();
        };
        if (phase === "engineRestart") {
          const pid = proxy.pid;
          kill();
          await exited(pid);
        }
        const turns = phase === "overflow" ? 4 : 1;
        const sent: Promise<void>[] = [];
        for (let turn = 0; turn < turns; turn++) {
          const callbacks: TurnCallbacks = {
            onText: () => (pressedIn === turn ? measure.chunk() : undefined),
            ...(isTurnPhase(phase) ? { onPhase: (entered) => (entered === phase ? press(turn) : undefined) } : { onStart: () => press(turn) }),
          };
          const text = phase === "overflow" ? LONG_MESSAGE : pick(MESSAGES);
          sent.push(send(session, callbacks, text, () => (pressedIn === turn ? measure.settled() : undefined)));
        }
        inFlight.push(Promise.all(sent).then(() => measure.settled()));
        break;
      }
      case "reset": {
        // Reset while a turn runs: queued and running turns end, the transcript starts over.
        inFlight.push(send(chat));
        await chat.reset();
        await Promise.all(inFlight.splice(0));
        entries = [];
        await snapshots.delete(id);
        await saveTranscript();
        break;
      }
      case "reopen": {
        // Close the chat (its snapshot saved, as a panel does after each turn) and reopen it the
        // way a panel revives: the conversation rebuilt from the saved transcript, the KV cache
        // adopted from the snapshot when it matches, else re-prefilled.
        await Promise.all(inFlight.splice(0));
        await chat.whenIdle();
        await snapshots.save(id, chat);
        const held = withoutSystem(chat.messages);
        await chat.dispose();
        chat = await Conversation.create(engine, { turn: turnOptions(), prefillChunk: 16 });
        chatState = engine.states.at(-1)!;
        const saved = conversationOf((await transcripts.load(id))?.entries ?? []);
        const outcome = await snapshots.restore(id, chat, saved);
        if (outcome.kind === "snapshot") {
          restores.snapshot++;
          if (!isDeepStrictEqual(withoutSystem(chat.messages), held)) lost++;
        } else {
          restores.conversation++;
          await chat.restoreFromMessages(saved);
          if (!isDeepStrictEqual(withoutSystem(chat.messages), saved)) lost++;
        }
        break;
      }
      case "settings":
        chat.setOptions({ ...turnOptions(), sampling: random() < 0.5 ? { temperature: 0 } : { temperature: 0.7, seed: Math.floor(random() * 1000) } });
        break;
      case "kill": {
        const pid = proxy.pid;
        kill();
        await exited(pid);
        break;
      }
      case "killWhileStreaming": {
        let killed = false;
        inFlight.push(send(chat, { onText: () => (killed ? undefined : ((killed = true), kill())) }));
        break;
      }
    }
    seconds[kind] = (seconds[kind] ?? 0) + (performance.now() - opStarted) / 1000;
    // After every operation, in turn with what it queued (not awaited: the next operation may
    // overlap this one's turns, as in the UI).
    inFlight.push(probes.probe(chat, `op ${op + 1} (${kind})`));
    if ((op + 1) % (options.checkpointEvery ?? 50) === 0) {
      const checkpointStarted = performance.now();
      await checkpoint();
      seconds.checkpoint = (seconds.checkpoint ?? 0) + (performance.now() - checkpointStarted) / 1000;
      log(`${op + 1} operations: ${turnsCompleted} turns, ${kills} kills, ${restores.snapshot} snapshot restores, ${probes.compared} probes (${probes.mismatches.length} mismatches), ${logitChecks} logit checks (${logitMismatches} mismatches), ${corruptions} corruptions, ${lost} lost`);
    }
  }
  await checkpoint();
  corruptions += probes.mismatches.length;
  corruptionDetails.push(...probes.mismatches);
  await chat.dispose();
  const overlaps = engine.states.reduce((sum, s) => sum + s.overlaps, 0);
  await engine.dispose();
  rmSync(root, { recursive: true, force: true });
  return {
    operations: options.operations,
    counts,
    secondsByOperation: Object.fromEntries(Object.entries(seconds).map(([k, v]) => [k, Math.round(v * 10) / 10])),
    turnsCompleted,
    kills,
    turnsFailedByCrash,
    restores,
    checkpoints,
    cacheProbes: { compared: probes.compared, resyncPending: probes.resyncPending, unanswered: probes.unanswered, mismatches: probes.mismatches.length },
    logitChecks,
    logitMismatches,
    corruptions,
    corruptionDetails,
    lostTranscripts: lost,
    unexpectedErrors: unexpected,
    overlaps,
    stopByPhase: stopTally.figures(),
    wallSeconds: Math.round((Date.now() - started) / 1000),
  };
}
