// The load options' defaults and the capacity rule live once (core/engine-options.ts): the
// rule's cases, and the settings and CLI defaults that must agree with it.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { parseChatArgs } from "../../src/extension/cli/chat-args";
import { CONTEXT_STEP, DEFAULT_CONTEXT_SIZE, engineCapacity, requestedContextSize } from "../../src/extension/core/engine-options";

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
    const manifest = JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf8")) as {
      contributes: { configuration: { properties: Record<string, { default?: unknown }> } };
    };
    assert.equal(manifest.contributes.configuration.properties["statefulChat.contextSize"]?.default, DEFAULT_CONTEXT_SIZE);
    assert.equal(parseChatArgs([]).ctx, DEFAULT_CONTEXT_SIZE);
  });
});
