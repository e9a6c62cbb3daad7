// Coalesces streamed text into one webview message per ~frame: every postMessage crosses
// from the extension host to the renderer, and at hundreds of tokens/s one message per token
// is wasted work. The panel flushes it before any other message, so order is kept.

const TOKEN_FLUSH_MS = 16;

export class TokenCoalescer {
  private pending: { id: string; text: string } | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  /** `send` posts one coalesced "tokens" message. */
  constructor(private readonly send: (id: string, text: string) => void) {}

  queue(id: string, text: string): void {
    if (this.pending && this.pending.id !== id) this.flush();
    this.pending = { id, text: (this.pending?.text ?? "") + text };
    this.timer ??= setTimeout(() => this.flush(), TOKEN_FLUSH_MS);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const pending = this.pending;
    this.pending = undefined;
    if (pending) this.send(pending.id, pending.text);
  }

  /** Drops whatever is queued (the panel is going away). */
  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = undefined;
  }
}
