// `npm run soak [-- --operations N --seed S]`: the long soak (10,000 operations by default),
// outside CI; prints its figures as JSON and fails when any check failed. The engine's own
// KV count is compared with the ledger after every operation, the logits every 50th.

import { runSoak } from "./soak";

function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  const value = at >= 0 ? Number(process.argv[at + 1]) : fallback;
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} needs a positive integer`);
  return value;
}

void (async () => {
  const figures = await runSoak({ operations: flag("operations", 10_000), seed: flag("seed", 7), checkpointEvery: 50, log: (line) => console.error(line) });
  console.log(JSON.stringify(figures, null, 2));
  const failed = figures.corruptions > 0 || figures.lostTranscripts > 0 || figures.unexpectedErrors.length > 0 || figures.overlaps > 0;
  process.exit(failed ? 1 : 0);
})();
