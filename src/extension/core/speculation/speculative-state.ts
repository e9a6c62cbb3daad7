// A KvState with speculative decoding in its reply loop, over any backend state that can
// verify a batch (KvState.verify). Each step drafts tokens (prompt lookup over the cache's
// own tokens, or a draft model), decodes the last sampled token and the draft in one batch
// on the target, keeps the longest prefix of the draft that the target's own samples agree
// with, plus the target's token after it, and erases the rejected tail exactly: the cache
// holds what a plain decode would have written (invariant 9).
//
// Why sampling stays exact: drafts are deterministic (lookup, a greedy draft model), so the
// standard acceptance rule (accept d with probability min(1, p(d)/q(d)), else sample from
// the normalised max(0, p − q)) with q one-hot on d reduces to: sample t from p; keep d when
// t = d, else emit t and stop. That is what comparing the target's own sample does, so every
// emitted token is distributed exactly as in a plain decode.
//
// Where no draft is at hand the backend's own reply loop runs (when it has one) until the
// lookup index finds a match again, so a plain chat decodes as fast as without speculation.

import type { KvState, ReplyOptions, ReplyRun, SamplingOptions, Tokenizer } from "../engine";
import { CapacityError, EngineFailedError } from "../errors";
import { ExclusiveAccess } from "../exclusive-access";
import type { Drafter } from "./drafter";
import type { DraftPolicy, DraftSource } from "./draft-policy";
import { TokenMirror } from "./token-mirror";

export interface SpeculativeStateOptions {
  /** Prompt lookup over the cache's own tokens (free to ask, so asked first). */
  readonly lookup: boolean;
  /** A draft model, asked when lookup has no draft worth verifying. */
  readonly draftModel?: Drafter;
  readonly policy: DraftPolicy;
  readonly tokenizer: Pick<Tokenizer, "isEndOfGeneration">;
}

interface MutableCounts {
  drafted: number;
  accepted: number;
  steps: number;
}

export class SpeculativeKvState implements KvState {
  private readonly mirror = new TokenMirror();
  private readonly access = new ExclusiveAccess("speculative state", undefined, (error) => {
    // What the cache holds after a failure is what the backend says: keep the mirror true.
    this.mirror.resync(this.inner.length);
    return error;
  });
  private running: ReplyRun | undefined;

  readonly generateReply: (tokens: readonly number[], options: ReplyOptions, onToken: (token: number) => void) => ReplyRun;

  constructor(
    private readonly inner: KvState & { verify: NonNullable<KvState["verify"]> },
    private readonly options: SpeculativeStateOptions,
  ) {
    this.generateReply = (tokens, replyOptions, onToken) => this.runReply(tokens, replyOptions, onToken);
  }

  get capacity(): number {
    return this.inner.capacity;
  }

  get length(): number {
    return this.inner.length;
  }

  /** The tokens the cache holds, as this wrapper tracks them (tests compare it with the ledger). */
  get heldTokens(): readonly number[] {
    return this.mirror.tokens;
  }

  evaluate(tokens: readonly number[], sample?: SamplingOptions): Promise<number | undefined> {
    return this.tracked(async () => {
      const next = await this.inner.evaluate(tokens, sample);
      this.mirror.append(tokens);
      return next;
    });
  }

  evaluateTopK(tokens: readonly number[], k: number): Promise<Array<readonly [number, number]>> {
    return this.tracked(async () => {
      if (!this.inner.evaluateTopK) throw new EngineFailedError("this backend has no evaluateTopK");
      const top = await this.inner.evaluateTopK(tokens, k);
      this.mirror.append(tokens);
      return top;
    });
  }

  verify(tokens: readonly number[], sample: SamplingOptions): Promise<number[]> {
    return this.tracked(async () => {
      const out = await this.inner.verify(tokens, sample);
      this.mirror.append(tokens);
      return out;
    });
  }

  truncate(length: number): Promise<void> {
    return this.tracked(async () => {
      await this.inner.truncate(length);
      this.mirror.truncate(length);
    });
  }

  reset(): Promise<void> {
    return this.tracked(async () => {
      await this.inner.reset();
      this.mirror.replace([]);
      await this.options.draftModel?.reset?.();
    });
  }

  get saveSnapshot(): KvState["saveSnapshot"] {
    const save = this.inner.saveSnapshot;
    return save && ((path, tokens) => this.tracked(() => save.call(this.inner, path, tokens)));
  }

  get saveSnapshotDelta(): KvState["saveSnapshotDelta"] {
    const save = this.inner.saveSnapshotDelta;
    return save && ((path, from, tokens) => this.tracked(() => save.call(this.inner, path, from, tokens)));
  }

  get appendSnapshot(): KvState["appendSnapshot"] {
    const append = this.inner.appendSnapshot;
    return (
      append &&
      ((path) =>
        this.tracked(async () => {
          const added = await append.call(this.inner, path);
          this.mirror.append(added);
          return added;
        }))
    );
  }

  /** The backend's own count of its cache (KvState.probeCache), in turn with this wrapper's calls. */
  get probeCache(): KvState["probeCache"] {
    const probe = this.inner.probeCache;
    return probe && (() => this.tracked(() => probe.call(this.inner)));
  }

  get loadSnapshot(): KvState["loadSnapshot"] {
    const load = this.inner.loadSnapshot;
    return (
      load &&
      ((path) =>
        this.tracked(async () => {
          const tokens = await load.call(this.inner, path);
          this.mirror.replace(tokens);
          return tokens;
        }))
    );
  }

  async dispose(): Promise<void> {
    // A reply in flight uses the inner state until it stops: stop it first.
    const running = this.running;
    if (running) {
      running.cancel();
      await running.done.catch(() => undefined);
    }
    await this.inner.dispose();
    await this.options.draftModel?.dispose?.();
  }

  private runReply(tokens: readonly number[], options: ReplyOptions, onToken: (token: number) => void): ReplyRun {
    const counts: MutableCounts = { drafted: 0, accepted: 0, steps: 0 };
    let cancelled = false;
    let nativeRun: ReplyRun | undefined;
    const done = this.tracked(async () => {
      const writes = tokens.length + options.maxTokens - 1;
      if (tokens.length === 0 || options.maxTokens < 1) throw new EngineFailedError("generateReply needs input tokens and maxTokens >= 1");
      if (this.length + writes > this.capacity) throw new CapacityError(this.length, writes, this.capacity);
      const reply = new ReplyProgress(options.maxTokens, this.options.tokenizer, onToken);
      this.options.policy.newReply();
      // The first token: the input's last logits.
      const first = await this.inner.evaluate(tokens, options.sample);
      this.mirror.append(tokens);
      counts.steps++;
      if (first === undefined) throw new EngineFailedError("the backend sampled no token");
      reply.emit(first);
      while (!reply.finished && !cancelled) {
        const last = reply.last;
        const room = options.maxTokens - reply.count - 1;
        const { draft, source, draftMs } = await this.nextDraft(last, room);
        if (cancelled) break;
        if (draft.length === 0) {
          await this.plainSteps(last, options, reply, counts, room, (run) => (nativeRun = run), () => cancelled);
          continue;
        }
        const started = performance.now();
        const out = await this.inner.verify([last, ...draft], options.sample);
        const ms = performance.now() - started;
        counts.steps++;
        let agreed = 0;
        while (agreed < draft.length && out[agreed] === draft[agreed]) agreed++;
        counts.drafted += draft.length;
        counts.accepted += agreed;
        this.options.policy.record(source, draft.length, agreed, ms, draftMs);
        // out[0..agreed] are the target's tokens: the agreed drafts, then its own next one.
        let emitted = 0;
        while (emitted <= agreed && !reply.finished) {
          reply.emit(out[emitted]);
          emitted++;
        }
        // The cache keeps `last` and the drafts that were emitted but the final one.
        const keep = this.mirror.length + emitted;
        this.mirror.append([last, ...draft.slice(0, emitted - 1)]);
        await this.inner.truncate(keep);
      }
      return this.inner.length;
    });
    const run: ReplyRun = {
      done,
      cancel: () => {
        cancelled = true;
        nativeRun?.cancel();
      },
      speculation: () => ({ ...counts }),
    };
    this.running = run;
    void done.finally(() => {
      if (this.running === run) this.running = undefined;
    }).catch(() => undefined);
    return run;
  }

  /** The draft to verify after `last` now, and where it came from: lookup first, then a draft model. */
  private async nextDraft(last: number, room: number): Promise<{ draft: readonly number[]; source: DraftSource; draftMs?: number }> {
    const policy = this.options.policy;
    if (this.options.lookup) {
      const match = this.mirror.match([last], room);
      const source: DraftSource = { kind: "lookup", matchLength: match.matchLength };
      const length = match.tokens.length > 0 ? policy.draftLength(source, match.tokens.length) : 0;
      if (length > 0) return { draft: match.tokens.slice(0, length), source };
    }
    const model = this.options.draftModel;
    const source: DraftSource = { kind: "model" };
    const wanted = model ? policy.draftLength(source, room) : 0;
    if (!model || wanted <= 0) return { draft: [], source };
    const started = performance.now();
    const draft = (await model.draft(this.mirror, [last], wanted)).slice(0, wanted);
    return { draft, source, draftMs: performance.now() - started };
  }

  /**
   * Whether a lookup draft would be verified after `tail` (cache + tail) now: the backend's
   * plain loop is stopped for it. (A draft model is not asked per token: it had its turn
   * before the loop started, and drafting costs it a decode of its own.)
   */
  private wouldDraft(tail: readonly number[], room: number): boolean {
    if (!this.options.lookup) return false;
    const match = this.mirror.match(tail, Math.min(room, MAX_LOOKAHEAD_DRAFT));
    return match.tokens.length > 0 && this.options.policy.wouldDraft({ kind: "lookup", matchLength: match.matchLength }, match.tokens.length);
  }

  /**
   * No draft: decode `last` and what follows plainly. With a backend reply loop, let it run
   * until a draft is worth verifying again (it is cancelled then; every token it sampled is
   * the target's own and is kept); else one single decode. Each plain token is timed for the
   * policy's cost figures.
   */
  private async plainSteps(
    last: number,
    options: ReplyOptions,
    reply: ReplyProgress,
    counts: MutableCounts,
    room: number,
    started: (run: ReplyRun) => void,
    cancelled: () => boolean,
  ): Promise<void> {
    const before = this.mirror.length;
    const policy = this.options.policy;
    if (!this.inner.generateReply) {
      const begun = performance.now();
      const next = await this.inner.evaluate([last], options.sample);
      policy.recordPlain(1, performance.now() - begun);
      this.mirror.append([last]);
      counts.steps++;
      if (next === undefined) throw new EngineFailedError("the backend sampled no token");
      reply.emit(next);
      return;
    }
    // `last` and what the loop samples, grown in place: the per-token lookup copies nothing.
    const tail = [last];
    let run: ReplyRun | undefined = undefined;
    // Plain tokens are timed between consecutive ones: the first includes starting the loop.
    let previousAt: number | undefined;
    const onToken = (token: number) => {
      const now = performance.now();
      if (previousAt !== undefined) policy.recordPlain(1, now - previousAt);
      previousAt = now;
      tail.push(token);
      if (reply.finished) return;
      reply.emit(token);
      const stop = reply.finished || cancelled() || this.wouldDraft(tail, room - (tail.length - 1));
      if (stop) run?.cancel();
    };
    run = this.inner.generateReply([last], { sample: options.sample, maxTokens: options.maxTokens - reply.count }, onToken);
    started(run);
    let length: number;
    try {
      length = await run.done;
    } catch (error) {
      this.mirror.resync(this.inner.length);
      throw error;
    }
    counts.steps += tail.length - 1;
    // The loop's cache: `last` and every sampled token but its final one.
    const written = tail.slice(0, Math.max(0, length - before));
    this.mirror.append(written);
    if (this.mirror.length !== length) this.mirror.resync(length);
  }

  private tracked<T>(operation: () => Promise<T>): Promise<T> {
    return this.access.run(operation);
  }
}

/** Longest draft looked at while deciding whether to stop the backend's plain loop. */
const MAX_LOOKAHEAD_DRAFT = 16;

/** The reply's sampled tokens as they are emitted, and when it must stop. */
class ReplyProgress {
  private readonly tokens: number[] = [];
  private stopped = false;

  constructor(
    private readonly maxTokens: number,
    private readonly tokenizer: Pick<Tokenizer, "isEndOfGeneration">,
    private readonly onToken: (token: number) => void,
  ) {}

  get count(): number {
    return this.tokens.length;
  }

  get last(): number {
    return this.tokens[this.tokens.length - 1];
  }

  get finished(): boolean {
    return this.stopped;
  }

  emit(token: number): void {
    if (this.stopped) return;
    this.tokens.push(token);
    this.onToken(token);
    if (this.tokenizer.isEndOfGeneration(token) || this.tokens.length >= this.maxTokens) this.stopped = true;
  }
}
