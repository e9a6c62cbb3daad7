// Which file a code block names, and where that is in the workspace: a path in the fence's
// info string (```ts src/limits.ts, ```src/limits.ts, ```ts:src/limits.ts,
// ```ts title="src/limits.ts"), or a path alone on the line just before the block
// (`src/limits.ts`, **src/limits.ts**, // File: src/limits.ts:). Pure (no imports).

/** A relative or absolute file path: no spaces, a file name with an extension (or a known extensionless name). */
const PATH = /^(?:[A-Za-z]:[\\/]|[\\/~]|\.{1,2}[\\/])?(?:[\w@+\-.]+[\\/])*(?:[\w@+-]*[\w@+\-.]*\.[A-Za-z0-9_+-]{1,12}|Makefile|Dockerfile|Rakefile|Gemfile|Procfile|Jenkinsfile|LICENSE|README)$/;

/** Languages are words; a path has a slash or a dot (an extension). */
function looksLikePath(text: string): boolean {
  if (text.length === 0 || text.length > 512 || !PATH.test(text)) return false;
  // "1.5", "v2.0", "e.g." are not files.
  if (/^[\d.]+$/.test(text) || /^v\d/.test(text) || /\.$/.test(text)) return false;
  return true;
}

const KEY_VALUE = /^(?:path|file|filename|name|title)\s*[=:]\s*["']?([^"'\s]+)["']?$/i;

/** The path named in a fence's info string, if any. */
export function pathFromInfo(info: string): string | undefined {
  const words = info.trim().split(/\s+/).filter((w) => w !== "");
  for (const [i, raw] of words.entries()) {
    const word = raw.replace(/^\{|\}$/g, "");
    const keyed = KEY_VALUE.exec(word);
    if (keyed && looksLikePath(keyed[1]!)) return keyed[1];
    // ```ts:src/a.ts (the language, a colon, the path)
    const colon = /^[A-Za-z0-9_+#-]+:(.+)$/.exec(word);
    if (i === 0 && colon && looksLikePath(colon[1]!)) return colon[1];
    const bare = word.replace(/^["'`]|["'`]$/g, "");
    if (looksLikePath(bare) && (i > 0 || /[\\/]/.test(bare) || !isLanguageName(bare))) return bare;
  }
  return undefined;
}

/** The fence's language: its first word, unless that word is the path itself. */
export function languageFromInfo(info: string): string {
  const first = info.trim().split(/\s+/)[0] ?? "";
  const language = first.split(":")[0]!.toLowerCase();
  if (language === "" || (looksLikePath(first) && !isLanguageName(first))) return "";
  return language.replace(/^\{|\}$/g, "");
}

/** Words that are languages even though they contain a dot ("c++" has none, but "vue.js"-like ones are rare): only a few. */
function isLanguageName(word: string): boolean {
  return /^(asp\.net|node\.js|vue\.js|next\.js)$/i.test(word);
}

/** A path alone on a line, with the decoration models put around it. */
export function pathFromLine(line: string): string | undefined {
  let text = line.trim();
  if (text === "" || text.length > 300) return undefined;
  // Markdown heading, list bullet, comment markers.
  text = text.replace(/^(#{1,6}\s+|[-*+]\s+|\/\/\s*|#\s*|<!--\s*|\/\*\s*)/, "").replace(/\s*(-->|\*\/)$/, "");
  // Emphasis and code spans around the whole thing or the path.
  for (let i = 0; i < 3; i++) text = text.replace(/^(\*\*|__|\*|_|`)(.*)\1$/, "$2").trim();
  text = text.replace(/^(?:in\s+)?(?:the\s+)?(?:file|filename|path|updated file|new file)\s*[:-]?\s*/i, "");
  for (let i = 0; i < 3; i++) text = text.replace(/^(\*\*|__|\*|_|`)(.*)\1$/, "$2").trim();
  text = text.replace(/\s*:$/, "");
  for (let i = 0; i < 3; i++) text = text.replace(/^(\*\*|__|\*|_|`)(.*)\1$/, "$2").trim();
  return looksLikePath(text) ? text : undefined;
}

export type NormalizedPath = { readonly ok: true; readonly path: string } | { readonly ok: false; readonly reason: "outside" | "absolute" };

/**
 * A named path relative to a workspace folder, "/"-separated, without "./" or "a/../":
 * refused when it climbs out of the folder ("../x"). Absolute paths are the caller's to
 * place (only it knows the workspace folders).
 */
export function normalizeRelative(raw: string): NormalizedPath {
  const path = raw.replace(/\\/g, "/");
  if (/^([A-Za-z]:)?\//.test(path) || path.startsWith("~")) return { ok: false, reason: "absolute" };
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (parts.length === 0) return { ok: false, reason: "outside" };
      parts.pop();
    } else parts.push(part);
  }
  return parts.length > 0 ? { ok: true, path: parts.join("/") } : { ok: false, reason: "outside" };
}

/** `absolute` relative to one of `roots` ("/"-separated, any OS), or undefined when it is in none. */
export function relativeToRoots(absolute: string, roots: readonly string[]): { root: string; path: string } | undefined {
  const target = absolute.replace(/\\/g, "/");
  for (const root of roots) {
    const base = root.replace(/\\/g, "/").replace(/\/+$/, "");
    const sameCase = /^[A-Za-z]:/.test(base) ? target.toLowerCase().startsWith(`${base.toLowerCase()}/`) : target.startsWith(`${base}/`);
    if (!sameCase) continue;
    const rest = normalizeRelative(target.slice(base.length + 1));
    if (rest.ok) return { root, path: rest.path };
  }
  return undefined;
}

/**
 * Workspace files a named path may mean when it is not there as written: models often drop
 * the leading folders ("limits.ts" for src/limits.ts). Exact match first, else every file
 * whose path ends with the named one at a folder boundary.
 */
export function matchWorkspacePaths(named: string, paths: readonly string[]): string[] {
  if (paths.includes(named)) return [named];
  const suffix = `/${named}`;
  return paths.filter((p) => p.endsWith(suffix));
}
