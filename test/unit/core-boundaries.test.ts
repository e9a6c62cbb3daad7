// The core must stay free of `vscode` and of any backend (DESIGN.md, layers): every file under
// core/, its rooms (speculation/, request-pool/, tool-calls/, …) included, imports only other
// core files, Node built-ins and the two libraries the core is allowed.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { it } from "node:test";

const coreDir = join(__dirname, "..", "..", "src", "extension", "core");
const ALLOWED_PACKAGES = ["@huggingface/jinja", "diff"];

it("core files import neither vscode, node-llama-cpp, nor a backend or the shell", () => {
  const files = readdirSync(coreDir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
  assert.ok(files.length >= 30, `core files found (${files.length})`);
  assert.ok(files.some((f) => f.includes("/")), "files in core's rooms are checked too");
  for (const file of files) {
    const source = readFileSync(join(coreDir, file), "utf8");
    const specifiers = [...source.matchAll(/(?:import|export)[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|require\(\s*["']([^"']+)["']\s*\)/g)].map(
      (m) => m[1] ?? m[2] ?? m[3],
    );
    for (const specifier of specifiers) {
      if (specifier.startsWith(".")) {
        const target = relative(coreDir, resolve(dirname(join(coreDir, file)), specifier));
        assert.ok(!target.startsWith(".."), `${file} imports ${specifier}, outside the core`);
      } else {
        assert.ok(specifier.startsWith("node:") || ALLOWED_PACKAGES.includes(specifier), `${file} imports ${specifier}`);
      }
    }
  }
});
