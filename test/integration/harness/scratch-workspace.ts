// A small folder for the workbench to open, so tests never touch the repo's own files.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export function makeWorkspace(root: string): string {
  const folder = join(root, "workspace");
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, "hello.ts"), 'export function hello(name: string): string {\n  return `Hello, ${name}!`;\n}\n');
  return folder;
}
