// What a turn on an engine whose cache lives on a server (backends/remote/) is doing while it
// has no tokens yet, for the shell and the CLI to show: waiting to retry a busy server (HTTP
// 429/503), queued on the server (sent, no slot yet), running (the server started on it). An
// engine that waits on a server offers it through Engine.withServerStatus (engine.ts).

export type ServerStatus =
  | {
      readonly state: "retrying";
      /** e.g. "HTTP 503: Loading model". */
      readonly reason: string;
      /** 1 for the first retry. */
      readonly attempt: number;
      readonly retryInMs: number;
    }
  /** Sent; the server has not started on it yet (llama-server: every slot busy, the request waits in its queue). */
  | { readonly state: "queued" }
  /** The server started on the request after it was retrying or queued. */
  | { readonly state: "running" };

export type ServerStatusListener = (status: ServerStatus) => void;

/** One line for a status bar or the CLI's stderr. */
export function describeServerStatus(status: ServerStatus): string {
  switch (status.state) {
    case "retrying":
      return `server busy (${status.reason}): retry ${status.attempt} in ${(status.retryInMs / 1000).toFixed(1)} s`;
    case "queued":
      return "queued on the server: every slot is busy";
    case "running":
      return "the server started on the reply";
  }
}
