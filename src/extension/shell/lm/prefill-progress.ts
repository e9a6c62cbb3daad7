// A long prefill of a provider request, shown as a cancellable notification ("Reading the
// prompt: 3,200 / 15,622 tokens") instead of minutes of silence in VS Code's Chat. When to show
// it is prefill-notice.ts's; Cancel aborts the request through the same AbortController as
// VS Code's own cancellation token. The notification closes when the prompt is read or the
// request ends, whichever comes first.

import * as vscode from "vscode";
import { PrefillNoticePlan } from "./prefill-notice";

export class PrefillProgressNotice implements vscode.Disposable {
  private readonly plan = new PrefillNoticePlan(() => performance.now());
  private progress: vscode.Progress<{ message?: string; increment?: number }> | undefined;
  /** What came before withProgress handed over its Progress: shown as soon as it does. */
  private waiting: { message: string; increment: number } | undefined;
  private finish: (() => void) | undefined;
  private closed = false;
  private last = { done: 0, total: 0 };
  /** Where the prefill was when Cancel was pressed on the notification, if it was. */
  cancelledAt: { readonly done: number; readonly total: number } | undefined;

  constructor(
    private readonly title: string,
    private readonly abort: () => void,
  ) {}

  /** PoolRequest.onPrefillProgress. */
  readonly onProgress = (done: number, total: number): void => {
    if (this.closed) return;
    this.last = { done, total };
    const step = this.plan.report(done, total);
    if (step) {
      if (this.progress) this.progress.report(step);
      else if (this.waiting) this.waiting = { message: step.message, increment: this.waiting.increment + step.increment };
      else this.open(step);
    }
    if (done >= total) this.dispose();
  };

  /** What the request says when Cancel on the notification stopped it. */
  cancelledMessage(): string {
    const at = this.cancelledAt ?? this.last;
    return `Stopped while reading the prompt, at ${at.done.toLocaleString("en-US")} of ${at.total.toLocaleString("en-US")} tokens (Cancel was pressed).`;
  }

  dispose(): void {
    if (this.closed) return;
    this.closed = true;
    this.finish?.();
  }

  private open(first: { message: string; increment: number }): void {
    this.waiting = first;
    void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: this.title, cancellable: true }, (progress, token) => {
      const cancel = token.onCancellationRequested(() => {
        if (this.closed) return;
        this.cancelledAt = this.last;
        this.abort();
      });
      if (this.waiting) progress.report(this.waiting);
      this.waiting = undefined;
      this.progress = progress;
      return new Promise<void>((resolve) => {
        this.finish = () => {
          cancel.dispose();
          resolve();
        };
        if (this.closed) this.finish();
      });
    });
  }
}
