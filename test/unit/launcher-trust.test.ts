// `npm start` leaves Workspace Trust on (issue 39, item 6): a folder opened with it gets
// Restricted Mode until the user trusts it, so its .vscode tasks and settings do not run on
// their own. Only the test harnesses turn trust off, for their own throwaway workspaces, and
// they say so explicitly.

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { codeServerArgs } from "../../src/tools/launcher/code-server";
import type { Scratch } from "../../src/tools/launcher/scratch";
import type { Toolchain } from "../../src/tools/launcher/toolchain";
import { defaultSettings, writeUserSettings } from "../../src/tools/launcher/user-settings";

const toolchain: Toolchain = { node: "/opt/node24/bin/node", codeServer: "/opt/code-server/out/node/entry.js" };
const scratch: Scratch = { root: "/s", userDataDir: "/s/user", extensionsDir: "/s/ext", env: {} };

describe("npm start keeps Workspace Trust on", () => {
  it("code-server is started without --disable-workspace-trust unless a harness asks for it", () => {
    const plain = codeServerArgs({ toolchain, scratch, folder: "/repo", password: "p" }, 8080);
    assert.ok(!plain.includes("--disable-workspace-trust"), plain.join(" "));
    assert.equal(plain[plain.length - 1], "/repo", "the folder comes last");
    const harness = codeServerArgs({ toolchain, scratch, folder: "/w", disableWorkspaceTrust: true }, 8080);
    assert.ok(harness.includes("--disable-workspace-trust"));
  });

  it("the profile's settings turn security.workspace.trust.enabled on (over a stale false) unless a harness asks", () => {
    // Written as true, not left out: the launcher's profile persists, and earlier runs wrote false into it.
    assert.equal(defaultSettings("/m.gguf")["security.workspace.trust.enabled"], true);
    assert.equal(defaultSettings("/m.gguf", { disableWorkspaceTrust: true })["security.workspace.trust.enabled"], false);
    assert.equal(defaultSettings("/m.gguf")["statefulChat.modelPath"], "/m.gguf");
  });

  it("a launcher profile that an earlier run left with trust off gets it back on", () => {
    const userDataDir = mkdtempSync(join(tmpdir(), "launcher-trust-"));
    try {
      mkdirSync(join(userDataDir, "User"));
      writeFileSync(join(userDataDir, "User", "settings.json"), JSON.stringify({ "security.workspace.trust.enabled": false, "editor.fontSize": 13 }));
      writeUserSettings(userDataDir, defaultSettings("/m.gguf"));
      const written = JSON.parse(readFileSync(join(userDataDir, "User", "settings.json"), "utf8")) as Record<string, unknown>;
      assert.equal(written["security.workspace.trust.enabled"], true);
      assert.equal(written["editor.fontSize"], 13, "the user's own settings stay");
    } finally {
      rmSync(userDataDir, { recursive: true, force: true });
    }
  });
});
