// The docs keep their shape: README.md is a user's guide of at most 400 lines (measurements
// live in docs/benchmarks.md), and DESIGN.md tells the life of a turn before the words, the
// invariants and the layers.

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { it } from "node:test";

const ROOT = resolve(__dirname, "..", "..");
const read = (name: string): string => readFileSync(join(ROOT, name), "utf8");

/** The `## ` headings of a markdown text, in order (fenced code skipped). */
export function headings(markdown: string): string[] {
  let fenced = false;
  return markdown.split("\n").flatMap((line) => {
    if (line.startsWith("```")) fenced = !fenced;
    return !fenced && line.startsWith("## ") ? [line.slice(3).trim()] : [];
  });
}

it("README.md is a user's guide of at most 400 lines, with troubleshooting, and points to the measurements", () => {
  const readme = read("README.md");
  const lines = readme.split("\n").length - (readme.endsWith("\n") ? 1 : 0);
  assert.ok(lines <= 400, `README.md has ${lines} lines`);
  const sections = headings(readme);
  for (const section of ["Install", "Settings", "Troubleshooting"]) assert.ok(sections.some((h) => h.startsWith(section)), `README has no "${section}" section: ${sections.join(", ")}`);
  assert.ok(readme.includes("docs/benchmarks.md"), "README links the measurements");
  assert.ok(existsSync(join(ROOT, "docs", "benchmarks.md")), "docs/benchmarks.md exists");
});

it("DESIGN.md opens with the life of a turn, then words, invariants and layers", () => {
  const sections = headings(read("DESIGN.md"));
  const at = (name: string): number => sections.findIndex((h) => h.startsWith(name));
  for (const name of ["The life of a turn", "Words", "Invariants", "Layers"]) assert.ok(at(name) >= 0, `DESIGN.md has no "${name}" section`);
  assert.ok(at("The life of a turn") < at("Words") && at("Words") < at("Invariants") && at("Invariants") < at("Layers"), sections.join(" · "));
});

it("headings() skips fenced code", () => {
  assert.deepEqual(headings("## A\n```\n## not a heading\n```\n## B\n"), ["A", "B"]);
});
