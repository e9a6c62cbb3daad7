// Renamed settings keep working: a value under an old name in user settings is moved to the
// new name, once; the new name wins where both are set; a settings file that cannot be written
// leaves the old value, which is then still read. Workspace and folder settings are never
// rewritten (issue 39, item 13): their old names are reported and still read, level by level.
// In Restricted Mode nothing is migrated at all. Machine-scoped settings are read from user
// settings only, with the workspace's value reported.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import manifest from "../../package.json";
import { isMachineScoped, MACHINE_SCOPED_SETTINGS } from "../../src/extension/shell/settings/setting-schema";
import { formerNameOf, machineSettingsSetIn, SettingReader } from "../../src/extension/shell/settings/setting-reader";
import { describeMigrationStep, migrateRenamedSettings, SETTING_RENAMES } from "../../src/extension/shell/settings/settings-migration";
import { FakeConfiguration } from "../support/fake-configuration";

const PROPERTIES = manifest.contributes.configuration.properties as Record<string, { markdownDeprecationMessage?: string; scope?: string }>;
const TRUSTED = { trusted: true } as const;

describe("settings migration", () => {
  it("moves a user value of an old name to the new name, and removes the old", async () => {
    const config = new FakeConfiguration().set("maxNewTokens", "global", 96);
    const steps = await migrateRenamedSettings([{ config, levels: ["global", "workspace"] }], TRUSTED);
    assert.deepEqual(steps.map((s) => [s.from, s.to, s.level, s.outcome]), [["maxNewTokens", "reply.maxTokens", "global", "moved"]]);
    assert.equal(config.at("reply.maxTokens", "global"), 96);
    assert.equal(config.at("maxNewTokens", "global"), undefined);
    assert.equal(describeMigrationStep(steps[0]!), "Settings: statefulChat.maxNewTokens → statefulChat.reply.maxTokens: moved 96 in user settings.");
  });

  it("never writes the workspace's or a folder's settings: their old names are left, reported with the new name", async () => {
    const window = new FakeConfiguration().set("historyRendering", "workspace", "asGenerated").set("threads", "global", 2);
    const folder = new FakeConfiguration().set("maxNewTokens", "workspaceFolder", 64);
    const steps = await migrateRenamedSettings(
      [
        { config: window, levels: ["global", "workspace"] },
        { config: folder, levels: ["workspaceFolder"] },
      ],
      TRUSTED,
    );
    assert.deepEqual(
      steps.map((s) => [s.from, s.level, s.outcome]),
      [
        ["threads", "global", "moved"],
        ["historyRendering", "workspace", "left"],
        ["maxNewTokens", "workspaceFolder", "left"],
      ],
    );
    assert.deepEqual(window.writes.map((w) => w.level), ["global", "global"], "only user settings were written");
    assert.deepEqual(folder.writes, []);
    assert.equal(window.at("historyRendering", "workspace"), "asGenerated");
    assert.equal(
      describeMigrationStep(steps[1]!),
      "Settings: statefulChat.historyRendering → statefulChat.advanced.historyRendering: workspace settings still use the old name (value \"asGenerated\"), which is still read; rename it there when you like (workspace settings are not changed for you).",
    );
  });

  it("migrates nothing in Restricted Mode (an untrusted workspace), not even user settings", async () => {
    const config = new FakeConfiguration().set("maxNewTokens", "global", 96).set("threads", "workspace", 3);
    assert.deepEqual(await migrateRenamedSettings([{ config, levels: ["global", "workspace"] }], { trusted: false }), []);
    assert.deepEqual(config.writes, []);
    assert.equal(config.at("maxNewTokens", "global"), 96);
  });

  it("is one-time: a second run finds nothing to move and writes nothing", async () => {
    const config = new FakeConfiguration().set("threads", "global", 2);
    await migrateRenamedSettings([{ config, levels: ["global", "workspace"] }], TRUSTED);
    const writes = config.writes.length;
    assert.deepEqual(await migrateRenamedSettings([{ config, levels: ["global", "workspace"] }], TRUSTED), []);
    assert.equal(config.writes.length, writes);
    assert.equal(config.at("advanced.threads", "global"), 2);
  });

  it("keeps the new name's value where both are set, and drops the old one", async () => {
    const config = new FakeConfiguration().set("maxNewTokens", "global", 96).set("reply.maxTokens", "global", 300);
    const [step] = await migrateRenamedSettings([{ config, levels: ["global"] }], TRUSTED);
    assert.equal(step?.outcome, "dropped");
    assert.equal(config.at("reply.maxTokens", "global"), 300);
    assert.equal(config.at("maxNewTokens", "global"), undefined);
  });

  it("leaves a workspace value of a machine-scoped setting alone (it is ignored either way)", async () => {
    const config = new FakeConfiguration().set("kvSnapshots.maxDiskMB", "workspace", 1).set("kvSnapshots.maxDiskMB", "global", 512);
    const steps = await migrateRenamedSettings([{ config, levels: ["global", "workspace"] }], TRUSTED);
    assert.deepEqual(steps.map((s) => [s.level, s.outcome]), [["global", "moved"], ["workspace", "kept"]]);
    assert.equal(config.at("kvSnapshots.maxDiskMegabytes", "global"), 512);
    assert.equal(config.at("kvSnapshots.maxDiskMegabytes", "workspace"), undefined);
  });

  it("a settings file that cannot be written keeps the old value, and reads still find it", async () => {
    const config = new FakeConfiguration().set("maxNewTokens", "global", 7);
    config.readOnly.add("global");
    const [step] = await migrateRenamedSettings([{ config, levels: ["global", "workspace"] }], TRUSTED);
    assert.equal(step?.outcome, "failed");
    assert.match(describeMigrationStep(step!), /could not move the value in user settings \(Unable to write into global settings\); the old name is still read/);
    assert.equal(new SettingReader(config, () => {}).value("reply.maxTokens"), 7);
  });

  it("every old name is declared in package.json as deprecated, pointing at its new name, with the same scope", () => {
    for (const { from, to } of SETTING_RENAMES) {
      const old = PROPERTIES[`statefulChat.${from}`];
      const current = PROPERTIES[`statefulChat.${to}`];
      assert.ok(old?.markdownDeprecationMessage?.includes(`#statefulChat.${to}#`), from);
      assert.ok(current && current.markdownDeprecationMessage === undefined, to);
      assert.equal(old.scope, current.scope, from);
      assert.equal(formerNameOf(to), from);
    }
  });
});

describe("reading a setting", () => {
  it("falls back to the old name only while the new one is set nowhere", () => {
    const config = new FakeConfiguration().set("maxNewTokens", "global", 96);
    const reader = new SettingReader(config, () => {});
    assert.equal(reader.value("reply.maxTokens"), 96);
    config.set("reply.maxTokens", "workspace", 40);
    assert.equal(reader.value("reply.maxTokens"), 40);
    assert.equal(new SettingReader(new FakeConfiguration(), () => {}).value("reply.maxTokens"), 512, "neither set: the new name's default");
  });

  it("a workspace's old name (left unmigrated) still overrides the user's new name, level by level", () => {
    const config = new FakeConfiguration().set("reply.maxTokens", "global", 96).set("maxNewTokens", "workspace", 300);
    const reader = new SettingReader(config, () => {});
    assert.equal(reader.value("reply.maxTokens"), 300, "the more specific level wins, whichever name it uses");
    config.set("maxNewTokens", "workspaceFolder", 50);
    assert.equal(reader.value("reply.maxTokens"), 50);
    config.set("reply.maxTokens", "workspace", 40);
    assert.equal(reader.value("reply.maxTokens"), 50, "the folder's old name still beats the workspace's new name");
    config.set("reply.maxTokens", "workspaceFolder", 20);
    assert.equal(reader.value("reply.maxTokens"), 20, "at one level the new name wins");
  });

  it("takes a machine-scoped setting from user settings only, and reports a workspace or folder value each time it is seen", () => {
    const config = new FakeConfiguration()
      .set("server.url", "global", "http://127.0.0.1:8080")
      .set("server.url", "workspace", "http://attacker.example:8080")
      .set("modelPath", "workspaceFolder", "/tmp/their-model.gguf")
      .set("backend", "workspace", "remote");
    const ignored: string[] = [];
    const reader = new SettingReader(config, (name) => ignored.push(name));
    assert.equal(config.get("server.url"), "http://attacker.example:8080", "the fake, like get(), would take the workspace's value");
    assert.equal(reader.value("server.url"), "http://127.0.0.1:8080");
    assert.equal(reader.value("modelPath"), "", "the default, not the folder's file");
    assert.equal(reader.value("backend"), "auto");
    assert.deepEqual(ignored, ["server.url", "modelPath", "backend"]);
    assert.equal(reader.value("temperature"), 0, "other settings read as VS Code resolves them");
  });

  it("paths, servers, the GPU and the snapshot budget are the machine-scoped settings", () => {
    assert.deepEqual(
      [...MACHINE_SCOPED_SETTINGS].sort(),
      ["backend", "draftModelPath", "gpu", "gpuLayers", "kvSnapshots.maxDiskMB", "kvSnapshots.maxDiskMegabytes", "modelPath", "server.kind", "server.url"],
    );
    assert.equal(isMachineScoped("contextSize"), false);
  });

  it("finds machine-scoped settings in a workspace's settings file, dotted or nested, but not language overrides", () => {
    const file = {
      "statefulChat.server.url": "http://x:1",
      statefulChat: { modelPath: "/m.gguf", server: { kind: "vllm" }, temperature: 1 },
      "statefulChat.kvSnapshots.maxDiskMB": 1,
      "[python]": { "statefulChat.backend": "remote" },
      "editor.fontSize": 12,
    };
    assert.deepEqual(machineSettingsSetIn(file).sort(), ["kvSnapshots.maxDiskMB", "modelPath", "server.kind", "server.url"]);
    assert.deepEqual(machineSettingsSetIn(undefined), []);
  });
});
