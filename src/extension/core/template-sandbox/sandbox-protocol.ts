// Messages between the host and the template sandbox worker. Both sides are ours and the
// channel is in-process, but a reply is still checked before it is believed.

import type { SandboxLimits } from "./sandbox-limits";

export interface SandboxWorkerData {
  /** [0]: id of the last request answered; [1]: 1 once the worker listens. */
  readonly signal: SharedArrayBuffer;
  readonly limits: SandboxLimits;
}

export type SandboxRequest =
  | { readonly id: number; readonly op: "parse"; readonly source: string }
  | { readonly id: number; readonly op: "render"; readonly source: string; readonly context: Readonly<Record<string, unknown>> };

export type SandboxReply =
  | { readonly id: number; readonly ok: true; readonly text: string }
  | { readonly id: number; readonly ok: false; readonly error: string; readonly limit: boolean };

export const SIGNAL_ANSWERED = 0;
export const SIGNAL_READY = 1;

export function isSandboxReply(value: unknown): value is SandboxReply {
  if (typeof value !== "object" || value === null) return false;
  const reply = value as Record<string, unknown>;
  if (typeof reply.id !== "number") return false;
  if (reply.ok === true) return typeof reply.text === "string";
  return reply.ok === false && typeof reply.error === "string" && typeof reply.limit === "boolean";
}
