// A ReplyRun whose backend run starts only after a wait (the state's lock, an engine process
// coming up): a cancel that arrives before the run exists is passed on as soon as it starts.

import type { ReplyRun } from "./engine";

export function replyRunStartingLater(start: (begin: <R extends { cancel(): void }>(run: R) => R) => Promise<number>): ReplyRun {
  let cancelled = false;
  let started: { cancel(): void } | undefined;
  const done = start((run) => {
    started = run;
    if (cancelled) run.cancel();
    return run;
  });
  return {
    done,
    cancel: () => {
      cancelled = true;
      started?.cancel();
    },
  };
}
