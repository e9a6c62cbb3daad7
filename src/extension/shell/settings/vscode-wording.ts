// Messages from the core, the backends and the model fetcher are shared with the CLI and may
// tell the user to pass a flag. In VS Code the same advice is a setting or a command: this
// rewrites the CLI phrasings the shared code uses into VS Code terms. Pure: unit-tested.

/** [CLI phrasing, VS Code phrasing]; each pattern matches the exact wording of one shared message. */
const REWRITES: ReadonlyArray<readonly [RegExp, string]> = [
  // models/default-model.ts: the default model could not be fetched.
  [/,? or pass --model PATH\.?/g, ", or choose another model: Select Model… (a file on disk) or Download Model…."],
  // load-engine.ts / remote-engine.ts: "(statefulChat.server.url, --server URL)".
  [/\((statefulChat\.[\w.]+), --[a-z-]+(?: [A-Z]+)?\)/g, "(setting $1)"],
  // Any other "--flag VALUE" left after a setting name: drop the flag, keep the setting.
  [/(statefulChat\.[\w.]+) or --[a-z-]+(?: [A-Z]+)?/g, "$1"],
];

export function inVsCodeTerms(message: string): string {
  let out = message;
  for (const [pattern, replacement] of REWRITES) out = out.replace(pattern, replacement);
  return out;
}
