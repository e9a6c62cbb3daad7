// Coalesces many "something changed" calls into one flush per animation frame. Tokens can
// arrive hundreds of times a second; the DOM only needs to change as often as it is painted.
// While the document is hidden nothing is painted (and requestAnimationFrame is paused),
// so work waits for visibilitychange and is then done once.
export class FrameBatcher {
  private frame: number | undefined;
  private waitingForVisible = false;

  constructor(private readonly flush: () => void) {
    document.addEventListener("visibilitychange", () => {
      if (!document.hidden && this.waitingForVisible) {
        this.waitingForVisible = false;
        this.run();
      }
    });
  }

  schedule(): void {
    if (this.frame !== undefined || this.waitingForVisible) return;
    if (document.hidden) {
      this.waitingForVisible = true;
      return;
    }
    this.frame = requestAnimationFrame(() => {
      this.frame = undefined;
      this.run();
    });
  }

  /** Runs pending work now (e.g. before a full re-render that must see the latest text). */
  flushNow(): void {
    if (this.frame !== undefined) {
      cancelAnimationFrame(this.frame);
      this.frame = undefined;
    }
    this.waitingForVisible = false;
    this.run();
  }

  private run(): void {
    this.flush();
  }
}
