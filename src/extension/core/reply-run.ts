// A ReplyRun whose backend run starts only after a wait (the state's lock, an engine process
// coming up): a cancel that arrives before the run exists is passed on as soon as it starts.

import type { ReplyRun } from "./engine";

export function replyRunStartingLater(start: (begin: <R extends { cancel(): void }>(run: R) => R) => Promise<number>): ReplyRun {
  let cancelled = false;
  let started: { cancel(): void; speculation?: ReplyRun["speculation"] } | undefined;
  const done = start(<R extends { cancel(): void }>(run: R): R => {
    started = run as { cancel(): void; speculation?: ReplyRun["speculation"] };
    if (cancelled) run.cancel();
    return run;
  });
  return {
    done,
    cancel: () => {
      cancelled = true;
      started?.cancel();
    },
    // What the started run reports (speculative decoding's counts), once it has started.
    speculation: () => started?.speculation?.(),
  };
}
