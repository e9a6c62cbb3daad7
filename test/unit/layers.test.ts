// The layers of README.md's Layout, checked on every relative import under src/: arrows point
// down only (core ← backends ← engine-host ← shell; models and snapshots beside the core; the
// CLI beside the shell), the webview uses only the core's pure code, the host and the webview
// share only the protocol (src/webview/protocol/: messages, guards, the stats line; no DOM),
// and tooling (src/tools/) may import the product but the product never imports tooling.

import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { it } from "node:test";

const SRC = resolve(__dirname, "..", "..", "src");

/** Folder → the folders its files may import (besides their own). */
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  "extension/core": [],
  "extension/models": ["extension/core"],
  "extension/snapshots": ["extension/core"],
  // GPU binaries fetched on first use (the CUDA prebuilts a VSIX leaves out): no vscode; the models' downloader.
  "extension/gpu-binaries": ["extension/core", "extension/models"],
  "extension/backends": ["extension/core", "extension/models", "extension/gpu-binaries"],
  // A chat's pure logic (transcripts, the lease slot, views of its state): no vscode, so the CLI can use it.
  "extension/chats": ["extension/core", "extension/models", "extension/snapshots", "webview/protocol"],
  "extension/engine-host": ["extension/core", "extension/backends", "extension/models"],
  "extension/cli": ["extension/core", "extension/backends", "extension/engine-host", "extension/models", "extension/snapshots", "extension/chats"],
  // The shell reads the settings schema from package.json (one source of ranges and defaults).
  "extension/shell": ["extension/core", "extension/backends", "extension/engine-host", "extension/models", "extension/gpu-binaries", "extension/snapshots", "extension/chats", "webview/protocol", "package.json", "extension/activation"],
  // The thin activation (stand-ins, the lazy load of the features bundle): vscode's types only.
  "extension/activation": [],
  "extension/activate": ["extension/shell", "extension/chats", "extension/core", "extension/activation"],
  webview: ["extension/core", "webview/protocol"],
  "webview/protocol": [],
  tools: ["extension/core", "extension/backends", "extension/engine-host", "extension/models", "extension/gpu-binaries", "extension/snapshots", "extension/chats", "extension/cli", "extension/shell", "webview", "webview/protocol"],
};

/** The layer a path under src/ (or the repo root) belongs to. */
export function layerOf(path: string): string {
  const rel = relative(SRC, path).split("/");
  if (rel[0] === "..") return rel.at(-1) === "package.json" ? "package.json" : "outside src";
  if (rel[0] === "extension") return rel.length === 2 ? "extension/activate" : `extension/${rel[1]}`;
  if (rel[0] === "webview" && rel[1] === "protocol") return "webview/protocol";
  return rel[0]!;
}

export interface ImportEdge {
  readonly from: string;
  readonly to: string;
  readonly specifier: string;
}

export function layerViolations(edges: readonly ImportEdge[]): string[] {
  const out: string[] = [];
  for (const edge of edges) {
    const from = layerOf(edge.from);
    const to = layerOf(edge.to);
    if (from === to) continue;
    const allowed = MAY_IMPORT[from];
    if (!allowed) out.push(`${relative(SRC, edge.from)}: folder ${from} has no place in the layers`);
    else if (!allowed.includes(to)) out.push(`${relative(SRC, edge.from)} imports ${edge.specifier} (${from} → ${to})`);
  }
  return out;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : name.endsWith(".ts") ? [path] : [];
  });
}

function importEdges(): ImportEdge[] {
  const pattern = /(?:import|export)[^;]*?from\s+["'](\.{1,2}\/[^"']+)["']|import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)|require\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;
  return sourceFiles(SRC).flatMap((file) =>
    [...readFileSync(file, "utf8").matchAll(pattern)].map((m) => {
      const specifier = (m[1] ?? m[2] ?? m[3])!;
      return { from: file, to: resolve(dirname(file), specifier), specifier };
    }),
  );
}

it("every import under src/ follows the layers, and the product never imports tooling", () => {
  const edges = importEdges();
  assert.ok(edges.length > 300, `imports found: ${edges.length}`);
  assert.ok(edges.some((e) => layerOf(e.from) === "tools"), "tooling's imports are checked too");
  assert.deepEqual(layerViolations(edges), []);
});

it("fails on a planted wrong-way import", () => {
  const planted = (from: string, to: string): ImportEdge => ({ from: join(SRC, from), to: join(SRC, to), specifier: to });
  assert.equal(layerViolations([planted("extension/core/session.ts", "extension/shell/settings/settings")]).length, 1, "core → shell");
  assert.equal(layerViolations([planted("extension/backends/load-engine.ts", "tools/llama-build/llama-cpp-source")]).length, 1, "product → tooling");
  assert.equal(layerViolations([planted("extension/engine-host/main.ts", "extension/shell/settings/settings")]).length, 1, "engine-host → shell");
  assert.equal(layerViolations([planted("webview/main.ts", "extension/shell/chat/chat-panel")]).length, 1, "webview → shell");
  assert.equal(layerViolations([planted("extension/shell/chat/chat-panel.ts", "webview/markdown")]).length, 1, "shell → the webview's DOM code");
  assert.equal(layerViolations([planted("webview/protocol/messages.ts", "webview/dom")]).length, 1, "protocol → the webview's DOM code");
  assert.deepEqual(layerViolations([planted("extension/shell/chat/chat-panel.ts", "webview/protocol/messages")]), [], "shell → the shared protocol is fine");
  assert.deepEqual(layerViolations([planted("tools/peer-bench/sides.ts", "extension/backends/load-engine")]), [], "tooling → product is fine");
});

it("DESIGN.md's Layers section names every folder under src/ and every room of the shell", () => {
  const design = readFileSync(join(SRC, "..", "DESIGN.md"), "utf8");
  const start = design.indexOf("## Layers");
  assert.ok(start >= 0, "DESIGN.md has a Layers section");
  const layers = design.slice(start, design.indexOf("\n## ", start + 5));
  const subfolders = (top: string): string[] =>
    readdirSync(join(SRC, top)).filter((name) => statSync(join(SRC, top, name)).isDirectory()).map((name) => `${top}/${name}`);
  const folders = [...["extension", "webview", "tools"].flatMap(subfolders), ...subfolders("extension/shell").map((f) => f.replace("extension/", ""))];
  const missing = folders.filter((folder) => !layers.includes(`${folder}/`));
  assert.deepEqual(missing, [], "folders the Layers section does not name");
});

it("shell/ is rooms: no file flat at its top level, and at most 10 import floors", () => {
  const shell = join(SRC, "extension", "shell");
  const flat = readdirSync(shell).filter((name) => !statSync(join(shell, name)).isDirectory());
  assert.deepEqual(flat, [], "files flat in shell/ (the composition root is src/extension/features.ts)");
  assert.ok(shellFloors(importEdges()) <= 10, `shell/ has ${shellFloors(importEdges())} import floors`);
  assert.deepEqual(shellRoomCircles(importEdges()), [], "rooms of shell/ that import each other (one must sit below the other)");
  const up = (from: string, to: string): ImportEdge => ({ from: join(shell, from, "a.ts"), to: join(shell, to, "b.ts"), specifier: to });
  assert.deepEqual(shellRoomCircles([up("chat", "lm"), up("lm", "settings"), up("settings", "chat")]), ["chat → lm → settings → chat"], "a planted circle of rooms is found");
  // The measure itself: a chain of 11 rooms is 11 floors; imports inside one room do not add floors.
  const chain = Array.from({ length: 11 }, (_, i) => join(shell, `room${i}`, "a.ts"));
  assert.equal(shellFloors([{ from: join(shell, "chat", "a.ts"), to: join(shell, "chat", "b.ts"), specifier: "./b" }]), 0);
  assert.equal(shellFloors(chain.slice(1).map((to, i) => ({ from: chain[i]!, to, specifier: to }))), 11);
});

/** Circles among shell/'s rooms (folders), each as "a → b → … → a"; none means every room sits above what it uses. */
export function shellRoomCircles(edges: readonly ImportEdge[]): string[] {
  const shell = join(SRC, "extension", "shell") + "/";
  const room = (path: string): string => path.slice(shell.length).split("/")[0]!.replace(/\.ts$/, "");
  const next = new Map<string, Set<string>>();
  for (const edge of edges) {
    if (!edge.from.startsWith(shell) || !edge.to.startsWith(shell) || room(edge.from) === room(edge.to)) continue;
    if (!next.has(room(edge.from))) next.set(room(edge.from), new Set());
    next.get(room(edge.from))!.add(room(edge.to));
  }
  const circles: string[] = [];
  const done = new Set<string>();
  const walk = (at: string, path: string[]): void => {
    if (path.includes(at)) {
      circles.push([...path.slice(path.indexOf(at)), at].join(" → "));
      return;
    }
    if (done.has(at)) return;
    for (const to of next.get(at) ?? []) walk(to, [...path, at]);
    done.add(at);
  };
  for (const start of [...next.keys()].sort()) walk(start, []);
  return circles;
}

/**
 * Floors as one reads the house: shell/'s rooms (its folders) stacked by their imports of each
 * other; a room that imports no other room is floor 1, and imports inside a room add none.
 */
export function shellFloors(edges: readonly ImportEdge[]): number {
  const shell = join(SRC, "extension", "shell") + "/";
  const inShell = (path: string): boolean => path.startsWith(shell);
  const key = (path: string): string => path.slice(shell.length).split("/")[0]!.replace(/\.ts$/, "");
  const next = new Map<string, Set<string>>();
  for (const edge of edges) {
    if (!inShell(edge.from) || !inShell(edge.to) || key(edge.from) === key(edge.to)) continue;
    const from = key(edge.from);
    if (!next.has(from)) next.set(from, new Set());
    next.get(from)!.add(key(edge.to));
  }
  const floor = new Map<string, number>();
  const visiting = new Set<string>();
  const floorOf = (file: string): number => {
    const known = floor.get(file);
    if (known !== undefined) return known;
    if (visiting.has(file)) return 0; // a circle: npm run lint refuses it, so it is not counted twice here
    visiting.add(file);
    let below = 0;
    for (const to of next.get(file) ?? []) below = Math.max(below, floorOf(to));
    visiting.delete(file);
    floor.set(file, below + 1);
    return below + 1;
  };
  return Math.max(0, ...[...next.keys()].map(floorOf));
}
