// Token ids mean text only under one vocabulary: before the first turn, the server's
// tokenization of a probe text (code, non-ASCII, the model's own special tokens) must equal
// the local tokenizer's, or the connection is refused (TokenizerMismatchError).

import type { Tokenizer } from "../../core/engine";
import { TokenizerMismatchError } from "../../core/errors";
import type { ServerDialect, ServerInfo } from "./dialect";

const PROBE_TEXT = [
  "def fibonacci(n: int) -> int:\n    return n if n < 2 else fibonacci(n - 1) + fibonacci(n - 2)\n",
  "const answer = await fetch(`/api/${id}`).then((r) => r.json()); // 42\n\t\t}\n",
  "Grüße, naïve café — 東京 🚀 «quotes» and\r\n    indented text. Ελληνικά, русский, العربية.",
].join("");

/** The probe: plain text with the model's special tokens (BOS, EOS) around and inside it. */
export function probeText(tokenizer: Tokenizer): string {
  const specials = [tokenizer.bos?.text, tokenizer.eosText].filter((t): t is string => !!t);
  return `${specials.join("")}${PROBE_TEXT}${specials.reverse().join("\n")}`;
}

function firstDifference(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}

export interface TokenizerCheck {
  /** Which checks ran: `specials` (special tokens parsed), `text` (as plain text). */
  readonly checked: readonly string[];
}

export async function checkTokenizer(dialect: ServerDialect, info: ServerInfo, tokenizer: Tokenizer, modelPath: string, signal?: AbortSignal): Promise<TokenizerCheck> {
  const probe = probeText(tokenizer);
  const checked: string[] = [];
  for (const specials of [true, false]) {
    const remote = await dialect.tokenize(probe, specials, signal);
    if (remote === undefined) continue;
    const local = tokenizer.encode(probe, { specials });
    const at = firstDifference(local, remote);
    if (at >= 0) {
      throw new TokenizerMismatchError(
        `The server's tokenizer (${info.model}) differs from the local one (${modelPath}): the probe text gives other tokens from token ${at} on ` +
          `(server ${JSON.stringify(remote.slice(at, at + 4))}, local ${JSON.stringify(local.slice(at, at + 4))}${specials ? ", special tokens parsed" : ""}). ` +
          `Token ids sent to it would mean other text. Set statefulChat.modelPath to the GGUF (or tokenizer folder) of the model the server runs.`,
      );
    }
    checked.push(specials ? "specials" : "text");
  }
  if (checked.length === 0) {
    throw new TokenizerMismatchError(
      `The server (${info.kind} at ${info.model}) offers no way to check its tokenizer (no /tokenize endpoint), so token ids cannot be trusted to mean the same text. Use a server version with /tokenize.`,
    );
  }
  return { checked };
}
