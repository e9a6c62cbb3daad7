// highlight.js core plus the languages a coding chat meets most; the full build would
// add ~900 KB to the bundle for languages nobody asks a 135M model about.
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";

const languages = { bash, c, cpp, css, diff, go, java, javascript, json, python, rust, sql, typescript, xml };
for (const [name, definition] of Object.entries(languages)) hljs.registerLanguage(name, definition);
// Fence names models commonly use that the definitions above do not alias themselves.
hljs.registerAliases(["sh", "shell", "zsh", "console"], { languageName: "bash" });
hljs.registerAliases(["html", "svg", "vue"], { languageName: "xml" });
hljs.registerAliases(["patch"], { languageName: "diff" });

/**
 * Highlighted HTML for code in a named language, or undefined when the language is
 * unknown (the caller then escapes it plainly: auto-detection is too slow to run on
 * every streamed frame).
 */
export function highlightCode(code: string, language: string): string | undefined {
  if (!language || !hljs.getLanguage(language)) return undefined;
  try {
    return hljs.highlight(code, { language, ignoreIllegals: true }).value;
  } catch {
    return undefined;
  }
}
