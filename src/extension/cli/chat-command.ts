// `stateful-chat chat`: one conversation on the core, messages from stdin (one per line),
// replies streamed to stdout, or one JSON event per line with --json.

import { join } from "node:path";
import { createInterface } from "node:readline";
import { existsSync } from "node:fs";
import { loadEngine, type LoadedEngine, type LoadHooks } from "../backends/load-engine";
import type { EngineRequest } from "../core/engine-options";
import { describeServerStatus, type ServerStatus } from "../core/server-status";
import { ProxyEngine } from "../engine-host/proxy-engine";
import { Conversation } from "../core/conversation";
import type { Engine, EnginePlacement } from "../core/engine";
import { toStatefulChatError } from "../core/errors";
import type { OverflowEvent, TurnStats } from "../core/stats";
import { defaultModelPath } from "../models/default-model";
import type { ChatArgs } from "./chat-args";
import { packageRoot } from "./package-root";

type Emit = (event: Record<string, unknown>) => void;

export async function runChat(args: ChatArgs): Promise<number> {
  const json = args.json;
  const emit: Emit = (event) => process.stdout.write(`${JSON.stringify(event)}\n`);
  const say = (text: string) => process.stderr.write(text);
  const fallback = defaultModelPath(packageRoot());
  const modelPath = args.model ?? fallback;

  let engine: Engine;
  let loadedEngine: Engine | undefined;
  let session: Conversation;
  const onServerStatus = (status: ServerStatus) => {
    if (json) emit({ event: "server", ...status });
    else say(`[${describeServerStatus(status)}]\n`);
  };
  try {
    const loaded = await startEngine(args.inProcess, {
      modelPath,
      backend: args.backend,
      contextSize: args.ctx,
      threads: args.threads,
      threadCalibrationFile: join(packageRoot(), ".cache", "llama-threads.json"),
      computeUnits: args.computeUnits,
      fallbackModelPath: existsSync(fallback) ? fallback : undefined,
      speculative: args.speculative,
      draftModelPath: args.draftModel,
      gpu: args.gpu,
      gpuLayers: args.gpuLayers,
      ...(args.backend === "remote" && args.server
        ? { server: { url: args.server, kind: args.serverKind, apiKey: process.env.STATEFUL_CHAT_SERVER_API_KEY || undefined } }
        : {}),
    }, { onServerStatus });
    engine = loaded.engine;
    loadedEngine = engine;
    session = await Conversation.create(engine, {
      turn: {
        maxTokens: args.maxTokens,
        sampling: { temperature: args.temperature, seed: args.seed },
        strategy: args.strategy,
        overflow: args.overflow,
        history: args.history,
        ...(args.system !== undefined ? { systemPrompt: args.system } : {}),
      },
    });
    const ready = {
      event: "ready",
      backend: engine.info.backend,
      model: engine.info.modelPath,
      capacity: session.capacity,
      details: engine.info.details,
      ...(engine.info.placement ? { placement: engine.info.placement } : {}),
      ...(loaded.notice ? { notice: loaded.notice } : {}),
    };
    if (json) emit(ready);
    else say(`${loaded.notice ? `${loaded.notice}\n` : ""}Stateful Chat · ${engine.info.modelName} · ${engine.info.details}\n`);
  } catch (error) {
    const typed = toStatefulChatError(error);
    if (json) emit({ event: "error", code: typed.code, message: typed.message });
    else say(`error (${typed.code}): ${typed.message}\n`);
    // A model that loaded but was refused after (its template stopped by the sandbox): its
    // engine process would keep this CLI alive.
    await loadedEngine?.dispose().catch(() => undefined);
    return 1;
  }

  const onSigint = () => {
    if (!session.stop()) process.exit(130);
  };
  process.on("SIGINT", onSigint);
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
  try {
    for await (const line of lines) {
      if (line.trim() === "/reset") {
        await session.reset();
        if (json) emit({ event: "reset" });
        else say("[conversation reset]\n");
        continue;
      }
      await runTurn(session, line, json, emit, say, engine.info.placement);
    }
  } finally {
    process.off("SIGINT", onSigint);
    await session.dispose();
    await engine.dispose();
  }
  return 0;
}

/**
 * The model in an engine host process (the default), or in this process with --in-process.
 * A remote backend always runs here: it is HTTP, with no native code to isolate, and its
 * waits (busy server) are reported as they happen.
 */
async function startEngine(inProcess: boolean, request: EngineRequest, hooks: LoadHooks): Promise<LoadedEngine> {
  if (inProcess || request.backend === "remote") return loadEngine(request, hooks);
  const engine = await ProxyEngine.start(request);
  return { engine, notice: engine.notice };
}

async function runTurn(conversation: Conversation, line: string, json: boolean, emit: Emit, say: (t: string) => void, placement: EnginePlacement | undefined) {
  const onOverflow = (event: OverflowEvent) => {
    if (json) emit({ event: "overflow", ...event });
    else say(`[context full: ${event.strategy} freed ${event.tokensFreed} tokens (${event.positionBefore} → ${event.positionAfter})]\n`);
  };
  try {
    const stats = await conversation.send(
      { text: line },
      { onText: json ? undefined : (text) => process.stdout.write(text), onOverflow },
    );
    // `placement`: where the model computed this turn (device, layers offloaded, threads).
    if (json) emit({ event: "turn", ...stats, overflow: undefined, ...(placement ? { placement } : {}) });
    else {
      process.stdout.write("\n");
      say(`${statusLine(stats)}\n`);
    }
  } catch (error) {
    const typed = toStatefulChatError(error);
    if (json) emit({ event: "error", code: typed.code, message: typed.message });
    else say(`\nerror (${typed.code}): ${typed.message}\n`);
  }
}

/** How the first turn after a restore or an engine restart got its cache. */
function resumedText(resumed: NonNullable<TurnStats["resumed"]>): string {
  return resumed.from === "snapshot" ? "restored from snapshot" : `re-prefilled ${resumed.tokens} tokens`;
}

function statusLine(stats: TurnStats): string {
  const fill = Math.round((stats.position / stats.capacity) * 100);
  return (
    `[turn ${stats.turn} · ${stats.prefilled} new + ${stats.cached} cached tokens · ` +
    (stats.serverCached !== undefined ? `server reused ${stats.serverCached} · ` : "") +
    (stats.rewound > 0 ? `${stats.rewound} rewound · ` : "") +
    (stats.resumed ? `${resumedText(stats.resumed)} · ` : "") +
    `${stats.position}/${stats.capacity} (${fill}%) · first token ${Math.round(stats.ttftMs)} ms · ` +
    `${stats.decodeTokensPerSec} tok/s` +
    (stats.speculation && stats.speculation.drafted > 0
      ? ` · ${stats.speculation.accepted}/${stats.speculation.drafted} drafted accepted, ${stats.speculation.tokensPerStep} tok/step`
      : "") +
    `${stats.stopReason === "cancelled" ? " · stopped" : ""}]`
  );
}
