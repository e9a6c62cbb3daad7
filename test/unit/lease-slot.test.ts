// A chat panel's session slot (chats/lease-slot.ts, what ChatConversation opens and closes
// through): a panel closed while its session is still opening gives back what the open
// makes — the KV session disposed, the engine lease released — and a later open is not
// disturbed by the stale one finishing. The open's steps get a signal that closing (and Stop)
// aborts, so their own waits end at once. Waits are ordered with deferred promises.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CancelledError, DisposedError } from "../../src/extension/core/errors";
import { LeaseSlot, type SlotOpening } from "../../src/extension/chats/lease-slot";
import { deferred } from "../support/deferred";


/** Test double of an engine lease: counts its releases. */
class CountedLease {
  releases = 0;
  constructor(readonly name: string) {}
  release(): void {
    this.releases++;
  }
}

/** Test double of a KV session: records whether it was disposed. */
class CountedSession {
  disposed = 0;
  constructor(readonly name: string) {}
  async dispose(): Promise<void> {
    this.disposed++;
  }
}

/** Steps whose acquire and open wait for the test. */
function gatedSteps(name: string) {
  const acquired = deferred<void>();
  const opened = deferred<void>();
  const lease = new CountedLease(name);
  const session = new CountedSession(name);
  let openCalls = 0;
  let readyCalls = 0;
  const steps: SlotOpening<CountedLease, CountedSession> = {
    acquire: async () => {
      await acquired.promise;
      return lease;
    },
    open: async () => {
      openCalls++;
      await opened.promise;
      return session;
    },
    ready: () => void readyCalls++,
  };
  return { steps, acquired, opened, lease, session, openCalls: () => openCalls, readyCalls: () => readyCalls };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("LeaseSlot (a panel's session and engine lease)", () => {
  it("a panel closed while its session opens: the session is disposed and the lease released, nothing is published", async () => {
    const slot = new LeaseSlot<CountedLease, CountedSession>();
    const gate = gatedSteps("first");
    const ensured = slot.ensure(() => gate.steps);
    gate.acquired.resolve();
    await turn();
    assert.equal(gate.openCalls(), 1, "the lease is held and the session is opening");
    await slot.close(); // The panel is closed now.
    gate.opened.resolve();
    await assert.rejects(ensured, DisposedError);
    assert.equal(slot.session, undefined, "no session published after close");
    assert.equal(gate.session.disposed, 1, "the KV session it opened was disposed");
    assert.equal(gate.lease.releases, 1, "the lease released exactly once");
    assert.equal(gate.readyCalls(), 0, "the panel is not told it is ready");
  });

  it("a panel closed while the engine loads: the lease is released when it arrives and no session is opened", async () => {
    const slot = new LeaseSlot<CountedLease, CountedSession>();
    const gate = gatedSteps("first");
    const ensured = slot.ensure(() => gate.steps);
    await slot.close();
    gate.acquired.resolve();
    await assert.rejects(ensured, DisposedError);
    assert.equal(gate.openCalls(), 0);
    assert.equal(gate.lease.releases, 1);
  });

  it("a panel disposed while its session opens gives it back too", async () => {
    let disposed = false;
    const slot = new LeaseSlot<CountedLease, CountedSession>(() => disposed);
    const gate = gatedSteps("first");
    const ensured = slot.ensure(() => gate.steps);
    gate.acquired.resolve();
    await turn();
    disposed = true;
    gate.opened.resolve();
    await assert.rejects(ensured, DisposedError);
    assert.equal(gate.session.disposed, 1);
    assert.equal(gate.lease.releases, 1);
  });

  it("close then open again (a reset that switches model): the stale open finishing late does not replace the new session", async () => {
    const slot = new LeaseSlot<CountedLease, CountedSession>();
    const old = gatedSteps("old");
    const oldEnsured = slot.ensure(() => old.steps);
    old.acquired.resolve();
    await turn();
    await slot.close();
    const fresh = gatedSteps("new");
    const freshEnsured = slot.ensure(() => fresh.steps);
    fresh.acquired.resolve();
    fresh.opened.resolve();
    assert.equal(await freshEnsured, fresh.session);
    old.opened.resolve();
    await assert.rejects(oldEnsured, DisposedError);
    assert.equal(slot.session, fresh.session, "the new session stays");
    assert.deepEqual([old.session.disposed, old.lease.releases], [1, 1]);
    assert.deepEqual([fresh.session.disposed, fresh.lease.releases], [0, 0]);
    assert.equal(await slot.ensure(() => assert.fail("opened once")), fresh.session);
    await slot.close();
    assert.deepEqual([fresh.session.disposed, fresh.lease.releases], [1, 1]);
  });

  it("a failed open releases its lease, and the next caller opens again", async () => {
    const slot = new LeaseSlot<CountedLease, CountedSession>();
    const lease = new CountedLease("failing");
    await assert.rejects(
      slot.ensure(() => ({ acquire: async () => lease, open: async () => Promise.reject(new Error("no state")) })),
      /no state/,
    );
    assert.equal(lease.releases, 1);
    const gate = gatedSteps("retry");
    gate.acquired.resolve();
    gate.opened.resolve();
    assert.equal(await slot.ensure(() => gate.steps), gate.session);
    assert.equal(gate.readyCalls(), 1);
  });

  it("callers asking at once share one open", async () => {
    const slot = new LeaseSlot<CountedLease, CountedSession>();
    const gate = gatedSteps("once");
    const first = slot.ensure(() => gate.steps);
    const second = slot.ensure(() => assert.fail("a second open"));
    gate.acquired.resolve();
    gate.opened.resolve();
    assert.equal(await first, await second);
    assert.equal(gate.openCalls(), 1);
  });
  it("closing aborts the open's signal (reason: disposed), so a wait that honours it ends at once", async () => {
    const slot = new LeaseSlot<CountedLease, CountedSession>();
    let seen: AbortSignal | undefined;
    const ensured = slot.ensure(() => ({
      acquire: (signal) =>
        new Promise<CountedLease>((_resolve, reject) => {
          seen = signal;
          signal.addEventListener("abort", () => reject(signal.reason), { once: true });
        }),
      open: async () => new CountedSession("never"),
    }));
    await turn();
    assert.equal(seen?.aborted, false);
    await slot.close();
    assert.equal(seen?.aborted, true);
    assert.ok(seen?.reason instanceof DisposedError);
    await assert.rejects(ensured, DisposedError);
  });

  it("Stop while opening (cancelOpening) ends the open with CancelledError; a session that finished opening anyway is kept, not given back with its engine", async () => {
    const slot = new LeaseSlot<CountedLease, CountedSession>();
    const gate = gatedSteps("stopped");
    const ensured = slot.ensure(() => gate.steps);
    gate.acquired.resolve();
    await turn();
    slot.cancelOpening(); // open() here does not watch its signal: the slot checks after it
    gate.opened.resolve();
    await assert.rejects(ensured, CancelledError);
    assert.deepEqual([gate.session.disposed, gate.lease.releases, gate.readyCalls()], [0, 0, 1]);
    assert.equal(slot.session, gate.session);
    const reopen = gatedSteps("not needed");
    assert.equal(await slot.ensure(() => reopen.steps), gate.session, "the next message uses it: no second load");
    assert.equal(reopen.openCalls(), 0);
    await slot.close();
    assert.deepEqual([gate.session.disposed, gate.lease.releases], [1, 1]);
  });

  it("Stop during an acquire that honours the signal ends it with nothing published, and the next caller opens again", async () => {
    const slot = new LeaseSlot<CountedLease, CountedSession>();
    let opens = 0;
    const ensured = slot.ensure(() => ({
      acquire: (signal) => new Promise<CountedLease>((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true })),
      open: async () => (opens++, new CountedSession("never")),
    }));
    await turn();
    slot.cancelOpening();
    await assert.rejects(ensured, CancelledError);
    assert.equal(opens, 0);
    assert.equal(slot.session, undefined);
    const again = gatedSteps("again");
    again.acquired.resolve();
    again.opened.resolve();
    assert.equal(await slot.ensure(() => again.steps), again.session);
    slot.cancelOpening(); // once open, Stop is the session's business, not the slot's
    assert.equal(slot.session, again.session);
    assert.equal(again.session.disposed, 0);
  });
});
