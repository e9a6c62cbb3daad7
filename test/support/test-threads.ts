// How many llama.cpp threads a real-model test gives its engine. Alone on a 2-core machine a
// test uses both (the default, 2). `npm test` runs the real-model files two at a time, one
// thread each (STATEFUL_CHAT_TEST_THREADS=1): two engines of two threads on two cores would
// spin against each other in ggml's barrier. What a test checks does not depend on it.

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
