// Test double of the engine boundary for no-model unit tests: a deterministic "model" whose
// next token is a hash of the whole cached sequence, so any cache/ledger mismatch changes
// its output. Tokens are bytes of UTF-8 text (ids 0..255), EOS is 256.

import type { CacheProbe, Engine, KvState, ReplyOptions, ReplyRun, SamplingOptions, Tokenizer } from "../../src/extension/core/engine";
import { CapacityError, ConcurrentAccessError, DisposedError } from "../../src/extension/core/errors";

export const EOS = 256;
const EOS_TEXT = "<eos>";

export class ByteTokenizer implements Tokenizer {
  readonly eosText = EOS_TEXT;
  encode(text: string, options: { readonly specials: boolean }): number[] {
    const out: number[] = [];
    const parts = options.specials ? text.split(EOS_TEXT) : [text];
    parts.forEach((part, i) => {
      if (i > 0) out.push(EOS);
      out.push(...new TextEncoder().encode(part));
    });
    return out;
  }
  decode(tokens: readonly number[]): string {
    let text = "";
    let bytes: number[] = [];
    const flush = () => {
      text += new TextDecoder().decode(new Uint8Array(bytes));
      bytes = [];
    };
    for (const t of tokens) {
      if (t === EOS) {
        flush();
        text += EOS_TEXT;
      } else bytes.push(t);
    }
    flush();
    return text;
  }
  isEndOfGeneration(token: number): boolean {
    return token === EOS;
  }
}

export class HashState implements KvState {
  readonly cache: number[] = [];
  busy = false;
  disposed = false;
  evaluated = 0;
  /** Called before each evaluate; lets tests block or fail a call. */
  beforeEvaluate: ((tokens: readonly number[]) => Promise<void> | void) | undefined;

  /**
   * With `replyLoop`, the state has generateReply: like a native loop it runs on by itself
   * and sees a cancel only between tokens, so it may have decoded tokens the caller did not
   * take (`runAhead` more steps after each token before it looks).
   */
  readonly generateReply?: (tokens: readonly number[], options: ReplyOptions, onToken: (token: number) => void) => ReplyRun;
  runAhead = 0;

  constructor(
    readonly capacity: number,
    private readonly replyLength: number,
    replyLoop = false,
  ) {
    if (replyLoop) this.generateReply = (tokens, options, onToken) => this.replyLoop(tokens, options, onToken);
  }

  private replyLoop(tokens: readonly number[], options: ReplyOptions, onToken: (token: number) => void): ReplyRun {
    let cancelled = false;
    const done = (async () => {
      if (this.disposed) throw new DisposedError("state");
      if (this.busy) throw new ConcurrentAccessError();
      const writes = tokens.length + options.maxTokens - 1;
      if (this.cache.length + writes > this.capacity) throw new CapacityError(this.cache.length, writes, this.capacity);
      this.busy = true;
      try {
        await this.beforeEvaluate?.(tokens);
        this.cache.push(...tokens);
        this.evaluated += tokens.length;
        let sampled = 0;
        let ahead = 0;
        for (;;) {
          const token = nextToken(this.cache, this.replyLength);
          sampled++;
          onToken(token);
          if (token === EOS || sampled >= options.maxTokens) break;
          // The caller's cancel arrives between tokens, unless this loop runs ahead of it.
          if (ahead >= this.runAhead) {
            await new Promise((r) => setImmediate(r));
            ahead = 0;
          } else ahead++;
          if (cancelled) break;
          await this.beforeEvaluate?.([token]);
          this.cache.push(token);
          this.evaluated++;
        }
        return this.cache.length;
      } finally {
        this.busy = false;
      }
    })();
    return { done, cancel: () => (cancelled = true) };
  }

  get length(): number {
    return this.cache.length;
  }

  async evaluate(tokens: readonly number[], sample?: SamplingOptions): Promise<number | undefined> {
    if (this.disposed) throw new DisposedError("state");
    if (this.busy) throw new ConcurrentAccessError();
    if (this.cache.length + tokens.length > this.capacity) throw new CapacityError(this.cache.length, tokens.length, this.capacity);
    this.busy = true;
    try {
      await this.beforeEvaluate?.(tokens);
      await new Promise((r) => setImmediate(r));
      this.cache.push(...tokens);
      this.evaluated += tokens.length;
      if (!sample) return undefined;
      return nextToken(this.cache, this.replyLength);
    } finally {
      this.busy = false;
    }
  }

  /** A batch, each position's next token (speculative verification). */
  async verify(tokens: readonly number[], sample: SamplingOptions): Promise<number[]> {
    const out: number[] = [];
    if (this.cache.length + tokens.length > this.capacity) throw new CapacityError(this.cache.length, tokens.length, this.capacity);
    for (let i = 0; i < tokens.length; i++) {
      // Checks busy/disposed/capacity and runs beforeEvaluate per token, like evaluate.
      out.push((await this.evaluate([tokens[i]], sample))!);
    }
    return out;
  }

  async truncate(length: number): Promise<void> {
    this.cache.length = Math.min(this.cache.length, length);
  }

  async reset(): Promise<void> {
    this.cache.length = 0;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
  }
  /** The double's own cells (its `cache`), the only count it has: a test that erases one behind the session's back sees it here. */
  async probeCache(): Promise<CacheProbe> {
    return { held: this.cache.length, source: "test double's cache" };
  }
}

/** Letters derived from a hash of the sequence; EOS after `replyLength` letters since the last newline-free run. */
export function nextToken(sequence: readonly number[], replyLength: number): number {
  let hash = 2166136261;
  for (const t of sequence) hash = Math.imul(hash ^ t, 16777619) >>> 0;
  let run = 0;
  for (let i = sequence.length - 1; i >= 0 && sequence[i] >= 97 && sequence[i] <= 122; i--) run++;
  if (run >= replyLength) return EOS;
  return 97 + (hash % 26);
}

export const CHATML_TEMPLATE =
  "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<eos>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

export class FakeEngine implements Engine {
  readonly tokenizer = new ByteTokenizer();
  readonly chatTemplate: string;
  readonly states: HashState[] = [];
  readonly info;

  constructor(
    private readonly capacity = 4096,
    private readonly replyLength = 12,
    template = CHATML_TEMPLATE,
    /** States with generateReply (a backend with its own reply loop). */
    readonly replyLoop = false,
  ) {
    this.chatTemplate = template;
    this.info = { backend: "llamacpp" as const, modelPath: "fake", modelName: "fake", capacity, details: "test double" };
  }

  async createState(): Promise<HashState> {
    const state = new HashState(this.capacity, this.replyLength, this.replyLoop);
    this.states.push(state);
    return state;
  }

  async dispose(): Promise<void> {}
}
