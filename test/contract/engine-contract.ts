// The contract every backend must pass (llama.cpp here; Core ML on a Mac via test:coreml).
// Call `engineContract(name, load)` from a test file.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { BACKEND_NAMES, type Engine, type KvState } from "../../src/extension/core/engine";
import { CapacityError, ConcurrentAccessError, DisposedError } from "../../src/extension/core/errors";

const GREEDY = { temperature: 0 } as const;

/** `steps`: greedy tokens decoded per comparison (default 8; a slow device, such as Mesa's llvmpipe, takes fewer). */
export function engineContract(name: string, load: () => Promise<Engine>, options: { readonly steps?: number } = {}): void {
  const steps = options.steps ?? 8;
  describe(`engine contract: ${name}`, () => {
    let engine: Engine;
    let prompt: number[];

    before(async () => {
      engine = await load();
      prompt = engine.tokenizer.encode("A short poem about the sea, in English: Waves", { specials: true });
    });
    after(async () => {
      await engine?.dispose();
    });

    async function withState<T>(fn: (state: KvState) => Promise<T>): Promise<T> {
      const state = await engine.createState();
      try {
        return await fn(state);
      } finally {
        await state.dispose();
      }
    }

    async function greedyContinuation(state: KvState, first: number, steps: number): Promise<number[]> {
      const out: number[] = [];
      let next = first;
      for (let i = 0; i < steps; i++) {
        out.push(next);
        next = (await state.evaluate([next], GREEDY))!;
      }
      return out;
    }

    it("reports a capacity and a backend", () => {
      assert.ok(engine.info.capacity > 0);
      assert.ok((BACKEND_NAMES as readonly string[]).includes(engine.info.backend));
      assert.ok(engine.chatTemplate.length > 0);
    });

    it("tokenizer round-trips code, unicode and emoji", () => {
      for (const text of ["def add(a, b):\n    return a + b\n", "naïve café — 東京 😀🚀", "  leading and trailing  "]) {
        const ids = engine.tokenizer.encode(text, { specials: false });
        assert.ok(ids.length > 0);
        assert.equal(engine.tokenizer.decode(ids), text);
      }
    });

    it("tokenizer parses special tokens only when asked", () => {
      const eos = engine.tokenizer.eosText;
      assert.ok(eos, "model has an EOS text");
      const special = engine.tokenizer.encode(eos, { specials: true });
      assert.equal(special.length, 1);
      assert.ok(engine.tokenizer.isEndOfGeneration(special[0]));
      const plain = engine.tokenizer.encode(eos, { specials: false });
      assert.ok(plain.length > 1, "without specials the text is split into ordinary tokens");
    });

    it("a new state is empty and has the engine's capacity", async () => {
      await withState(async (state) => {
        assert.equal(state.length, 0);
        assert.equal(state.capacity, engine.info.capacity);
      });
    });

    it("evaluate appends and samples deterministically when greedy", async () => {
      const a = await withState(async (state) => {
        assert.equal(await state.evaluate(prompt.slice(0, 3)), undefined);
        assert.equal(state.length, 3);
        const next = await state.evaluate(prompt.slice(3), GREEDY);
        assert.equal(state.length, prompt.length);
        return greedyContinuation(state, next!, steps);
      });
      const b = await withState(async (state) => greedyContinuation(state, (await state.evaluate(prompt, GREEDY))!, steps));
      assert.deepEqual(a, b);
    });

    it("truncate is an exact tail erase", async () => {
      await withState(async (state) => {
        const first = (await state.evaluate(prompt, GREEDY))!;
        const before = await greedyContinuation(state, first, Math.min(6, steps));
        await state.truncate(prompt.length);
        assert.equal(state.length, prompt.length);
        await state.truncate(prompt.length - 2);
        const again = (await state.evaluate(prompt.slice(-2), GREEDY))!;
        assert.deepEqual(await greedyContinuation(state, again, Math.min(6, steps)), before);
      });
    });

    it("reset gives a fresh state", async () => {
      await withState(async (state) => {
        const first = (await state.evaluate(prompt, GREEDY))!;
        await state.evaluate([first, first, first]);
        await state.reset();
        assert.equal(state.length, 0);
        assert.equal(await state.evaluate(prompt, GREEDY), first);
      });
    });

    it("refuses to write past capacity before touching the state", async () => {
      await withState(async (state) => {
        await state.evaluate(prompt);
        const tooMany = new Array<number>(state.capacity - state.length + 1).fill(prompt[0]);
        await assert.rejects(state.evaluate(tooMany), CapacityError);
        assert.equal(state.length, prompt.length);
        const first = await state.evaluate([prompt[0]], GREEDY);
        assert.equal(typeof first, "number");
      });
    });

    it("refuses overlapping calls on one state", async () => {
      await withState(async (state) => {
        const first = state.evaluate(prompt, GREEDY);
        await assert.rejects(state.evaluate([prompt[0]]), ConcurrentAccessError);
        await first;
        assert.equal(state.length, prompt.length);
      });
    });

    it("states of one engine are independent", async () => {
      const a = await engine.createState();
      const b = await engine.createState();
      try {
        const fromA = await a.evaluate(prompt, GREEDY);
        await b.evaluate(engine.tokenizer.encode("Something else entirely", { specials: false }));
        assert.equal(a.length, prompt.length);
        await a.truncate(prompt.length - 1);
        assert.equal(await a.evaluate(prompt.slice(-1), GREEDY), fromA);
      } finally {
        await a.dispose();
        await b.dispose();
      }
    });

    it("probeCache: the engine's own count follows evaluate, truncate and reset", async (t) => {
      await withState(async (state) => {
        if (!state.probeCache) return t.skip(`SKIPPED: ${name} has no cache probe`);
        // A server counts what it was sent: between replies (a prefill only recorded, a truncate
        // it sees with the next request) it may not know; right after a sampled evaluate it must.
        const serverSide = engine.info.backend === "remote";
        const expectHeld = async (held: number, what: string, mustAnswer = !serverSide) => {
          const probe = await state.probeCache!();
          if (probe === undefined && !mustAnswer) return;
          assert.ok(probe, `${what}: the engine answers`);
          assert.equal(probe.held, held, `${what}: the engine's count (${probe.source})`);
          if (probe.firstPosition !== undefined) assert.equal(probe.firstPosition, held > 0 ? 0 : -1, `${what}: the first position`);
        };
        await expectHeld(0, "a new state");
        await state.evaluate(prompt.slice(0, 3));
        await expectHeld(3, "after a prefill");
        const first = (await state.evaluate(prompt.slice(3), GREEDY))!;
        await expectHeld(prompt.length, "after a sampled evaluate", true);
        await state.evaluate([first], GREEDY);
        await expectHeld(prompt.length + 1, "after one more token", true);
        await state.truncate(prompt.length - 2);
        await expectHeld(prompt.length - 2, "after truncate");
        await state.reset();
        await expectHeld(0, "after reset");
      });
    });

    it("dispose is idempotent and later use is refused", async () => {
      const state = await engine.createState();
      await state.dispose();
      await state.dispose();
      await assert.rejects(state.evaluate(prompt), DisposedError);
    });
  });
}
