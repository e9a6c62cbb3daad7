// What package.json promises VS Code users: every setting described, with a scope (paths and
// servers `machine`, and restricted in untrusted workspaces); default keys that stay out of the
// way of the most-installed extensions, each with a `when`; activation only on our own
// commands, views, panels and model provider, never on startup.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";

interface Schema {
  readonly type?: string;
  readonly scope?: string;
  readonly enum?: readonly unknown[];
  readonly enumDescriptions?: readonly string[];
  readonly markdownDescription?: string;
  readonly markdownDeprecationMessage?: string;
}
interface Keybinding {
  readonly command: string;
  readonly key: string;
  readonly mac?: string;
  readonly when?: string;
}
interface Manifest {
  readonly activationEvents: readonly string[];
  readonly capabilities?: { readonly untrustedWorkspaces?: { readonly supported: unknown; readonly restrictedConfigurations?: readonly string[]; readonly description?: string } };
  readonly contributes: {
    readonly commands: ReadonlyArray<{ readonly command: string }>;
    readonly keybindings: readonly Keybinding[];
    readonly configuration: { readonly properties: Readonly<Record<string, Schema>> };
  };
}

const manifest = JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf8")) as Manifest;
const properties = Object.entries(manifest.contributes.configuration.properties);
const current = properties.filter(([, s]) => s.markdownDeprecationMessage === undefined);

/**
 * Default keys of the most-installed extensions, from their package.json (Code Runner 2024-04,
 * GitLens 2026-08, Live Server 2026-02, Copilot Chat 2026-03; Prettier and ESLint contribute
 * none and format through VS Code's shift+alt+f), and the VS Code 1.139 defaults that the
 * Copilot Chat experience relies on (read from code-server's workbench).
 */
const TAKEN: ReadonlyArray<{ readonly by: string; readonly keys: readonly string[] }> = [
  { by: "Code Runner", keys: ["ctrl+alt+n", "ctrl+alt+m", "ctrl+alt+j", "ctrl+alt+k"] },
  { by: "Live Server", keys: ["alt+l alt+o", "alt+l alt+c", "cmd+l cmd+o", "cmd+l cmd+c"] },
  { by: "GitHub Copilot Chat", keys: ["ctrl+alt+.", "ctrl+shift+.", "cmd+alt+.", "cmd+shift+.", "ctrl+enter", "cmd+enter"] },
  { by: "VS Code Chat (Copilot)", keys: ["ctrl+alt+i", "cmd+alt+i", "ctrl+i", "cmd+i", "ctrl+shift+i", "cmd+shift+i", "ctrl+shift+alt+l", "cmd+shift+alt+l", "ctrl+alt+b", "cmd+alt+b"] },
  {
    by: "GitLens",
    keys: ["alt+,", "alt+.", "alt+/", "alt+b", "alt+c", "alt+h", "alt+s", "shift+alt+,", "shift+alt+.", "shift+alt+b", "shift+alt+h", "ctrl+shift+g", "cmd+alt+g"],
  },
  { by: "VS Code (format, used by Prettier and ESLint)", keys: ["shift+alt+f", "ctrl+shift+i", "shift+alt+o"] },
  // VS Code for the Web (code-server): New Window, New Untitled File.
  { by: "VS Code for the Web", keys: ["ctrl+shift+alt+n", "cmd+shift+alt+n", "ctrl+alt+n", "cmd+alt+n"] },
];

/** A chord's first part also counts: pressing it starts the other extension's chord. */
function collides(key: string, taken: string): boolean {
  const ours = key.toLowerCase().split(" ");
  const theirs = taken.toLowerCase().split(" ");
  return theirs.every((part, i) => ours[i] === undefined || ours[i] === part) || ours.every((part, i) => theirs[i] === part);
}

describe("settings in package.json", () => {
  it("every setting is described, and every choice too", () => {
    for (const [id, schema] of current) {
      assert.ok((schema.markdownDescription ?? "").length > 20, `${id} has a markdownDescription`);
      if (schema.enum) assert.equal(schema.enumDescriptions?.length, schema.enum.length, `${id} describes each choice`);
    }
  });

  it("every setting declares its scope; paths and servers are machine-scoped", () => {
    for (const [id, schema] of properties) assert.ok(schema.scope, `${id} has a scope`);
    for (const id of ["modelPath", "draftModelPath", "server.url", "server.kind", "backend", "kvSnapshots.maxDiskMegabytes"]) {
      assert.equal(manifest.contributes.configuration.properties[`statefulChat.${id}`]?.scope, "machine", id);
    }
  });

  it("declares untrusted-workspace support as limited, restricting at least every machine-scoped setting", () => {
    const trust = manifest.capabilities?.untrustedWorkspaces;
    assert.equal(trust?.supported, "limited");
    assert.ok((trust?.description ?? "").length > 20);
    const restricted = new Set(trust?.restrictedConfigurations);
    for (const [id, schema] of current) if (schema.scope === "machine") assert.ok(restricted.has(id), `${id} is restricted`);
    for (const id of restricted) assert.ok(manifest.contributes.configuration.properties[id], `${id} exists`);
  });
});

describe("keys and activation", () => {
  it("every default key has a when clause and collides with none of the popular extensions' defaults", () => {
    assert.ok(manifest.contributes.keybindings.length > 0);
    for (const binding of manifest.contributes.keybindings) {
      assert.ok(binding.when && binding.when.trim().length > 0, `${binding.command} has a when clause`);
      for (const key of [binding.key, binding.mac].filter((k): k is string => !!k)) {
        for (const { by, keys } of TAKEN) for (const taken of keys) assert.ok(!collides(key, taken), `${binding.command}: ${key} is ${by}'s ${taken}`);
      }
    }
  });

  it("the collision check itself sees the old Ctrl+Alt+N and a chord prefix", () => {
    assert.equal(collides("ctrl+alt+n", "ctrl+alt+n"), true);
    assert.equal(collides("alt+l", "alt+l alt+o"), true);
    assert.equal(collides("ctrl+shift+g x", "ctrl+shift+g"), true);
    assert.equal(collides("ctrl+shift+alt+m", "ctrl+shift+alt+n"), false);
  });

  it("activates on our panels, views, model provider and participant only, not on startup", () => {
    const events = manifest.activationEvents;
    assert.deepEqual(events.filter((e) => e === "*" || e.startsWith("workspaceContains:") || e.startsWith("onLanguage:")), []);
    for (const needed of ["onWebviewPanel:statefulChat.chat", "onView:statefulChat.chatView", "onLanguageModelChatProvider:stateful-chat"]) {
      assert.ok(events.includes(needed), needed);
    }
    // Commands activate through the onCommand events VS Code (≥ 1.74) generates from contributes.commands.
    assert.ok(manifest.contributes.commands.every((c) => c.command.startsWith("statefulChat.")));
  });
});
