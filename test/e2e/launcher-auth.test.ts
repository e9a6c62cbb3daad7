// `npm start` serves a shell-capable workbench on 127.0.0.1, which every local user of a shared
// host can reach: it must ask for the password it prints. The tests' own servers stay on
// `--auth none` (short-lived, scratch profiles); this checks the launcher's option for real.

import * as assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { startCodeServer, type RunningCodeServer } from "../../src/tools/launcher/code-server";
import { prepareScratch } from "../../src/tools/launcher/scratch";
import { provision } from "../integration/harness/provision";
import { makeWorkspace } from "../integration/harness/scratch-workspace";

async function login(server: RunningCodeServer, password: string): Promise<Response> {
  return fetch(`${server.origin}/login`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ password }).toString(),
  });
}

describe("npm start's code-server", { timeout: 5 * 60_000 }, () => {
  let server: RunningCodeServer;
  const password = randomBytes(12).toString("base64url");

  before(async () => {
    const { paths, toolchain } = await provision();
    const scratch = prepareScratch(paths.runs, "launcher-auth", true);
    server = await startCodeServer({ toolchain, scratch, folder: makeWorkspace(scratch.root), password });
  });
  after(async () => {
    await server?.stop();
  });

  it("sends a visitor without the password to the login page", async () => {
    const response = await fetch(server.url(), { redirect: "manual" });
    assert.equal(response.status, 302);
    assert.match(response.headers.get("location") ?? "", /login/);
  });

  it("refuses a wrong password and lets the printed one in", async () => {
    const wrong = await login(server, `${password}x`);
    assert.equal(wrong.headers.get("set-cookie"), null, "a wrong password got a session cookie");
    const right = await login(server, password);
    const cookie = right.headers.get("set-cookie");
    assert.ok(cookie, `no session cookie (status ${right.status})`);
    const workbench = await fetch(server.url(), { redirect: "manual", headers: { cookie: cookie.split(";")[0] } });
    assert.equal(workbench.status, 200);
  });
});
