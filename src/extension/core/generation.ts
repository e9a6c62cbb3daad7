// What a reply's generation is asked for and why it stopped: Session.generate (session.ts)
// and the backend's own reply loop (backend-reply.ts) share them, and the stats report them.

import type { SamplingOptions } from "./engine";

export interface GenerateOptions {
  readonly maxTokens: number;
  readonly sampling: SamplingOptions;
}

export type StopReason = "eog" | "max_tokens" | "cancelled" | "capacity";
