// When a provider request's prefill is worth a progress notification, and what it says (no
// `vscode`: prefill-progress.ts shows it). VS Code's Agent mode sends ~16k tokens; the first time
// a conversation's prefix is not cached that is minutes of prefill on a small CPU (15,622 tokens
// in 8 minutes on 2 cores), which VS Code's Chat shows as a spinner and nothing else. A short
// prefill gets no notification: one that flashes up and away is noise.

/** A prefill with more tokens than this still to read is shown at once. */
export const PREFILL_NOTICE_TOKENS = 2_000;
/** A smaller one is shown once it has taken this long and, at its speed so far, has as long again to go. */
export const PREFILL_NOTICE_AFTER_MS = 2_000;

export interface NoticeStep {
  /** The notification's text. */
  readonly message: string;
  /** Percent of the whole gained since the last step (vscode.Progress adds increments up). */
  readonly increment: number;
}

export function prefillMessage(done: number, total: number): string {
  return `Reading the prompt: ${done.toLocaleString("en-US")} / ${total.toLocaleString("en-US")} tokens`;
}

/** One request's prefill, report by report (Session.prefill's onProgress: (0, total), then per chunk). */
export class PrefillNoticePlan {
  private startedAt: number | undefined;
  /** The percent shown so far; undefined while the notification is not shown. */
  private shownPercent: number | undefined;

  constructor(private readonly now: () => number) {}

  get shown(): boolean {
    return this.shownPercent !== undefined;
  }

  /** The notification's next step, or undefined while the prefill is not worth one. */
  report(done: number, total: number): NoticeStep | undefined {
    this.startedAt ??= this.now();
    if (this.shownPercent === undefined) {
      if (!this.worthShowing(done, total)) return undefined;
      this.shownPercent = 0;
    }
    const percent = total > 0 ? Math.min(100, (100 * done) / total) : 100;
    const increment = Math.max(0, percent - this.shownPercent);
    this.shownPercent = Math.max(this.shownPercent, percent);
    return { message: prefillMessage(done, total), increment };
  }

  private worthShowing(done: number, total: number): boolean {
    const left = total - done;
    if (left <= 0) return false;
    if (left > PREFILL_NOTICE_TOKENS) return true;
    const elapsed = this.now() - (this.startedAt ?? this.now());
    if (elapsed < PREFILL_NOTICE_AFTER_MS || done === 0) return false;
    const msLeft = (left * elapsed) / done;
    return msLeft >= PREFILL_NOTICE_AFTER_MS;
  }
}
