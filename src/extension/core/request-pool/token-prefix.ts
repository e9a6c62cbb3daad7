// How much of a request a cached session already holds.

/** Length of the longest common prefix of two token lists. */
export function commonTokenPrefix(a: readonly number[], b: readonly number[]): number {
  const end = Math.min(a.length, b.length);
  let index = 0;
  while (index < end && a[index] === b[index]) index++;
  return index;
}
