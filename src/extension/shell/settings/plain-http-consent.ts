// An API key sent as a Bearer token over plain http:// to another machine can be read by
// anyone on the path. Loopback and https need no question; any other http origin is asked
// about once, and the answer (send / don't send) is remembered per origin.
// No `vscode` import: the question and the memory are handed in, so this is unit-tested.

/** True when a key sent to `origin` would cross the network unencrypted. */
export function isPlainHttpToAnotherHost(origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== "http:") return false;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  return !(host === "localhost" || host.endsWith(".localhost") || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host));
}

export type PlainHttpAnswer = "send" | "dontSend";

export interface ConsentMemory {
  get(origin: string): PlainHttpAnswer | undefined;
  set(origin: string, answer: PlainHttpAnswer): Promise<void>;
}

/** Asks the user; undefined when the question was dismissed (asked again next time). */
export type AskPlainHttp = (origin: string) => Promise<PlainHttpAnswer | undefined>;

export class PlainHttpKeyConsent {
  /** One question per origin at a time, however many requests are waiting for it. */
  private readonly pending = new Map<string, Promise<PlainHttpAnswer | undefined>>();

  constructor(
    private readonly memory: ConsentMemory,
    private readonly ask: AskPlainHttp,
  ) {}

  /** Whether the key may go to `origin`. */
  async maySend(origin: string): Promise<boolean> {
    if (!isPlainHttpToAnotherHost(origin)) return true;
    const remembered = this.memory.get(origin);
    if (remembered) return remembered === "send";
    let question = this.pending.get(origin);
    if (!question) {
      question = this.ask(origin).then(async (answer) => {
        if (answer) await this.memory.set(origin, answer);
        return answer;
      });
      this.pending.set(origin, question);
      void question.finally(() => this.pending.delete(origin)).catch(() => undefined);
    }
    return (await question) === "send";
  }
}
