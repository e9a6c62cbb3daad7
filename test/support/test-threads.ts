// How many llama.cpp threads a real-model test gives its engine: 2 (both cores of the machine
// the suite is sized for) unless STATEFUL_CHAT_TEST_THREADS says otherwise, e.g. 1 to run the
// suite beside other work (two engines of two threads on two cores spin against each other in
// ggml's barrier). What a test checks does not depend on it.

import { availableParallelism } from "node:os";

export function testThreads(): number {
  const raw = process.env.STATEFUL_CHAT_TEST_THREADS;
  if (raw === undefined || raw === "") return 2;
  const threads = Number(raw);
  if (!Number.isInteger(threads) || threads < 1 || threads > availableParallelism()) {
    throw new Error(`STATEFUL_CHAT_TEST_THREADS must be a whole number from 1 to ${availableParallelism()}, not ${JSON.stringify(raw)}`);
  }
  return threads;
}
