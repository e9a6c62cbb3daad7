// `stateful-chat analyze-requests DIR`: where the requests recorded with
// STATEFUL_CHAT_RECORD_REQUESTS=DIR differ (src/tools/request-analysis/), as a table or JSON.

import { parseArgs } from "node:util";
import { positiveInt, UsageError } from "../../extension/cli/chat-args";
import { analysisReport } from "../request-analysis/analysis-report";
import { analyzeRequests, type AnalysisOptions } from "../request-analysis/request-analysis";
import { readRequestLog, RequestLogError } from "../request-analysis/request-log";

export const ANALYZE_REQUESTS_USAGE = `Usage: stateful-chat analyze-requests DIR|FILE [--json] [--window N] [--min-run N] [--min-stable-after N] [--max-edits N]
  DIR is the folder STATEFUL_CHAT_RECORD_REQUESTS named (or its requests.jsonl). For each pair of
  consecutive requests, and each request against the first request of the previous conversation:
  tokens, common prefix, the first difference as a share, the text around it, and the identical
  runs after it ("volatile content before stable content").
  --json              the analysis as JSON
  --window N          tokens of text shown on each side of a first difference (default 12)
  --min-run N         shortest identical run counted as stable after a difference (default 32)
  --min-stable-after N  identical tokens after the first difference that count as a finding (default 256)
  --max-edits N       diff effort per pair before only the common suffix is used (default 4096)`;

export interface AnalyzeRequestsArgs {
  readonly path: string;
  readonly json: boolean;
  readonly options: AnalysisOptions;
}

export function parseAnalyzeRequestsArgs(argv: readonly string[]): AnalyzeRequestsArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: true,
      options: {
        json: { type: "boolean" },
        window: { type: "string" },
        "min-run": { type: "string" },
        "min-stable-after": { type: "string" },
        "max-edits": { type: "string" },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? "analyze-requests needs the recording folder" : `analyze-requests takes one folder, got ${positionals.length}`);
  return {
    path: positionals[0]!,
    json: values.json ?? false,
    options: {
      windowTokens: positiveInt("window", values.window),
      minStableRun: positiveInt("min-run", values["min-run"]),
      minStableAfter: positiveInt("min-stable-after", values["min-stable-after"]),
      maxEdits: positiveInt("max-edits", values["max-edits"]),
    },
  };
}

/** Exit code: 0, 1 for a log that cannot be read, 2 for bad arguments. */
export function runAnalyzeRequests(argv: readonly string[], out: (text: string) => void, err: (text: string) => void): number {
  if (argv.includes("--help")) {
    out(`${ANALYZE_REQUESTS_USAGE}\n`);
    return 0;
  }
  let args: AnalyzeRequestsArgs;
  try {
    args = parseAnalyzeRequestsArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    err(`${error.message}\n${ANALYZE_REQUESTS_USAGE}\n`);
    return 2;
  }
  try {
    const analysis = analyzeRequests(readRequestLog(args.path), args.options);
    out(`${args.json ? JSON.stringify(analysis, null, 2) : analysisReport(analysis)}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof RequestLogError)) throw error;
    err(`${error.message}\n`);
    return 1;
  }
}
