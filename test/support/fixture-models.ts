// Fixture models made at test time: copies of the default GGUF with only the chat template
// replaced, written by the `gguf` package from PyPI (pinned, in a private venv under the
// gitignored .cache/). Weights are never committed; a fixture is rebuilt when its template
// changes (the file name carries the template's hash).

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { defaultModelFile, repoRoot } from "./default-model";
import { FIXTURE_TEMPLATES, HOSTILE_TEMPLATES, type FixtureName } from "./fixture-templates";

const GGUF_PACKAGE = "gguf==0.19.0";
const venv = join(repoRoot, ".cache", "gguf-venv");
const folder = join(repoRoot, ".cache", "fixtures");

function ggufNewMetadata(): string {
  const tool = join(venv, "bin", "gguf-new-metadata");
  if (!existsSync(tool)) {
    execFileSync("python3", ["-m", "venv", venv], { stdio: "inherit" });
    execFileSync(join(venv, "bin", "pip"), ["install", "--quiet", GGUF_PACKAGE], { stdio: "inherit" });
  }
  return tool;
}

/** Path of the default model with `name`'s chat template, written on first use. */
export function fixtureModel(name: FixtureName): string {
  const template = name in HOSTILE_TEMPLATES ? HOSTILE_TEMPLATES[name as keyof typeof HOSTILE_TEMPLATES] : FIXTURE_TEMPLATES[name as keyof typeof FIXTURE_TEMPLATES];
  const hash = createHash("sha256").update(template).digest("hex").slice(0, 12);
  const target = join(folder, `${name}-${hash}.gguf`);
  if (existsSync(target)) return target;
  mkdirSync(folder, { recursive: true });
  const templateFile = join(folder, `${name}-${hash}.jinja`);
  writeFileSync(templateFile, template);
  // Per process: two test files writing the same fixture at once never share a half-written file.
  const partial = `${target}.${process.pid}.partial`;
  execFileSync(ggufNewMetadata(), [defaultModelFile(), partial, "--chat-template-file", templateFile, "--force"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  renameSync(partial, target);
  return target;
}
