// A session's cache written to and read from snapshot files (Session's saveSnapshot,
// saveSnapshotDelta and loadSnapshot). Kept apart from session.ts because it is one question
// asked three ways: does the state hold exactly the ledger, whole, from a position on, or after
// loading? A file is written only when it does and adopted only when it does.

import type { KvState } from "./engine";
import type { Ledger } from "./ledger";

/** What the snapshot functions read of a session: its state and its ledger. */
export interface SnapshotHolder {
  readonly state: KvState;
  readonly ledger: Ledger;
}

/** The whole ledger is in the state, nothing pending. */
function holdsLedger({ state, ledger }: SnapshotHolder): boolean {
  return ledger.length > 0 && ledger.evaluated === ledger.length && state.length === ledger.length;
}

/** The whole cache to `path`; its size in bytes, or undefined when the backend cannot or there is nothing to save. */
export async function saveWholeSnapshot(holder: SnapshotHolder, path: string): Promise<number | undefined> {
  const save = holder.state.saveSnapshot?.bind(holder.state);
  return save && holdsLedger(holder) ? save(path, holder.ledger.tokens) : undefined;
}

/** The cache's cells from `from` on; undefined when nothing is new or the backend has no deltas. */
export async function saveSnapshotDelta(holder: SnapshotHolder, path: string, from: number): Promise<number | undefined> {
  const save = holder.state.saveSnapshotDelta?.bind(holder.state);
  return save && from > 0 && from < holder.ledger.length && holdsLedger(holder) ? save(path, from, holder.ledger.tokens.slice(from)) : undefined;
}

/**
 * Loads `path` then each of `deltas` into the state. "adopted": together they hold exactly the
 * ledger, which is then all evaluated. "mismatch" (or a file the backend refuses): the state
 * holds something else and the caller starts a fresh one. "unsupported": nothing was loaded
 * (the backend has no snapshots or no deltas, or the ledger is empty).
 */
export async function loadSnapshotInto({ state, ledger }: SnapshotHolder, path: string, deltas: readonly string[]): Promise<"adopted" | "mismatch" | "unsupported"> {
  const load = state.loadSnapshot?.bind(state);
  const append = state.appendSnapshot?.bind(state);
  if (!load || ledger.length === 0 || (deltas.length > 0 && !append)) return "unsupported";
  const expected = ledger.tokens;
  try {
    let held = await load(path);
    for (const delta of deltas) held = held.concat(await append!(delta));
    if (held.length !== expected.length || !held.every((token, i) => token === expected[i]) || state.length !== expected.length) return "mismatch";
  } catch {
    return "mismatch"; // a file the backend refuses: re-prefill instead
  }
  ledger.forgetEvaluated();
  ledger.markEvaluated(expected.length);
  return "adopted";
}
