// A completion's stream as JSON events, shared by every server dialect: a malformed event or
// an error event from the server, and a connection that breaks mid-reply, become typed
// errors (a cancel stays a cancel); what ends the stream is returned ("done" for `[DONE]`,
// "ended" when the body just stops), so each dialect decides whether its reply was complete.

import { CancelledError, ServerUnreachableError } from "../../core/errors";
import type { ServerConnection } from "./http";
import { serverMessageOf } from "./http";
import { sseEvents } from "./sse";

export type JsonEventStream = AsyncGenerator<Record<string, unknown>, "done" | "ended", void>;

/** `endpoint` names the request in the message for a response without a body. */
export async function* jsonEvents(response: Response, connection: ServerConnection, signal: AbortSignal, endpoint = ""): JsonEventStream {
  if (!response.body) throw new ServerUnreachableError(`${connection.origin}${endpoint ? `/${endpoint}` : ""} sent no stream`);
  try {
    for await (const { data } of sseEvents(response.body)) {
      if (data === "[DONE]") return "done";
      let event: unknown;
      try {
        event = JSON.parse(data);
      } catch {
        throw new ServerUnreachableError(`The inference server sent a malformed event: ${data.slice(0, 200)}`);
      }
      if (!isObject(event)) continue;
      if (event.error !== undefined || event.object === "error") {
        throw new ServerUnreachableError(`The inference server failed during the reply: ${serverMessageOf(JSON.stringify(event))}`);
      }
      yield event;
    }
  } catch (error) {
    if (signal.aborted) throw new CancelledError();
    if (error instanceof ServerUnreachableError) throw error;
    throw new ServerUnreachableError(`The connection to the inference server at ${connection.origin} broke during the reply (${describeFault(error)}): the server stopped or restarted, or the network dropped.`, { cause: error });
  }
  if (signal.aborted) throw new CancelledError();
  return "ended";
}

/** The error for a stream that ended before the reply was complete. */
export function streamEnded(connection: ServerConnection): ServerUnreachableError {
  return new ServerUnreachableError(`The inference server at ${connection.origin} ended the stream before the reply was complete (it stopped or restarted).`);
}

function describeFault(error: unknown): string {
  const cause = (error as { cause?: { code?: string } })?.cause;
  return cause?.code ?? (error instanceof Error ? error.message : String(error));
}

/** A JSON object (or array) whose fields may be read. */
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;
