// The load options' defaults and the capacity rule live once (core/engine-options.ts): the
// rule's cases, and the settings and CLI defaults that must agree with it.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { parseChatArgs } from "../../src/extension/cli/chat-args";
import {
  BACKEND_CHOICES,
  COMPUTE_UNITS_CHOICES,
  CONTEXT_STEP,
  DEFAULT_CONTEXT_SIZE,
  engineCapacity,
  GPU_CHOICES,
  requestedContextSize,
  SERVER_KINDS,
} from "../../src/extension/core/engine-options";

const SETTINGS = (
  JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf8")) as {
    contributes: { configuration: { properties: Record<string, { default?: unknown; enum?: readonly string[] } | undefined> } };
  }
).contributes.configuration.properties;

describe("engine options", () => {
  it("takes the default context when none is asked for", () => {
    assert.equal(requestedContextSize(undefined), DEFAULT_CONTEXT_SIZE);
    assert.equal(requestedContextSize(1000), 1000);
    assert.equal(engineCapacity(undefined), DEFAULT_CONTEXT_SIZE);
  });

  it("caps the capacity at the training context and rounds it up to a whole step", () => {
    assert.equal(engineCapacity(1000), 1024);
    assert.equal(engineCapacity(8192, 2048), 2048);
    assert.equal(engineCapacity(8192, 2000), 2048);
    assert.equal(engineCapacity(1000, 32768), 1024);
    assert.equal(engineCapacity(CONTEXT_STEP * 3), CONTEXT_STEP * 3);
  });

  it("is the default of statefulChat.contextSize and of the CLI's --ctx", () => {
    assert.equal(SETTINGS["statefulChat.contextSize"]?.default, DEFAULT_CONTEXT_SIZE);
    assert.equal(parseChatArgs([]).ctx, DEFAULT_CONTEXT_SIZE);
  });

  it("lists every choice the settings offer, and no other", () => {
    const lists: ReadonlyArray<readonly [string, readonly string[]]> = [
      ["statefulChat.backend", BACKEND_CHOICES],
      ["statefulChat.computeUnits", COMPUTE_UNITS_CHOICES],
      ["statefulChat.gpu", GPU_CHOICES],
      ["statefulChat.server.kind", SERVER_KINDS],
    ];
    for (const [setting, choices] of lists) assert.deepEqual([...(SETTINGS[setting]?.enum ?? [])].sort(), [...choices].sort(), setting);
  });
});
