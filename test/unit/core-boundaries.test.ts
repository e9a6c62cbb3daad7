// The core must stay free of `vscode` and of any backend (DESIGN.md, layers).
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { it } from "node:test";

const coreDir = join(__dirname, "..", "..", "src", "extension", "core");

it("core files import neither vscode, node-llama-cpp, nor a backend or the shell", () => {
  const files = readdirSync(coreDir).filter((f) => f.endsWith(".ts"));
  assert.ok(files.length >= 10, "core files found");
  for (const file of files) {
    const source = readFileSync(join(coreDir, file), "utf8");
    const specifiers = [...source.matchAll(/(?:import|export)[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|require\(\s*["']([^"']+)["']\s*\)/g)].map(
      (m) => m[1] ?? m[2] ?? m[3],
    );
    for (const specifier of specifiers) {
      assert.ok(
        specifier.startsWith("./") || specifier.startsWith("node:") || specifier === "@huggingface/jinja" || specifier === "diff",
        `${file} imports ${specifier}`,
      );
    }
  }
});
