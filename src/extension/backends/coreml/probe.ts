// Runs a measuring probe in a child process, so whatever it does to its process (a
// Neural Engine compile that fails can SIGKILL it on the first prediction, coremltools
// #2758) cannot take the caller down: the caller gets a result or a described crash.
import { spawn } from "node:child_process";
import * as path from "node:path";
import type { ComputeUnitsChoice } from "../../core/engine-options";

export interface ProbeRequest {
  readonly modelPath: string;
  readonly computeUnits: ComputeUnitsChoice;
  readonly promptTokens: number;
  readonly decodeTokens: number;
}

export type ProbeResult =
  | { readonly ok: true; readonly loadMs: number; readonly firstTokenMs: number; readonly perTokenMs: number; readonly details: string }
  | { readonly ok: false; readonly error: string };

/** probe-child next to this file: .ts under tsx (tests, bench), .js when built. */
function defaultProbeScript(): string {
  return path.join(__dirname, `probe-child${path.extname(__filename) || ".js"}`);
}

/**
 * Starts `script` with the same Node and loader flags as this process, passes the
 * request as JSON in argv, and reads one JSON result line from its stdout.
 */
export function runProbe(request: ProbeRequest, options: { readonly script?: string; readonly timeoutMs?: number } = {}): Promise<ProbeResult> {
  const script = options.script ?? defaultProbeScript();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...process.execArgv, script, JSON.stringify(request)], {
      stdio: ["ignore", "pipe", "pipe"],
      timeout: options.timeoutMs ?? 10 * 60_000,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.on("error", (error) => resolve({ ok: false, error: `could not start the probe: ${error.message}` }));
    child.on("close", (code, signal) => {
      const line = stdout.trim().split("\n").pop() ?? "";
      try {
        const parsed = JSON.parse(line) as ProbeResult;
        if (typeof parsed === "object" && parsed !== null && "ok" in parsed) return resolve(parsed);
      } catch {
        // fall through: no result line, so describe how the child ended
      }
      const how = signal ? `killed by ${signal}` : `exited with code ${code}`;
      const tail = stderr.trim().split("\n").slice(-3).join(" | ");
      resolve({ ok: false, error: `the probe ${how}${tail ? `: ${tail}` : ""}` });
    });
  });
}
