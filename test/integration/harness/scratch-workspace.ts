// A small folder for the workbench to open, so tests never touch the repo's own files.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export function makeWorkspace(root: string): string {
  const folder = join(root, "workspace");
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, "hello.ts"), 'export function hello(name: string): string {\n  return `Hello, ${name}!`;\n}\n');
  // Long enough that an edit is cheaper to send as a diff, short enough to fit the per-file budget.
  const shapes = Array.from({ length: 16 }, (_, i) => `export const area${i} = (w: number, h: number): number => w * h * ${i + 1};`);
  writeFileSync(join(folder, "shapes.ts"), `${shapes.join("\n")}\n`);
  return folder;
}
