// A recorded request log (shell/lm/request-recorder.ts writes it) read back: every request line
// in the order it was written, joined with its outcome line. A log that is missing, empty, of
// another format or damaged is refused with the file, the line and what is wrong.

import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  parseRequestLogLine,
  REQUEST_LOG_FILE,
  RequestRecordError,
  type OutcomeRecord,
  type RequestRecord,
} from "../../extension/core/request-pool/request-record";

export interface LoggedRequest extends RequestRecord {
  /** Undefined when the log ends before the request did (still in flight, or the host died). */
  readonly outcome?: OutcomeRecord;
}

export interface RequestLog {
  readonly file: string;
  readonly requests: readonly LoggedRequest[];
}

export class RequestLogError extends Error {}

/** `path` is the recording folder (STATEFUL_CHAT_RECORD_REQUESTS) or the log file itself. */
export function readRequestLog(path: string): RequestLog {
  const file = logFileOf(path);
  let content: string;
  try {
    content = readFileSync(file, "utf8");
  } catch (error) {
    throw new RequestLogError(`Cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return parseRequestLog(file, content);
}

export function parseRequestLog(file: string, content: string): RequestLog {
  const requests: RequestRecord[] = [];
  const ids = new Set<string>();
  const outcomes = new Map<string, OutcomeRecord>();
  const lines = content.split("\n");
  lines.forEach((line, index) => {
    if (line.trim() === "") return;
    const where = `${file} line ${index + 1}`;
    let record;
    try {
      record = parseRequestLogLine(line);
    } catch (error) {
      if (error instanceof RequestRecordError) throw new RequestLogError(`${where}: ${error.message}`);
      throw error;
    }
    if (record.kind === "request") {
      if (ids.has(record.id)) throw new RequestLogError(`${where}: a second request with id ${record.id}`);
      ids.add(record.id);
      requests.push(record);
    } else {
      if (!ids.has(record.id)) throw new RequestLogError(`${where}: an outcome for request ${record.id}, which no earlier line records`);
      if (outcomes.has(record.id)) throw new RequestLogError(`${where}: a second outcome for request ${record.id}`);
      outcomes.set(record.id, record);
    }
  });
  if (requests.length === 0) throw new RequestLogError(`${file} records no requests`);
  return { file, requests: requests.map((r) => ({ ...r, ...(outcomes.has(r.id) ? { outcome: outcomes.get(r.id) } : {}) })) };
}

function logFileOf(path: string): string {
  let isFolder: boolean;
  try {
    isFolder = statSync(path).isDirectory();
  } catch {
    throw new RequestLogError(
      `No request log at ${path}: record one by starting VS Code with STATEFUL_CHAT_RECORD_REQUESTS=<folder> (README, Benchmarks), then pass that folder or its ${REQUEST_LOG_FILE}`,
    );
  }
  return isFolder ? join(path, REQUEST_LOG_FILE) : path;
}
