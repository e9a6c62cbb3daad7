// mulberry32: a tiny deterministic generator, the same numbers on every machine and run. The
// bench's editing chats are generated from it, and the randomized tests replay with it
// (test/support/random.ts re-exports it).

export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
