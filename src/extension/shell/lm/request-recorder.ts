// An opt-in record of every request the Chat provider and @stateful render, for finding where
// VS Code's requests differ (issue 25; `stateful-chat analyze-requests` reads it). Off unless
// STATEFUL_CHAT_RECORD_REQUESTS names a folder: a developer's switch for the bench (README,
// Benchmarks), not a user setting. Each request is appended to <folder>/requests.jsonl before
// it is served and its outcome after (core/request-pool/request-record.ts), so a request the
// pool refuses is on record too. Writes are synchronous so the lines of one extension host stay
// in order and the request line is on disk before the engine is asked. A write that fails is
// reported once and recording stops: a measurement aid never fails a request.

import { appendFileSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Tokenizer } from "../../core/engine";
import type { RenderedRequest } from "../../core/request-pool/request-messages";
import type { RequestMessage, ToolSpec } from "../../core/request-pool/request-shape";
import { outcomeRecordOf, REQUEST_LOG_FILE, requestRecordOf, type RequestLogLine } from "../../core/request-pool/request-record";
import type { PoolReply } from "../../core/request-pool/request-pool";

export const RECORD_REQUESTS_ENV = "STATEFUL_CHAT_RECORD_REQUESTS";

export interface RequestRecording {
  /**
   * Resolves or rejects as `serving` does, after its reply or error is recorded; `firstTokenMs`
   * is asked once it settled (the time from the request to its first token, if one came).
   */
  outcome(serving: Promise<PoolReply>, firstTokenMs?: () => number | undefined): Promise<PoolReply>;
}

const NOT_RECORDING: RequestRecording = { outcome: (serving) => serving };

export interface RecordedRequestInput {
  readonly model: string;
  readonly tokenizer: Tokenizer;
  readonly messages: readonly RequestMessage[];
  readonly tools: readonly ToolSpec[];
  readonly rendered: RenderedRequest;
}

export class RequestRecorder {
  readonly file: string;
  /** This recorder's part of every id: the process and its start, so two hosts appending to one log never collide. */
  private readonly run: string;
  private count = 0;
  private stopped = false;
  /** Token texts already decoded, per tokenizer: a request's ~16k tokens hold a few thousand distinct ones, mostly the same each time. */
  private readonly pieces = new WeakMap<Tokenizer, Map<number, string>>();

  constructor(
    readonly dir: string,
    private readonly report: (message: string) => void = (message) => console.warn(message),
    private readonly now: () => Date = () => new Date(),
  ) {
    this.file = join(dir, REQUEST_LOG_FILE);
    this.run = `${process.pid}.${now().getTime().toString(36)}`;
  }

  record(input: RecordedRequestInput): RequestRecording {
    if (this.stopped) return NOT_RECORDING;
    const id = `${this.run}-${++this.count}`;
    const written = this.append(
      requestRecordOf({ id, at: this.now(), model: input.model, messages: input.messages, tools: input.tools, rendered: input.rendered, piece: this.pieceOf(input.tokenizer) }),
    );
    if (!written) return NOT_RECORDING;
    return {
      outcome: async (serving, firstTokenMs) => {
        try {
          const reply = await serving;
          this.append(outcomeRecordOf(id, this.now(), { reply, firstTokenMs: firstTokenMs?.() }));
          return reply;
        } catch (error) {
          this.append(outcomeRecordOf(id, this.now(), { error }));
          throw error;
        }
      },
    };
  }

  private pieceOf(tokenizer: Tokenizer): (token: number) => string {
    let known = this.pieces.get(tokenizer);
    if (!known) this.pieces.set(tokenizer, (known = new Map<number, string>()));
    const cache = known;
    return (token) => {
      let piece = cache.get(token);
      if (piece === undefined) cache.set(token, (piece = tokenizer.decode([token])));
      return piece;
    };
  }

  private append(line: RequestLogLine): boolean {
    if (this.stopped) return false;
    try {
      mkdirSync(this.dir, { recursive: true });
      appendFileSync(this.file, `${JSON.stringify(line)}\n`);
      return true;
    } catch (error) {
      this.stopped = true;
      this.report(`Stateful Chat: recording requests to ${this.file} failed, recording stopped: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    }
  }
}

let environment: { readonly value: string | undefined; readonly recorder: RequestRecorder | undefined } | undefined;

/** The recorder STATEFUL_CHAT_RECORD_REQUESTS asks for (a relative folder is taken from the extension host's working directory), or undefined. */
export function environmentRecorder(env: NodeJS.ProcessEnv = process.env): RequestRecorder | undefined {
  const value = env[RECORD_REQUESTS_ENV]?.trim() || undefined;
  if (environment === undefined || environment.value !== value) environment = { value, recorder: value === undefined ? undefined : new RequestRecorder(resolve(value)) };
  return environment.recorder;
}

/** Records `input` when recording is on; the returned handle records its outcome. */
export function recordRequest(input: RecordedRequestInput): RequestRecording {
  return environmentRecorder()?.record(input) ?? NOT_RECORDING;
}
