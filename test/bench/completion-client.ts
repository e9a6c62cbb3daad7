// llama-server's `/completion` with token ids, streamed: when its first token came, what it
// reused from its cache and prefilled (its `timings`), and the reply's text. For benches that
// time the peer's first token (agent-replay.ts).

export interface CompletionFirstToken {
  readonly firstTokenMs: number;
  readonly cached: number;
  readonly prefilled: number;
  readonly reply: string;
}

interface StreamEvent {
  readonly content?: string;
  readonly tokens?: readonly number[];
  readonly stop?: boolean;
  readonly timings?: { readonly cache_n?: number; readonly prompt_n?: number };
}

/** Greedy, `cache_prompt` on (the server's exact prefix reuse); first token timed from the request. */
export async function completionFirstToken(baseUrl: string, prompt: readonly number[], maxTokens: number): Promise<CompletionFirstToken> {
  const started = performance.now();
  const response = await fetch(`${baseUrl}/completion`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ prompt, n_predict: maxTokens, temperature: 0, cache_prompt: true, stream: true }),
  });
  if (!response.ok || !response.body) throw new Error(`llama-server: HTTP ${response.status} ${(await response.text()).slice(0, 300)}`);
  let first: number | undefined;
  let reply = "";
  let timings: StreamEvent["timings"] = {};
  let buffer = "";
  const decoder = new TextDecoder();
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (!line.startsWith("data:")) continue;
      const event = JSON.parse(line.slice(5)) as StreamEvent;
      if (!event.stop && (event.content || (event.tokens?.length ?? 0) > 0)) first ??= performance.now() - started;
      if (event.content) reply += event.content;
      if (event.timings) timings = event.timings;
    }
  }
  return { firstTokenMs: Math.round(first ?? performance.now() - started), cached: timings.cache_n ?? 0, prefilled: timings.prompt_n ?? 0, reply };
}
