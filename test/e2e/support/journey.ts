// An end-to-end suite is one journey: its steps run in order, and after a failed step the
// rest would only time out, so they are skipped. A failed step leaves a screenshot and the
// workbench's diagnostics.

import { it } from "node:test";
import { withDiagnostics, type E2ESession } from "./session";

export function journey(
  session: () => E2ESession,
  shot: (name: string) => Promise<void>,
  timeoutMs: number,
): (name: string, body: () => Promise<void>) => void {
  let failedStep: string | undefined;
  return (name, body) => {
    it(name, { timeout: timeoutMs }, async (t) => {
      if (failedStep) return t.skip(`after the failed step "${failedStep}"`);
      try {
        await body();
      } catch (error) {
        failedStep = name;
        await shot(`failed-${name.replace(/\W+/g, "-")}`).catch(() => undefined);
        await withDiagnostics(session(), error);
      }
    });
  };
}
