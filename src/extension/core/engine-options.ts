// What an engine is loaded with, once for every layer: the defaults of its load options and
// the rule that turns a requested context size into the engine's capacity. The backends, the
// CLI and the chat provider's planner (shell/lm/provider-context.ts) read them from here.

/** Tokens per session when nothing asks for more or less (statefulChat.contextSize's default, CLI --ctx's). */
export const DEFAULT_CONTEXT_SIZE = 4096;
/** llama.cpp's contexts are whole multiples of this many tokens. */
export const CONTEXT_STEP = 256;
/** Tokens one llama.cpp batch (a prompt chunk, a verify batch) holds at most: its logits are most of a context's compute buffer. */
export const MAX_BATCH = 512;
/** KV caches (chats open at once) that `auto` GPU layers leave device memory for. */
export const DEFAULT_RESERVED_STATES = 4;

/** The context size asked for: `contextSize`, or the default. */
export function requestedContextSize(contextSize: number | undefined): number {
  return contextSize ?? DEFAULT_CONTEXT_SIZE;
}

/**
 * The capacity of an engine loaded with `contextSize` (the default when undefined): capped at
 * the model's training context when known, rounded up to a whole CONTEXT_STEP (as llama.cpp
 * allocates it). The llama.cpp engine holds this; the chat provider plans with it.
 */
export function engineCapacity(contextSize: number | undefined, trainContext?: number): number {
  const requested = requestedContextSize(contextSize);
  const size = trainContext === undefined ? requested : Math.min(requested, trainContext);
  return Math.ceil(size / CONTEXT_STEP) * CONTEXT_STEP;
}
