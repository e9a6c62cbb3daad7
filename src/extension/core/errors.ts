// Typed errors of the core. `code` is stable: the CLI prints it in JSON error events and
// the extension maps it to a banner with an action.

export type ErrorCode =
  | "model_not_found"
  | "model_invalid"
  | "model_load_failed"
  | "backend_unavailable"
  | "capacity_exceeded"
  | "message_too_large"
  | "empty_message"
  | "template_not_append_only"
  | "concurrent_access"
  | "cancelled"
  | "disposed"
  | "engine_failed"
  | "engine_crashed"
  | "server_unreachable"
  | "server_rejected"
  | "tokenizer_mismatch"
  | "device_memory_exceeded";

export class StatefulChatError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

export class ModelNotFoundError extends StatefulChatError {
  constructor(readonly modelPath: string) {
    super("model_not_found", `Model file not found: ${modelPath}`);
  }
}

export class ModelInvalidError extends StatefulChatError {
  constructor(modelPath: string, reason: string, options?: { cause?: unknown }) {
    super("model_invalid", `Not a usable model file: ${modelPath} (${reason})`, options);
  }
}

export class BackendUnavailableError extends StatefulChatError {
  constructor(message: string) {
    super("backend_unavailable", message);
  }
}

/** Refused before the engine is called: the write would pass max_seq_len. */
export class CapacityError extends StatefulChatError {
  constructor(
    readonly position: number,
    readonly requested: number,
    readonly capacity: number,
  ) {
    super(
      "capacity_exceeded",
      `Refusing to write ${requested} tokens at position ${position}: capacity is ${capacity}`,
    );
  }
}

export class MessageTooLargeError extends StatefulChatError {
  constructor(
    readonly tokens: number,
    readonly limit: number,
  ) {
    super(
      "message_too_large",
      `The message is ${tokens} tokens; at most ${limit} fit in this model's context with room for a reply`,
    );
  }
}

export class EmptyMessageError extends StatefulChatError {
  constructor() {
    super("empty_message", "The message is empty");
  }
}

/**
 * The model's chat template cannot be followed at all (it fails to parse or to render this
 * conversation). Templates that merely re-render earlier turns differently are followed by
 * rewinding the cache, never reported.
 */
export class TemplateNotAppendOnlyError extends StatefulChatError {
  constructor(detail: string) {
    super(
      "template_not_append_only",
      `The model's chat template cannot render this conversation (${detail}). Pick another model (Select Model…), or fix the template in the model file.`,
    );
  }
}

/**
 * The template ran past the template sandbox's limits (time, or the size of what it builds):
 * a loop without end, or a hostile model file. Same code as any template that cannot render;
 * its own class so a load can refuse the model instead of failing every turn.
 */
export class TemplateStoppedError extends TemplateNotAppendOnlyError {}

export class ConcurrentAccessError extends StatefulChatError {
  constructor() {
    super("concurrent_access", "Another operation is already using this session state");
  }
}

export class CancelledError extends StatefulChatError {
  constructor() {
    super("cancelled", "Cancelled");
  }
}

export class DisposedError extends StatefulChatError {
  constructor(what: string) {
    super("disposed", `${what} was disposed`);
  }
}

export class EngineFailedError extends StatefulChatError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("engine_failed", message, options);
  }
}

/**
 * The engine process died (a native fault, a kill) during the call. The conversation is
 * intact in the host; the next turn re-prefills it into a restarted process. `restarting`
 * is false once the crash-loop guard gave up.
 */
export class EngineCrashedError extends StatefulChatError {
  constructor(
    message: string,
    readonly restarting: boolean,
  ) {
    super("engine_crashed", message);
  }
}

/**
 * The inference server of the remote backend could not be reached, or the connection broke
 * (a network fault, a server restart, a dropped stream, a busy server that stayed busy).
 * The conversation is intact on this side; Retry sends the message again, and the next turn
 * re-sends the whole ledger (the server's cache count shows what it still had).
 */
export class ServerUnreachableError extends StatefulChatError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("server_unreachable", message, options);
  }
}

/** The inference server answered with an error that retrying does not fix (authentication, a bad request, a redirect to another origin). */
export class ServerRejectedError extends StatefulChatError {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super("server_rejected", message);
  }
}

/**
 * Refused before allocating: one more KV cache (a chat at its context size) does not fit in
 * the device memory left (a GPU's VRAM). The engine and its open chats stay usable.
 */
export class DeviceMemoryError extends StatefulChatError {
  constructor(message: string) {
    super("device_memory_exceeded", message);
  }
}

/** The server's tokenizer gives other tokens than the local one for the same text: token ids sent to it would mean other text. */
export class TokenizerMismatchError extends StatefulChatError {
  constructor(message: string) {
    super("tokenizer_mismatch", message);
  }
}

export function toStatefulChatError(error: unknown): StatefulChatError {
  if (error instanceof StatefulChatError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new EngineFailedError(message, { cause: error });
}
