// VS Code's settings files are JSON with comments and trailing commas. Enough of a reader for
// them to find which keys a workspace sets: comments and trailing commas are blanked out
// (outside strings), then JSON.parse does the rest. Pure; a file that is not valid JSONC
// throws SyntaxError, as VS Code would report it too.

/** The value of a JSONC text. */
export function parseJsonc(text: string): unknown {
  let out = "";
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === '"') {
      const start = i++;
      while (i < n && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
      out += text.slice(start, ++i);
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < n && text[i] !== "\n") i++;
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? n : end + 2;
      out += " ";
    } else {
      out += c;
      i++;
    }
  }
  // Trailing commas in a second pass that, like this one, copies strings untouched.
  return JSON.parse(dropTrailingCommas(out.charCodeAt(0) === 0xfeff ? out.slice(1) : out));
}

function dropTrailingCommas(json: string): string {
  let out = "";
  for (let i = 0; i < json.length; i++) {
    const c = json[i]!;
    if (c === '"') {
      const start = i++;
      while (i < json.length && json[i] !== '"') i += json[i] === "\\" ? 2 : 1;
      out += json.slice(start, i + 1);
      continue;
    }
    if (c === ",") {
      let j = i + 1;
      while (j < json.length && /\s/.test(json[j]!)) j++;
      if (json[j] === "}" || json[j] === "]") continue;
    }
    out += c;
  }
  return out;
}
